/** Prompts in from the chats: held here until pi can take them, handed over one at a time. */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { randomUUID } from "node:crypto";
import { describe, later, type Json, type Log, type Timer } from "./callbacks.ts";

/**
 * How long a prompt handed to an idle pi may take to start its run (`agent_start`) before the
 * chat is told it did not start. pi reports the failure to no extension (spec §11 trap 6), and
 * the chat must hear within 5 s of the hand-over.
 */
export const PROMPT_START_WATCH_MS = 3000;
/**
 * After a prompt was reported not started, how long the next waits in case it was only slow (a
 * pre-run phase longer than PROMPT_START_WATCH_MS: a key refresh, another extension's
 * before_agent_start): sent into that pre-run it would collide and fail unseen (trap 6), and the
 * late run's agent_start would be taken for its. Any run's start ends the wait. A prompt another
 * extension's `input` handler took looks the same, and the next waits this long after it: a
 * delay, where sending at once could lose a prompt.
 */
const LATE_START_MS = 15_000;
const LATE_START = "late start";
/** How long a steer handed to a busy pi may take to pass pi's `input` stage. */
const PROMPT_QUEUED_TIMEOUT_MS = 2000;
/**
 * After `agent_end` pi decides on a retry or a compaction in its own processing, after the
 * extensions' handlers (trap 4): a queued prompt waits this long before it may start a run.
 */
const AFTER_RUN_SETTLE_MS = 400;
/** A prompt waiting here looks again this often (pi may go idle without any event: traps 1, 2). */
const POLL_MS = 250;
/** A compaction pi started (session_before_compact) holds the queue at most this long (trap 7). */
export const COMPACTION_HOLD_MS = 120_000;
/**
 * After a compaction the TUI sends what the person typed during it, the first through prompt(),
 * once compact() has returned, so just after session_compact (spec §5.3, §11 trap 7). A chat
 * prompt let go at session_compact would be in its pre-run then, and the second to start fails
 * (trap 6). No extension can see whether text is held: chat prompts wait this long, or until that
 * text's `input`, and then for its run to start as behind any terminal prompt.
 */
const AFTER_COMPACTION_MS = 1000;
const TYPED_DURING_COMPACTION = "text typed during the compaction";
/** How long the chats have to say whether prompts held at a switch go to the new conversation. */
const SWITCH_QUESTION_MS = 10 * 60_000;

/** The chat's answer when pi never started its prompt (the daemon shows it as pi's rejection). */
export const NOT_STARTED = "pi did not start this prompt; see the terminal";
/** How many texts of other prompts (the terminal's, other extensions') are kept to tell them from ours. */
const OTHER_PROMPTS_KEPT = 20;

export interface OutgoingPrompt {
  content: string | Json[];
  text: string;
  deliverAs: "steer" | "followUp";
  /**
   * The text as our `input` handler saw it: another extension's handler before ours may have
   * rewritten it (spec §5.3, transforms chain in load order). What pi's user message carries.
   */
  piText?: string;
  /** How it went to a busy pi (a steer may go as a follow-up while a gate waits). */
  sentAs?: "steer" | "followUp";
  /** The daemon's command (its `id` and `type`): a prompt pi never started is answered again, failing. */
  command?: { id: unknown; type: string };
}

/** The session switch a queue went through (session_switch's reason; `fork` for session_fork). */
export type SwitchReason = "new" | "resume" | "fork";

/** What a `/new` or `/resume` found of the chats' prompts. */
export interface SwitchOutcome {
  /** Still here, not handed to pi: held until the chats say (`Send` or `Drop`). */
  held: OutgoingPrompt[];
  /** Handed to pi and not yet taken: `/new` dropped them, `/resume` delivers them (trap 2). */
  inPi: OutgoingPrompt[];
  /**
   * In pi's pre-run phase (sent into an idle pi, no agent_start yet): no switch aborts it (there
   * is no run yet, trap 10), so it runs in the new conversation.
   */
  starting: OutgoingPrompt[];
}

/** A prompt that is not the chats', seen at our `input` handler: the terminal's or another extension's. */
interface OtherPrompt {
  text: string;
  /** Seen while pi was idle: it starts a run, and is that run's first user message. */
  starts: boolean;
  /** When our handler saw it, on the scale of `PromptSender.seq`. */
  order: number;
}

/** A prompt pi may hold: one of the chats' or another. */
type Held = OutgoingPrompt | OtherPrompt;

interface Hold {
  timer: Timer;
  /** Lifted when a run starts (the compaction or continuation it waited for is over). */
  untilAgentStart: boolean;
}

interface SwitchQuestion {
  id: string;
  prompts: OutgoingPrompt[];
  reason: SwitchReason;
  timer: Timer;
}

/**
 * The chats' prompts, kept here until pi can take them so that a session switch finds them
 * here and not inside pi (trap 2), and handed to pi.sendUserMessage one at a time:
 * - A follow-up waits until pi is idle, no hold is on and a finished run has settled; a steer
 *   goes into a busy pi at once (it is meant for the running turn).
 * - Holds: a compaction (pi is idle while it compacts, and a prompt sent then runs unseen and
 *   unsaved, trap 7), the daemon's own `compact`, a retry or overflow continuation that pi will
 *   start (trap 4; `hold`/`release` for the retry predictor). Each has a time limit.
 * - After a send into an idle pi the next waits for `agent_start` (two sends into an idle pi
 *   collide, trap 6); none within PROMPT_START_WATCH_MS and the daemon gets a second, failing
 *   response to that prompt's command, as pi's RPC mode sends (pi-rpc.md §2, quirk 4). After a
 *   steer into a busy pi the next waits for that text's `input` event.
 */
export class PromptSender {
  private readonly queue: OutgoingPrompt[] = [];
  private waiting:
    | {
        until: "agent_start" | "input" | "user_message";
        prompt: OutgoingPrompt;
        timer: Timer;
        /** Our `input` handler saw this prompt. */
        inputSeen: boolean;
        /** Other prompts seen at our `input` handler since this one was handed over. */
        rivals: number;
      }
    | undefined;
  /**
   * Other prompts seen at our `input` (the terminal's, other extensions'), until their user
   * message comes: a user message that is one of them is not ours.
   */
  private others: OtherPrompt[] = [];
  /** Handed to a busy pi as steer or follow-up, not yet seen as a user message. */
  private inPi: OutgoingPrompt[] = [];
  /** When each of `inPi` was handed over, on the scale of `seq`: pi keeps its queues in order. */
  private readonly handedAt = new Map<OutgoingPrompt, number>();
  /** Counts prompts going into pi, ours and others, to know their order. */
  private seq = 0;
  /** `seq` at the last agent_start. */
  private runStartSeq = 0;
  /**
   * User messages of a text nobody saw (an extension after ours rewrote them) that could have
   * been any of `among`: `taken` of these are gone from pi, no telling which. Once as many are
   * gone as there are left, all are.
   */
  private unsure: { among: Set<Held>; taken: number } | undefined;
  /** What `inPi` held when a compaction aborted the run (trap 1), until the compaction is over. */
  private compactedRun: OutgoingPrompt[] = [];
  private readonly holds = new Map<string, Hold>();
  private settledAt = 0;
  /**
   * Until when a prompt typed at the terminal, or another extension's, may still be in pi's
   * pre-run phase (pi idle, no agent_start yet): ours would collide with it and fail unseen
   * (trap 6), so it waits.
   */
  private terminalStartingUntil = 0;
  private poll: Timer | undefined;
  private question: SwitchQuestion | undefined;
  private readonly pi: ExtensionAPI;
  private readonly isIdle: () => boolean;
  private readonly log: Log;
  /** A line to the daemon (buffered by the link across a switch). */
  private readonly send: (line: Json) => void;
  /** Whether an approval waits: a steer handed to pi then would skip the approved calls (trap 11). */
  private readonly gatePending: () => boolean;

  constructor(
    pi: ExtensionAPI,
    isIdle: () => boolean,
    log: Log,
    send: (line: Json) => void = () => {},
    gatePending: () => boolean = () => false,
  ) {
    this.pi = pi;
    this.isIdle = isIdle;
    this.log = log;
    this.send = send;
    this.gatePending = gatePending;
  }

  /** Prompts not yet handed to pi. */
  get queued(): number {
    return this.queue.length;
  }

  get isBusy(): boolean {
    return this.waiting !== undefined || this.queue.length > 0 || this.holds.size > 0;
  }

  /**
   * A chat prompt handed to an idle pi whose run has not been seen to start: still in pi's
   * pre-run phase, where no abort reaches it (spec §11 trap 10). It ends within the start watch.
   */
  get starting(): boolean {
    return this.waiting !== undefined && this.waiting.until !== "input";
  }

  /** Why prompts wait now (the holds' names), for logs and tests. */
  get holdReasons(): string[] {
    return [...this.holds.keys()];
  }

  enqueue(prompt: OutgoingPrompt): void {
    this.queue.push(prompt);
    this.pump();
  }

  /**
   * Holds every prompt here until `release(reason)`, a run starts (`untilAgentStart`), or `ms`
   * pass: nothing waits forever. Holding again under the same reason renews the limit.
   */
  hold(reason: string, ms: number, options: { untilAgentStart?: boolean } = {}): void {
    const previous = this.holds.get(reason);
    if (previous) clearTimeout(previous.timer);
    const timer = later(this.log, `prompt hold ${reason}`, ms, () => {
      if (this.holds.get(reason)?.timer !== timer) return;
      this.log(`chat prompts held for ${reason} for ${ms} ms: going on`);
      this.release(reason);
    });
    this.holds.set(reason, { timer, untilAgentStart: options.untilAgentStart ?? false });
  }

  release(reason: string): void {
    const hold = this.holds.get(reason);
    if (!hold) return;
    clearTimeout(hold.timer);
    this.holds.delete(reason);
    this.pump();
  }

  /**
   * `session_before_compact`: pi compacts, by hand, at the threshold, on overflow or before a
   * prompt. `abortedRun`: it aborted a run for it (trap 1), with the chats' steers and
   * follow-ups pi had taken during the run: what became of them is told once it is done.
   */
  onCompactionStart(abortedRun = false): void {
    if (abortedRun) this.compactedRun = [...this.inPi];
    this.hold("compaction", COMPACTION_HOLD_MS, { untilAgentStart: true });
    // A prompt whose pre-run phase compacts first (trap 5) is not late yet.
    if (this.waiting?.until === "agent_start") this.rewatch(COMPACTION_HOLD_MS);
    // Nor is one already reported late: its pre-run may be this compaction.
    if (this.holds.has(LATE_START)) this.hold(LATE_START, COMPACTION_HOLD_MS, { untilAgentStart: true });
  }

  /**
   * `session_compact`: the compaction is over. `pending`: pi still has queued messages
   * (`hasPendingMessages`). The run it aborted either left the chats' steers and follow-ups in
   * its queue (aborted while streaming: they run with the next prompt) or took them in just
   * before it ended (aborted in a tool call: unsaved, and the compaction replaced the context,
   * so they never run). The chats hear which.
   */
  onCompactionEnd(pending = false): void {
    const taken = this.compactedRun.filter((prompt) => this.inPi.includes(prompt));
    this.compactedRun = [];
    if (taken.length > 0) {
      const texts = taken.map((prompt) => prompt.text);
      if (pending) {
        this.send({ type: "prompts_delivered", reason: "compaction", texts });
      } else {
        this.forget(taken);
        this.log(`a compaction ended the run that had taken ${taken.length} chat prompt(s): they are lost`);
        this.send({ type: "prompts_dropped", reason: "compaction", texts });
      }
    }
    if (this.waiting?.until === "agent_start") this.rewatch(PROMPT_START_WATCH_MS);
    // The late prompt's run starts next, if it is its pre-run that compacted.
    if (this.holds.has(LATE_START)) this.hold(LATE_START, PROMPT_START_WATCH_MS, { untilAgentStart: true });
    this.hold(TYPED_DURING_COMPACTION, AFTER_COMPACTION_MS, { untilAgentStart: true });
    this.release("compaction");
  }

  onAgentStart(): void {
    this.terminalStartingUntil = 0;
    this.runStartSeq = this.seq;
    for (const [reason, hold] of this.holds) {
      if (!hold.untilAgentStart) continue;
      clearTimeout(hold.timer);
      this.holds.delete(reason);
    }
    const waiting = this.waiting;
    if (waiting?.until === "agent_start") {
      // A run's start is not yet ours: a terminal prompt in pi's pre-run phase beside ours (the
      // second to start fails unseen, trap 6), a continuation pi starts on its own, or another
      // extension's triggered turn (traps 4, 6) starts one too, and ours then fails unseen. The
      // run's user message says whose run this is.
      waiting.until = "user_message";
      this.rewatch(PROMPT_QUEUED_TIMEOUT_MS);
      return;
    }
    if (waiting) this.done();
  }

  /** A prompt typed at the terminal (`input`, source interactive), with its text as our handler saw it. */
  onTerminalInput(text: string): void {
    this.otherPrompt(text);
    this.otherPromptStarting();
    // The text the TUI held during a compaction: the chats' now wait for its run to start.
    this.release(TYPED_DURING_COMPACTION);
  }

  private otherPrompt(text: string): void {
    if (this.waiting) this.waiting.rivals++;
    this.others.push({ text, starts: this.isIdle(), order: this.seq++ });
    if (this.others.length > OTHER_PROMPTS_KEPT) this.forget(this.others.slice(0, this.others.length - OTHER_PROMPTS_KEPT));
  }

  /**
   * A prompt that is not the chats' went into pi: one typed at the terminal, or another
   * extension's `sendUserMessage`. Into an idle pi it has a pre-run phase, and ours would
   * collide with it and fail unseen (trap 6): the next of ours waits for its run to start. One
   * of ours already starting is confirmed by its run's user message anyway (`onAgentStart`).
   */
  private otherPromptStarting(): void {
    if (this.waiting?.until !== "agent_start" && this.isIdle()) this.terminalStartingUntil = Date.now() + PROMPT_START_WATCH_MS;
  }

  /**
   * `queueEmpty`: pi holds no queued message (`hasPendingMessages` false). Whatever of the run's
   * prompts is still listed here then is gone: rewritten past recognition, or swallowed by a
   * later extension's `input` handler (spec §5.3).
   */
  onAgentEnd(queueEmpty = false): void {
    this.settledAt = Date.now() + AFTER_RUN_SETTLE_MS;
    if (queueEmpty) {
      // Prompts seen since the run started may be another run's, already under way.
      const before = (order: number | undefined) => order !== undefined && order < this.runStartSeq;
      this.forget([
        ...this.inPi.filter((prompt) => prompt !== this.waiting?.prompt && before(this.handedAt.get(prompt))),
        ...this.others.filter((other) => before(other.order)),
      ]);
    }
    this.schedulePoll();
  }

  /**
   * A user message entered the conversation: the run's first (whose run it is), or a prompt
   * handed to a busy pi that pi took. Matched on the text pi had at our `input` handler. An
   * extension's handler after ours may still rewrite it (spec §5.3) and no event says what the
   * text became, so a message that is no prompt we know of is matched by where pi takes its
   * messages from: the run's first is the prompt that started it, the next ones come off pi's
   * queues in order, steers first (§5.1). Where that could be the chats' or another prompt, it is
   * taken for none: a terminal prompt is never a chat's.
   */
  onUserMessage(text: string): void {
    const mine = (prompt: OutgoingPrompt) => prompt.text === text || prompt.piText === text;
    const ours = this.inPi.find(mine);
    const other = ours ? undefined : this.others.find((seen) => seen.text === text);
    const waiting = this.waiting;
    if (waiting?.until === "user_message") {
      if (ours) this.forget([ours]);
      if (other) this.forget([other]);
      if (!mine(waiting.prompt)) {
        if (ours || other || waiting.rivals > 0) {
          // Another's, or, with another prompt starting beside ours, no telling whose: pi fails
          // the second to start (trap 6) and says which in the terminal.
          this.log("another prompt started first: pi did not start the chat's");
          this.failed(waiting.prompt, NOT_STARTED);
          // Rewritten past recognition, it is still the run's first: the other's that started.
          if (!ours && !other) this.forget(this.others.filter((seen) => seen.starts).slice(0, 1));
        } else {
          this.log("the run's user message is no prompt seen at our input handler: taken for the chat's, the only one sent");
        }
      } else {
        // Ours started: another prompt starting beside it failed in pi (trap 6).
        this.forget(this.others.filter((seen) => seen.starts));
      }
      this.done();
      return;
    }
    if (ours || other) return this.forget([ours ?? other!]);
    const candidates = this.candidates();
    if (candidates.length === 0) return;
    if (candidates.length > 1) {
      if (candidates.some((held) => this.inPi.includes(held as OutgoingPrompt))) {
        this.log("a user message that is no prompt seen at our input handler, and could be a chat's or another's: taken for none");
      }
      const unsure = this.unsure ?? { among: new Set<Held>(), taken: 0 };
      for (const held of candidates) unsure.among.add(held);
      unsure.taken++;
      this.unsure = unsure;
      this.settle();
      return;
    }
    if (this.inPi.includes(candidates[0] as OutgoingPrompt)) {
      this.log("a user message that is no prompt seen at our input handler: taken for the chat's that pi takes next");
    }
    this.forget(candidates);
  }

  /**
   * What pi may have taken next, as far as our `input` handler knows: the prompt starting a run,
   * else the first steer pi holds, else the first follow-up (spec §5.1). Another's prompt may be
   * either (`input` does not say), and one of `unsure` may be gone already.
   */
  private candidates(): Held[] {
    const starting = this.others.find((seen) => seen.starts);
    if (starting) return [starting];
    const maybe = (held: Held) => this.unsure?.among.has(held) ?? false;
    const queued = [
      ...this.inPi.map((prompt) => ({ held: prompt as Held, order: this.handedAt.get(prompt) ?? -1, steer: (prompt.sentAs ?? prompt.deliverAs) === "steer", ours: true })),
      ...this.others.map((seen) => ({ held: seen as Held, order: seen.order, steer: false, ours: false })),
    ].sort((a, b) => a.order - b.order);
    const found = new Set<Held>();
    for (const entry of queued) {
      if (!entry.ours || entry.steer) found.add(entry.held);
      if (entry.ours && entry.steer && !maybe(entry.held)) return [...found];
    }
    for (const entry of queued) {
      if (entry.ours && !entry.steer) found.add(entry.held);
      // A prompt pi surely holds comes before the follow-ups behind it, steer or follow-up.
      if ((!entry.ours || !entry.steer) && !maybe(entry.held)) break;
    }
    return [...found];
  }

  /** These are gone from pi, or nothing more will be learnt of them. */
  private forget(gone: Held[]): void {
    if (gone.length === 0) return;
    this.inPi = this.inPi.filter((prompt) => !gone.includes(prompt));
    this.others = this.others.filter((seen) => !gone.includes(seen));
    let shrunk = false;
    for (const held of gone) {
      this.handedAt.delete(held as OutgoingPrompt);
      if (this.unsure?.among.delete(held)) shrunk = true;
    }
    if (shrunk) this.settle();
  }

  /** As many user messages unaccounted for as prompts they could have been: all are gone. */
  private settle(): void {
    const unsure = this.unsure;
    if (!unsure || unsure.among.size > unsure.taken) return;
    this.unsure = undefined;
    this.forget([...unsure.among]);
  }

  /**
   * An `input` from an extension: ours (the prompt being handed over), or another's prompt. Ours
   * is the first after our sendUserMessage: its text may differ from what we sent when an
   * extension loaded before ours rewrote it (spec §5.3), and the text seen is what pi runs.
   */
  onExtensionInput(text: string): void {
    const waiting = this.waiting;
    if (waiting && !waiting.inputSeen && waiting.prompt.text === text) return this.inputOf(text);
    // A steer whose input came after its wait ended.
    const late = this.inPi.find((prompt) => prompt !== waiting?.prompt && prompt.piText === undefined && prompt.text === text);
    if (late) {
      late.piText = text;
      return;
    }
    if (waiting && !waiting.inputSeen) return this.inputOf(text);
    this.otherPrompt(text);
    this.otherPromptStarting();
  }

  /** Our `input` handler saw the prompt being handed over, as `text`. */
  private inputOf(text: string): void {
    const waiting = this.waiting!;
    waiting.inputSeen = true;
    waiting.prompt.piText = text;
    if (waiting.until === "input") this.done();
  }

  /**
   * A stop: the prompts not yet handed to pi are dropped. Returns how many. The ones pi has
   * cannot be taken back: pi's abort keeps its queues, and it starts the next run with them (no
   * extension API empties them). Their chats, told "steered" or "queued", hear that they run
   * with the next prompt.
   */
  dropQueued(): number {
    const dropped = this.queue.length;
    this.queue.length = 0;
    if (this.inPi.length > 0) this.send({ type: "prompts_delivered", reason: "stop", texts: this.inPi.map((prompt) => prompt.text) });
    return dropped;
  }

  /**
   * `/new` or `/resume`: the prompts still here are held for the chats to decide on (they were
   * meant for the conversation left); the ones pi has are reported, and forgotten here.
   */
  switched(): SwitchOutcome {
    const held = this.queue.splice(0);
    const inPi = this.inPi.splice(0);
    this.handedAt.clear();
    this.unsure = undefined;
    const starting: OutgoingPrompt[] = [];
    if (this.waiting) {
      // A steer waiting for its `input` is in inPi already.
      if (this.waiting.until !== "input") starting.push(this.waiting.prompt);
      clearTimeout(this.waiting.timer);
      this.waiting = undefined;
    }
    return { held, inPi, starting };
  }

  /**
   * Asks the chats whether prompts held at a switch go to the new conversation (pi's RPC
   * `extension_ui_request`, the daemon's question path). Asked (again) at every attach until
   * answered; no answer within SWITCH_QUESTION_MS drops them.
   */
  askAboutHeld(prompts: OutgoingPrompt[], reason: SwitchReason): void {
    if (this.question) {
      // A second switch before the answer: one question for all of them.
      clearTimeout(this.question.timer);
      prompts = [...this.question.prompts, ...prompts];
    }
    if (prompts.length === 0) return;
    const id = `held-prompts-${randomUUID()}`;
    const timer = later(this.log, "held prompts question", SWITCH_QUESTION_MS, () => {
      if (this.question?.id !== id) return;
      this.question = undefined;
      this.tellDropped(prompts, "unanswered"); // the daemon's copy expired with its `timeout`
    });
    // Asked at the new attach (askAgain), which a switch always brings.
    this.question = { id, prompts, reason, timer };
  }

  /** After an attach: the daemon holds no question of ours, so the open one is asked again. */
  askAgain(): void {
    const question = this.question;
    if (!question) return;
    const count = question.prompts.length;
    const what = count === 1 ? "1 chat prompt was" : `${count} chat prompts were`;
    this.send({
      type: "extension_ui_request",
      id: question.id,
      method: "select",
      title: `${what} waiting when the terminal switched to another conversation: send ${count === 1 ? "it" : "them"} to it?`,
      message: question.prompts.map((prompt) => `• ${preview(prompt.text)}`).join("\n"),
      options: ["Send", "Drop"],
      timeout: SWITCH_QUESTION_MS,
    });
  }

  /** The daemon's extension_ui_response. Returns false when it answers no question of ours. */
  onResponse(message: Json): boolean {
    const question = this.question;
    if (!question || message.id !== question.id) return false;
    this.question = undefined;
    clearTimeout(question.timer);
    if (message.value === "Send") {
      this.log(`sending ${question.prompts.length} held chat prompt(s) to the new conversation`);
      this.queue.unshift(...question.prompts);
      this.pump();
    } else {
      this.tellDropped(question.prompts, "answered");
    }
    return true;
  }

  /** The daemon hears which chat prompts will never run, and why. */
  tellDropped(prompts: OutgoingPrompt[], reason: "new" | "answered" | "unanswered" | "shutdown"): void {
    if (prompts.length === 0) return;
    this.log(`dropped ${prompts.length} chat prompt(s): ${reason}`);
    this.send({ type: "prompts_dropped", reason, texts: prompts.map((prompt) => prompt.text) });
  }

  /** pi took these into the conversation it resumed (trap 2): they run there. */
  /** pi takes these into the conversation it switched to: queued ones at `/resume` (trap 2), starting ones at either. */
  tellDelivered(prompts: OutgoingPrompt[], reason: "new" | "resume"): void {
    if (prompts.length === 0) return;
    this.send({ type: "prompts_delivered", reason, texts: prompts.map((prompt) => prompt.text) });
  }

  /**
   * pi is shutting down (`/reload`, `/quit`): nothing here will run, and a reloaded instance
   * starts empty (spec §11 trap 16). Returns the chat prompts that will not run: queued here,
   * held for the chats' answer at a switch, or queued in pi.
   */
  clear(): OutgoingPrompt[] {
    const dropped = [...(this.question?.prompts ?? []), ...this.queue, ...this.inPi];
    if (dropped.length > 0) this.log(`dropped ${dropped.length} chat prompt(s) at shutdown`);
    this.queue.length = 0;
    this.inPi = [];
    this.handedAt.clear();
    this.others = [];
    this.unsure = undefined;
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = undefined;
    for (const hold of this.holds.values()) clearTimeout(hold.timer);
    this.holds.clear();
    if (this.question) clearTimeout(this.question.timer);
    this.question = undefined;
    if (this.poll) clearTimeout(this.poll);
    this.poll = undefined;
    return dropped;
  }

  private done(): void {
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = undefined;
    this.pump();
  }

  private rewatch(ms: number): void {
    const waiting = this.waiting;
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting.timer = this.watch(waiting.prompt, waiting.until, ms);
  }

  private watch(prompt: OutgoingPrompt, until: "agent_start" | "input" | "user_message", ms: number): Timer {
    return later(this.log, "prompt wait", ms, () => {
      if (this.waiting?.prompt !== prompt) return;
      if (this.waiting.until !== "input") {
        this.log(`no agent_start for a chat prompt within ${ms} ms: pi did not start it`);
        this.failed(prompt, NOT_STARTED);
        if (this.waiting.until === "agent_start") this.hold(LATE_START, LATE_START_MS, { untilAgentStart: true });
      } else {
        this.log(`no input event for a chat prompt within ${ms} ms; sending the next`);
      }
      this.done();
    });
  }

  /** A second, failing response to the prompt's command, as pi's RPC mode sends one. */
  private failed(prompt: OutgoingPrompt, error: string): void {
    if (!prompt.command) return;
    this.send({ type: "response", id: prompt.command.id, command: prompt.command.type, success: false, error });
  }

  /** The next prompt pi can take now, or -1. */
  private next(): number {
    if (this.waiting || this.holds.size > 0) return -1;
    if (!this.isIdle()) return this.queue.findIndex((prompt) => prompt.deliverAs === "steer");
    return Date.now() < Math.max(this.settledAt, this.terminalStartingUntil) ? -1 : 0;
  }

  private pump(): void {
    for (;;) {
      const index = this.next();
      if (index < 0) break;
      const prompt = this.queue.splice(index, 1)[0];
      if (!prompt) break;
      const idle = this.isIdle();
      const until = idle ? "agent_start" : "input";
      // Set before sending: pi may run our own `input` handler before sendUserMessage returns.
      this.waiting = { until, prompt, timer: this.watch(prompt, until, idle ? PROMPT_START_WATCH_MS : PROMPT_QUEUED_TIMEOUT_MS), inputSeen: false, rivals: 0 };
      prompt.piText = undefined;
      if (!idle) {
        this.inPi.push(prompt);
        this.handedAt.set(prompt, this.seq++);
      }
      // A steer queued here before an approval began waiting is checked again now: pi's poll after
      // the approval would find it and skip every call of the batch, the approved one included
      // (spec §11 trap 11). It goes as a follow-up, as one sent while the gate waits does.
      let deliverAs = prompt.deliverAs;
      if (deliverAs === "steer" && !idle && this.gatePending()) {
        deliverAs = "followUp";
        this.log("an approval is pending: a queued steer goes to pi as a follow-up, so the approved calls still run");
        // Its chat was answered "steered" when it was queued: it hears what became of it.
        this.send({ type: "prompts_delivered", reason: "gate", texts: [prompt.text] });
      }
      prompt.sentAs = deliverAs;
      try {
        this.pi.sendUserMessage(prompt.content as any, { deliverAs });
      } catch (error) {
        this.log(`sendUserMessage failed: ${describe(error)}`);
        this.failed(prompt, `pi refused the prompt: ${describe(error)}`);
        this.forget([prompt]);
        clearTimeout(this.waiting.timer);
        this.waiting = undefined;
      }
    }
    this.schedulePoll();
  }

  /** While prompts wait here, look again soon: pi goes idle without telling (traps 1, 2, 17). */
  private schedulePoll(): void {
    if (this.poll || this.queue.length === 0) return;
    this.poll = later(this.log, "prompt poll", POLL_MS, () => {
      this.poll = undefined;
      this.pump();
    });
  }
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

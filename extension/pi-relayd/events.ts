/** Events out, in pi's RPC shapes. */
import { isObject, later, type Json, type Log, type Timer } from "./callbacks.ts";
import type { ModelInfo, RetryPrediction, RetryWatch } from "./retry.ts";

const TOOL_UPDATE_INTERVAL_MS = 500;

/** The agent events the daemon takes (docs/EXTENSION.md, "The registration protocol"). */
export const RELAYED_EVENTS = [
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
];

/**
 * The lines that belong to a run as the daemon sees it: pi's events and what pi's RPC mode says
 * of retries and overflow compactions (sent here in its place, RelayedRun).
 */
export const RUN_LINE_TYPES = [...RELAYED_EVENTS, "auto_retry_start", "auto_retry_end", "auto_compaction_start", "auto_compaction_end"];

/**
 * The event as pi's RPC mode would print it, with docs/EXTENSION.md's two savings: a
 * message_update keeps only its assistantMessageEvent's type, contentIndex and delta (pi
 * repeats the whole answer in `message` and `partial` on every token), and agent_end drops
 * `messages` but a failure (`failedEnd`). Undefined for events the daemon does not take.
 */
export function relayedEvent(event: Json): Json | undefined {
  switch (event.type) {
    case "agent_start":
      return { type: event.type };
    case "agent_end":
      return failedEnd(event) ?? { type: event.type };
    case "turn_start":
      return { type: event.type, turnIndex: event.turnIndex, timestamp: event.timestamp };
    case "turn_end":
      return { type: event.type, turnIndex: event.turnIndex, message: event.message, toolResults: event.toolResults };
    case "message_start":
    case "message_end":
      return { type: event.type, message: event.message };
    case "message_update": {
      const inner = isObject(event.assistantMessageEvent) ? event.assistantMessageEvent : {};
      return {
        type: event.type,
        assistantMessageEvent: { type: inner.type, contentIndex: inner.contentIndex, delta: inner.delta },
      };
    }
    case "tool_execution_start":
      return { type: event.type, toolCallId: event.toolCallId, toolName: event.toolName, args: event.args };
    case "tool_execution_update":
      return {
        type: event.type,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        args: event.args,
        partialResult: event.partialResult,
      };
    case "tool_execution_end":
      return {
        type: event.type,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        result: event.result,
        isError: event.isError,
      };
    default:
      return undefined;
  }
}

/**
 * An agent_end whose last message is an assistant's error, with only what the daemon reads of it
 * (the last message's role, stopReason and errorMessage). When pi's agent loop itself throws,
 * this is the only place its error is told: no message_end carries it (spec §8.1, pi-rpc.md §3).
 */
function failedEnd(event: Json): Json | undefined {
  const last = Array.isArray(event.messages) ? event.messages.at(-1) : undefined;
  if (!isObject(last) || last.role !== "assistant" || last.stopReason !== "error") return undefined;
  const message: Json = { role: "assistant", stopReason: "error" };
  if (typeof last.errorMessage === "string") message.errorMessage = last.errorMessage;
  return { type: "agent_end", messages: [message] };
}

/**
 * At most one tool_execution_update per tool call every 500 ms: a tool's output can update on
 * every line, and each update carries all the output so far. The newest one held back is sent
 * when its time comes, and always before the call's tool_execution_end.
 */
export class ToolUpdateThrottle {
  private readonly calls = new Map<string, { lastSentAt: number; pending?: Json; timer?: Timer }>();
  private readonly send: (event: Json) => void;
  private readonly log: Log;

  constructor(send: (event: Json) => void, log: Log) {
    this.send = send;
    this.log = log;
  }

  update(event: Json): void {
    const id = String(event.toolCallId);
    const now = Date.now();
    let call = this.calls.get(id);
    if (!call) {
      call = { lastSentAt: 0 };
      this.calls.set(id, call);
    }
    if (!call.timer && now - call.lastSentAt >= TOOL_UPDATE_INTERVAL_MS) {
      call.lastSentAt = now;
      this.send(event);
      return;
    }
    call.pending = event;
    if (!call.timer) {
      const wait = TOOL_UPDATE_INTERVAL_MS - (now - call.lastSentAt);
      call.timer = later(this.log, "tool update", wait, () => this.flush(id));
    }
  }

  /** The call ended: what it held back goes first. */
  end(toolCallId: unknown): void {
    this.flush(String(toolCallId));
    this.calls.delete(String(toolCallId));
  }

  /** Sends everything held back and forgets all calls (the run ended). */
  flushAll(): void {
    for (const id of [...this.calls.keys()]) this.end(id);
  }

  /** Forgets everything without sending (detached). */
  clear(): void {
    for (const call of this.calls.values()) if (call.timer) clearTimeout(call.timer);
    this.calls.clear();
  }

  private flush(id: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    if (call.timer) clearTimeout(call.timer);
    call.timer = undefined;
    if (call.pending) {
      const pending = call.pending;
      call.pending = undefined;
      call.lastSentAt = Date.now();
      this.send(pending);
    }
  }
}

/**
 * How long a run may look finished to pi (`isIdle()`) without its `agent_end` before it is
 * ended here: pi aborts silently where no extension sees it (a `/compact` that fails before
 * `session_before_compact`, spec §11 trap 1), and the chat must not show "working" for ever.
 */
export const SILENT_END_MS = 5000;
/** How often an open run looks whether pi still works on it. */
const RUN_POLL_MS = 500;
/** Idle this long at the polls (plus up to one poll before the first saw it), the run ends: within SILENT_END_MS with room for a busy machine. */
const SILENT_IDLE_MS = SILENT_END_MS - 2 * RUN_POLL_MS;
/**
 * pi busy and streaming an answer, yet nothing of it reached the extension for this long: the
 * run's events wait behind another extension's slow handler (spec §9 quirks 2 and 3).
 */
const LAGGING_MS = 1500;
/** How long a compaction before an overflow continuation may take (its LLM call; trap 4). */
const OVERFLOW_COMPACTION_MS = 120_000;
/** pi's text for an aborted assistant message (pi-rpc.md's verbatim example). */
const ABORTED_TEXT = "Request was aborted";

/** Why a run that pi ended without a word is ended here. */
export type SilentEnd = "compaction" | "new" | "resume" | "shutdown" | "idle" | "abort" | "next run";

/** What the run relay needs of pi and of the relay. */
export interface RunHooks {
  /** A line to the daemon. */
  send(event: Json): void;
  /** pi's `ctx.isIdle()` (true when unknown). */
  idle(): boolean;
  /** pi's `ctx.model`, for the retry rules. */
  model(): ModelInfo | undefined;
  /** Before an end made here: what the tool update throttle holds goes out first. */
  flush(): void;
  /** pi will continue the run within `ms` (a retry's back-off, an overflow compaction): chat prompts wait. */
  continuationExpected?(ms: number): void;
  /** The continuation started, or will not come. */
  continuationOver?(): void;
  /** pi ended the run without agent_end, and it is ended here: what waited on the run goes too. */
  endedSilently?(): void;
  log: Log;
}

/**
 * The run as the daemon sees it. pi's events go out as they come, except where pi's own
 * listeners (its RPC mode) would hear more than an extension does (spec §11):
 *
 * - a run that pi ends silently (`/compact`, `/new`, `/resume` unsubscribe before they abort:
 *   traps 1–2; `/quit` mid-run: trap 17) is ended here as aborted, in pi's shapes: the open
 *   assistant message's `message_end` with stopReason "aborted", `turn_end`, `agent_end`;
 * - a run pi will retry or continue after an overflow compaction (trap 4) stays one run: its
 *   `agent_end` is held back, and the daemon hears what pi's RPC mode says instead
 *   (`auto_retry_start`, `auto_compaction_start`/`_end`, then `auto_retry_end` once an answer
 *   came). A continuation that does not come in time ends the run.
 */
export class RelayedRun {
  private readonly hooks: RunHooks;
  readonly retry: RetryWatch;
  /** An `agent_start` went out and its `agent_end` did not. */
  private open = false;
  /** The assistant message being streamed (its latest partial), if one is. */
  private assistant: Json | undefined;
  private readonly tools = new Map<string, { toolName: unknown; args: unknown }>();
  private turnIndex = 0;
  /** A continuation pi will start (retry or overflow), and since when a compaction runs for it. */
  private continuation: (RetryPrediction & { retrying: true }) | undefined;
  private continuationTimer: Timer | undefined;
  private pollTimer: Timer | undefined;
  private idleSince: number | undefined;
  /** When the last of this run's events reached the extension. */
  private lastEventAt = 0;
  /**
   * The run's last answer ended (no tool call in it): pi has nothing left of the run to do but
   * its turn_end and agent_end, which may wait behind a slower extension's handler.
   */
  private answered = false;
  /** pi worked on while the run's events stood still: they lag behind another extension's handler. */
  private lagging = false;

  constructor(hooks: RunHooks, retry: RetryWatch) {
    this.hooks = hooks;
    this.retry = retry;
  }

  /** A run is open for the daemon (going on, or waiting for pi's continuation). */
  get isOpen(): boolean {
    return this.open;
  }

  /** pi's continuation (retry or overflow) is awaited. */
  get isContinuing(): boolean {
    return this.continuation !== undefined;
  }

  /** pi compacts after a context overflow, or is about to, and then continues the run (trap 4). */
  get isRecoveringFromOverflow(): boolean {
    return this.continuation?.kind === "overflow";
  }

  /** One of pi's agent events, as the extension got it. */
  onAgentEvent(event: Json): void {
    this.lastEventAt = Date.now();
    switch (event.type) {
      case "agent_start":
        // Still open, and no continuation of it: pi ended it without agent_end (a mid-run
        // /compact that failed before session_before_compact, trap 1) and the idle check has not
        // seen it yet. It ends before this one starts, or the two would read as one run.
        if (this.open && !this.continuation) this.endSilently("next run");
        this.retry.onAgentStart();
        this.stopContinuationTimer();
        if (this.continuation) this.hooks.continuationOver?.();
        this.continuation = undefined;
        this.open = true;
        this.turnIndex = 0;
        this.answered = false;
        this.lagging = false;
        this.startPoll();
        break;
      case "turn_start":
        if (typeof event.turnIndex === "number") this.turnIndex = event.turnIndex;
        break;
      case "message_start":
        if (event.message?.role === "assistant") {
          this.assistant = event.message;
          this.answered = false;
        }
        if (event.message?.role === "user") this.retry.onUserMessage();
        break;
      case "message_update":
        if (isObject(event.message)) this.assistant = event.message;
        break;
      case "message_end":
        if (event.message?.role === "assistant") {
          this.assistant = undefined;
          this.answered = event.message.stopReason !== "toolUse";
          const relayed = relayedEvent(event);
          if (relayed) this.hooks.send(relayed);
          const succeeded = this.retry.onAssistantMessageEnd(event.message);
          // pi says it after the message_end (AS 486–493).
          if (succeeded !== undefined) this.hooks.send({ type: "auto_retry_end", success: true, attempt: succeeded });
          return;
        }
        break;
      case "tool_execution_start":
        this.tools.set(String(event.toolCallId), { toolName: event.toolName, args: event.args });
        break;
      case "tool_execution_end":
        this.tools.delete(String(event.toolCallId));
        break;
      case "agent_end":
        this.onAgentEnd(event);
        return;
    }
    const relayed = relayedEvent(event);
    if (relayed) this.hooks.send(relayed);
  }

  private onAgentEnd(event: Json): void {
    // A loop that threw leaves the streamed answer's message_start open (§8.1): it is over too.
    this.assistant = undefined;
    this.tools.clear();
    const prediction = this.retry.onAgentEnd(this.hooks.model());
    // Ended here already (pi looked idle without its end for 5 s): the daemon heard the end.
    if (!this.open) return;
    if (prediction.retrying) {
      // pi's RPC mode says agent_end first; the daemon hears it once the retry is over.
      this.continuation = prediction;
      this.stopPoll();
      if (prediction.kind === "retry") {
        const { attempt, maxAttempts, delayMs, errorMessage } = prediction;
        this.hooks.send({ type: "auto_retry_start", attempt, maxAttempts, delayMs, errorMessage });
        this.expectContinuation(delayMs + SILENT_END_MS, "pi did not retry");
      } else {
        this.hooks.send({ type: "auto_compaction_start", reason: "overflow" });
        // session_before_compact comes once pi has a model, a key and something to compact (AS 1824–1860).
        this.expectContinuation(SILENT_END_MS, "pi did not compact after the context overflow");
      }
      return;
    }
    this.close();
    this.hooks.send(relayedEvent(event) ?? { type: "agent_end" });
    if (prediction.gaveUp) {
      this.hooks.send({ type: "auto_retry_end", success: false, attempt: prediction.gaveUp.attempt, finalError: prediction.gaveUp.finalError });
    }
  }

  /**
   * `session_before_compact`: pi compacts. Mid-run that is trap 1, else maybe an overflow
   * recovery. True when it ended a run pi aborted for it.
   */
  onCompactionStart(): boolean {
    if (!this.open) return false;
    if (this.continuation?.kind === "overflow") {
      this.expectContinuation(OVERFLOW_COMPACTION_MS, "the compaction after the context overflow did not finish");
      return false;
    }
    this.endSilently("compaction");
    return true;
  }

  /** `session_compact`: the overflow compaction is done; pi continues 100 ms later (AS 1928–1939). */
  onCompactionEnd(): void {
    if (this.continuation?.kind !== "overflow") return;
    this.hooks.send({ type: "auto_compaction_end", aborted: false, willRetry: true });
    this.expectContinuation(SILENT_END_MS, "pi did not continue after the compaction");
  }

  /** `session_switch`: `/new` and `/resume` aborted the run without its end (trap 2). */
  onSessionSwitch(reason: "new" | "resume"): void {
    this.endSilently(reason);
    this.retry.reset();
  }

  /** `session_shutdown`: pi quits, and a run going on gets no `agent_end` (trap 17). */
  onShutdown(): void {
    this.endSilently("shutdown");
    this.stopPoll();
    this.stopContinuationTimer();
  }

  /** pi's `abort()` cancels a retry's back-off too (`AS` 1280–1284), telling only its own listeners. */
  onAbort(): void {
    if (this.continuation) this.endSilently("abort");
  }

  /** After an attach mid-run: what the daemon must hear to show it (the run, a retry pending). */
  resumeLines(): Json[] {
    if (!this.open) return [];
    const lines: Json[] = [{ type: "agent_start" }];
    const pending = this.continuation;
    if (pending?.kind === "retry") {
      lines.push({ type: "auto_retry_start", attempt: pending.attempt, maxAttempts: pending.maxAttempts, delayMs: pending.delayMs, errorMessage: pending.errorMessage });
    } else if (pending?.kind === "overflow") {
      lines.push({ type: "auto_compaction_start", reason: "overflow" });
    }
    return lines;
  }

  /** Ends an open run pi ended without telling extensions, as aborted. */
  endSilently(why: SilentEnd): void {
    if (!this.open) return;
    this.hooks.log(`ending the run pi ended without agent_end (${why})`);
    this.hooks.flush();
    this.hooks.endedSilently?.();
    const pending = this.continuation;
    if (pending) {
      this.close();
      this.retry.cancel();
      this.hooks.send({ type: "agent_end" });
      // What pi says when a retry's back-off or an overflow compaction is cut short (AS 2377–2391, 1863).
      if (pending.kind === "retry") this.hooks.send({ type: "auto_retry_end", success: false, attempt: pending.attempt, finalError: "Retry cancelled" });
      else this.hooks.send({ type: "auto_compaction_end", aborted: true, willRetry: false });
      return;
    }
    if (this.answered && !this.assistant && this.tools.size === 0) {
      // Its answer came whole: only pi's agent_end is missing, and nothing was aborted.
      this.close();
      this.hooks.send({ type: "agent_end" });
      return;
    }
    for (const [toolCallId, call] of this.tools) {
      const result = { content: [{ type: "text", text: ABORTED_TEXT }], details: {} };
      this.hooks.send({ type: "tool_execution_end", toolCallId, toolName: call.toolName, result, isError: true });
    }
    let message: Json;
    if (this.assistant) {
      message = { ...this.assistant, stopReason: "aborted", errorMessage: ABORTED_TEXT };
    } else {
      message = { role: "assistant", content: [], stopReason: "aborted", errorMessage: ABORTED_TEXT, timestamp: Date.now() };
      this.hooks.send({ type: "message_start", message });
    }
    this.hooks.send({ type: "message_end", message });
    this.hooks.send({ type: "turn_end", turnIndex: this.turnIndex, message, toolResults: [] });
    this.close();
    this.hooks.send({ type: "agent_end" });
  }

  /** Waits for pi's continuation; without it in time the run ends, as pi's give-up would say. */
  private expectContinuation(ms: number, why: string): void {
    this.stopContinuationTimer();
    this.hooks.continuationExpected?.(ms);
    this.continuationTimer = later(this.hooks.log, "continuation watch", ms, () => {
      this.continuationTimer = undefined;
      const pending = this.continuation;
      if (!pending || !this.open) return;
      this.hooks.log(`${why} within ${ms} ms: the run ends`);
      this.close();
      this.retry.cancel();
      this.hooks.send({ type: "agent_end" });
      if (pending.kind === "retry") this.hooks.send({ type: "auto_retry_end", success: false, attempt: pending.attempt, finalError: `${pending.errorMessage} (${why})` });
      else this.hooks.send({ type: "auto_compaction_end", aborted: false, willRetry: false, errorMessage: `Context overflow recovery failed: ${why}` });
    });
  }

  private close(): void {
    if (this.continuation) this.hooks.continuationOver?.();
    this.open = false;
    this.continuation = undefined;
    this.assistant = undefined;
    this.tools.clear();
    this.stopPoll();
    this.stopContinuationTimer();
  }

  /**
   * While a run is open: pi idle for SILENT_END_MS without agent_end means it ended silently,
   * unless the run's events are known to lag behind another extension's handler: pi looks idle
   * as soon as its loop is done, while the handlers still hold the rest of the run, agent_end
   * included (spec §9 quirks 2 and 3, §11 trap 5). That is known when the run's answer came
   * (only turn_end and agent_end are left), or when pi streamed on while nothing reached us.
   * Such a run then ends at its agent_end, or at the next run's start or a session event.
   */
  private startPoll(): void {
    this.stopPoll();
    this.idleSince = undefined;
    const poll = () => {
      this.pollTimer = undefined;
      if (!this.open || this.continuation) return;
      const idle = this.hooks.idle();
      // A quiet tool call or a model not answering yet is no lag; a streaming answer is never quiet for long.
      if (!idle && this.assistant && Date.now() - this.lastEventAt >= LAGGING_MS) this.lagging = true;
      if (!idle || this.answered || this.lagging) this.idleSince = undefined;
      else if (this.idleSince === undefined) this.idleSince = Date.now();
      else if (Date.now() - this.idleSince >= SILENT_IDLE_MS) return this.endSilently("idle");
      this.pollTimer = later(this.hooks.log, "run watch", RUN_POLL_MS, poll);
    };
    this.pollTimer = later(this.hooks.log, "run watch", RUN_POLL_MS, poll);
  }

  private stopPoll(): void {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    this.idleSince = undefined;
  }

  private stopContinuationTimer(): void {
    if (this.continuationTimer) clearTimeout(this.continuationTimer);
    this.continuationTimer = undefined;
  }
}

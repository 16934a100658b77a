/**
 * The daemon's commands to a terminal pi: pi's RPC commands (shared/specs/pi-rpc.md), carried
 * out through the extension API as far as it allows (docs/EXTENSION.md, "The registration
 * protocol").
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { describe, isObject, type Json, type Log } from "./callbacks.ts";
import type { Gatekeeper } from "./gates.ts";
import { COMPACTION_HOLD_MS, PROMPT_START_WATCH_MS, type OutgoingPrompt, type PromptSender } from "./prompts.ts";
import { chatSlash } from "./slash.ts";
import type { RunStop } from "./stop.ts";

const ABORT_IDLE_WAIT_MS = 5000;
/** The commands whose message pi's RPC expands (spec §11 trap 8). */
const SLASH_EXPANDED = new Set(["prompt", "steer", "follow_up"]);
const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** What the commands reach of the relay. */
export interface CommandHost {
  readonly pi: ExtensionAPI;
  readonly sender: PromptSender;
  readonly log: Log;
  context(): ExtensionContext | undefined;
  /** A line to the daemon (dropped while detached). */
  send(message: Json): void;
  /** The model, thinking level or name may have changed: the daemon hears of it. */
  sessionInfoChanged(): void;
  /** The gates, for a steer that must wait while one is pending (spec §11 trap 11). */
  readonly gatekeeper?: Gatekeeper;
  /** What a stop does besides ctx.abort() (gates, queued prompts, a prompt still starting). */
  readonly runStop?: RunStop;
  /** A stop went to pi: a retry pi was waiting to make is cancelled too, without an event (trap 4). */
  runAborted?(): void;
}

/**
 * A steer while a gate waits would make pi skip every call of the batch, the approved ones
 * included (spec §11 trap 11): it goes as a follow-up, and the response's data says so.
 */
const STEER_AS_FOLLOW_UP = {
  deliveredAs: "followUp",
  reason: "an approval is pending: a steer now would skip the calls already approved, so it was queued as a follow-up",
};

export class CommandError extends Error {}

/** A chat prompt whose checks a stop overtook: it is dropped, as the ones queued here are. */
const STOPPED_BEFORE_START = "the run was stopped before pi took this prompt";

/** The daemon's command names this extension carries out, each with its handler's name. */
const COMMANDS: Record<string, string> = {
  prompt: "prompt",
  steer: "steer",
  follow_up: "followUp",
  abort: "abort",
  compact: "compact",
  set_model: "setModel",
  set_thinking_level: "setThinkingLevel",
  set_session_name: "setSessionName",
  get_state: "getState",
  get_last_assistant_text: "getLastAssistantText",
  get_session_stats: "getSessionStats",
  new_session: "newSession",
};


/** Carries out the daemon's commands and answers each with pi's `response` line. */
export class PiCommands {
  private readonly host: CommandHost;
  /** A `compact` the daemon sent is running (get_state's isCompacting). */
  compacting = false;
  /** Stops so far: a prompt still in its checks when one comes is dropped (checkedUnlessStopped). */
  private stops = 0;
  /** Chat prompts in their checks now, not yet queued for pi. */
  private checking = 0;

  constructor(host: CommandHost) {
    this.host = host;
  }

  async run(command: Json): Promise<void> {
    const type = String(command.type);
    const respond = (success: boolean, data?: unknown, error?: string) => {
      const response: Json = { type: "response", id: command.id, command: type, success };
      if (data !== undefined) response.data = data;
      if (error !== undefined) response.error = error;
      this.host.send(response);
    };
    const handler = COMMANDS[type];
    if (!handler) {
      respond(false, undefined, `Unknown command: ${type} (the pi-relayd extension of a terminal session does not do it)`);
      return;
    }
    // A chat's `/skill:`, template or terminal command, before the prompt path (slash.ts).
    const slash = SLASH_EXPANDED.has(type) && typeof command.message === "string" ? chatSlash(this.host.pi, command.message, this.host.log) : undefined;
    if (slash && "refusal" in slash) return respond(false, undefined, slash.refusal);
    if (slash) command = { ...command, message: slash.text };
    try {
      const data = await (this as any)[handler](command);
      respond(true, data);
    } catch (error) {
      if (!(error instanceof CommandError)) this.host.log(`command ${type} failed: ${describe(error)}`);
      respond(false, undefined, describe(error));
    }
  }

  private get context(): ExtensionContext {
    const ctx = this.host.context();
    if (!ctx) throw new CommandError("pi's session is not ready yet");
    return ctx;
  }

  /** The user message's content: the text, then the images as pi's image blocks. */
  private promptContent(command: Json): OutgoingPrompt["content"] {
    if (typeof command.message !== "string") throw new CommandError(`${command.type} needs a message (a string)`);
    const images = Array.isArray(command.images) ? command.images.filter(isObject) : [];
    if (images.length === 0) return command.message;
    return [
      { type: "text", text: command.message },
      ...images.map((image: Json) => ({ type: "image", data: image.data, mimeType: image.mimeType })),
    ];
  }

  private async prompt(command: Json): Promise<Json | undefined> {
    const content = this.promptContent(command);
    const behavior = command.streamingBehavior;
    const busy = !this.context.isIdle() || this.host.sender.isBusy;
    if (busy && behavior !== "steer" && behavior !== "followUp") {
      // As pi's RPC mode answers a prompt while it streams.
      throw new CommandError(
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.",
      );
    }
    await this.checkedUnlessStopped();
    // deliverAs is ignored by an idle pi; it matters when pi got busy before the send.
    const gated = behavior === "steer" && this.gatePending;
    this.host.sender.enqueue({
      content,
      text: command.message,
      deliverAs: behavior === "steer" && !gated ? "steer" : "followUp",
      command: { id: command.id, type: "prompt" },
    });
    return gated ? STEER_AS_FOLLOW_UP : undefined;
  }

  private async steer(command: Json): Promise<Json | undefined> {
    const content = this.promptContent(command);
    await this.checkedUnlessStopped();
    const gated = this.gatePending;
    this.host.sender.enqueue({ content, text: command.message, deliverAs: gated ? "followUp" : "steer", command: { id: command.id, type: "steer" } });
    return gated ? STEER_AS_FOLLOW_UP : undefined;
  }

  private get gatePending(): boolean {
    return (this.host.gatekeeper?.pending ?? 0) > 0;
  }

  private async followUp(command: Json): Promise<undefined> {
    const content = this.promptContent(command);
    await this.checkedUnlessStopped();
    this.host.sender.enqueue({ content, text: command.message, deliverAs: "followUp", command: { id: command.id, type: "follow_up" } });
    return undefined;
  }

  /**
   * The checks below, then whether a stop came while they ran: the key lookup can take a while
   * (an OAuth refresh), and a prompt queued after the stop would run, since ctx.abort() does
   * not reach a prompt not yet started (spec §11 trap 10). The chat sent it before its stop.
   */
  private async checkedUnlessStopped(): Promise<void> {
    const stops = this.stops;
    this.checking++;
    try {
      await this.precheck();
    } finally {
      this.checking--;
    }
    if (this.stops !== stops) throw new CommandError(STOPPED_BEFORE_START);
  }

  /**
   * What pi's prompt() checks before a run, checked before a chat prompt is accepted: pi
   * reports these failures to no extension (spec §11 trap 6; `AgentSession.prompt`, AS 921–945:
   * no model, no key, an OAuth login that cannot be refreshed). getApiKey refreshes an expired
   * OAuth token as pi's own check does (`ModelRegistry.getApiKey`, async in pi 0.58).
   */
  private async precheck(): Promise<void> {
    const ctx = this.context;
    const model = ctx.model as any;
    if (!model) throw new CommandError("no model: pick one with /model in the terminal");
    const registry = ctx.modelRegistry as any;
    if (typeof registry?.getApiKey !== "function") return;
    let key: unknown;
    try {
      key = await registry.getApiKey(model);
    } catch (error) {
      this.host.log(`the API key lookup failed: ${describe(error)}`);
      return; // pi's own check decides then; the start watch reports what it finds
    }
    if (key) return;
    const provider = typeof model.provider === "string" ? model.provider : "the model's provider";
    let oauth = false;
    try {
      oauth = typeof registry.isUsingOAuth === "function" && registry.isUsingOAuth(model) === true;
    } catch {
      // Reported as a missing key then.
    }
    if (oauth) throw new CommandError(`the login for ${provider} has expired: run /login ${provider} in the terminal`);
    throw new CommandError(`no API key for ${provider}: run /login in the terminal`);
  }

  /**
   * pi's abort answers once the agent is idle; ctx.abort() cannot be awaited, so we poll. The
   * gates waiting, the prompts queued here and a prompt still starting are stopped too (RunStop).
   */
  private async abort(): Promise<Json | undefined> {
    const ctx = this.context;
    const overtaken = this.checking;
    this.stops++;
    const stopped = this.host.runStop ? this.host.runStop.stop(ctx) : (ctx.abort(), undefined);
    if (stopped) stopped.promptsDropped += overtaken;
    this.host.runAborted?.();
    const deadline = Date.now() + ABORT_IDLE_WAIT_MS;
    while (!ctx.isIdle() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return stopped;
  }

  private async compact(command: Json): Promise<unknown> {
    const ctx = this.context;
    const customInstructions = typeof command.customInstructions === "string" ? command.customInstructions : undefined;
    this.compacting = true;
    // pi is idle while it compacts: a chat prompt sent now would run unseen (spec §11 trap 7).
    // Held from here, so that none starts while the compact waits below.
    this.host.sender.hold("compact command", COMPACTION_HOLD_MS);
    // A chat prompt still in its pre-run: pi's compact() aborts the run first, but no abort
    // reaches a prompt before its agent_start (trap 10), so it would start during the compaction,
    // unseen, and its chat be told it never started. The compact waits for that run to start,
    // then aborts it as it aborts any run (trap 1): what the chat gets had the prompt started a
    // moment sooner, and what the terminal's /compact does mid-run. Waiting for the run's end
    // instead would hold the compact as long as the run takes.
    const deadline = Date.now() + COMPACTION_HOLD_MS + PROMPT_START_WATCH_MS;
    while (this.host.sender.starting && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    this.host.sender.hold("compact command", COMPACTION_HOLD_MS); // the limit counts from the compaction
    // pi aborts a running agent before it compacts, and a tool_call handler waiting for a person
    // gets no abort (spec §11 traps 1 and 12): a gate left waiting would hold the compaction, and
    // a call approved afterwards would still run. Denied as a stop denies them.
    const denied = this.host.gatekeeper?.cancelAll("the conversation is being compacted") ?? 0;
    if (denied > 0) this.host.log(`denied ${denied} waiting approval(s) for the compaction`);
    return new Promise((resolve, reject) => {
      const done = () => {
        this.compacting = false;
        this.host.sender.release("compact command");
      };
      try {
        ctx.compact({
          customInstructions,
          onComplete: (result: unknown) => {
            done();
            resolve(result);
          },
          onError: (error: unknown) => {
            done();
            reject(new CommandError(describe(error)));
          },
        } as any);
      } catch (error) {
        done();
        reject(new CommandError(describe(error)));
      }
    });
  }

  private async setModel(command: Json): Promise<unknown> {
    const { provider, modelId } = command;
    if (typeof provider !== "string" || typeof modelId !== "string") {
      throw new CommandError("set_model needs provider and modelId");
    }
    const model = this.context.modelRegistry.find(provider, modelId);
    if (!model) throw new CommandError(`Model not found: ${provider}/${modelId}`);
    const switched = await this.host.pi.setModel(model);
    if (!switched) throw new CommandError(`No API key for ${provider}/${modelId}`);
    this.host.sessionInfoChanged();
    return model;
  }

  private setThinkingLevel(command: Json): undefined {
    if (!THINKING_LEVELS.includes(command.level)) {
      throw new CommandError(`Invalid thinking level: ${command.level} (one of ${THINKING_LEVELS.join(", ")})`);
    }
    this.host.pi.setThinkingLevel(command.level);
    this.host.sessionInfoChanged();
    return undefined;
  }

  private setSessionName(command: Json): undefined {
    const name = typeof command.name === "string" ? command.name.trim() : "";
    if (!name) throw new CommandError("Session name cannot be empty");
    this.host.pi.setSessionName(name);
    this.host.sessionInfoChanged();
    return undefined;
  }

  private newSession(): never {
    throw new CommandError(
      "A terminal session cannot start a new conversation from outside: type /new in pi's terminal.",
    );
  }

  /** pi's get_state, as far as an extension can see it (steeringMode and friends it cannot). */
  private getState(): Json {
    const ctx = this.context;
    const manager = ctx.sessionManager;
    const state: Json = {
      model: ctx.model,
      thinkingLevel: this.host.pi.getThinkingLevel(),
      isStreaming: !ctx.isIdle(),
      isCompacting: this.compacting,
      sessionFile: manager.getSessionFile(),
      sessionId: manager.getSessionId(),
      sessionName: this.host.pi.getSessionName(),
      messageCount: this.contextMessageCount(),
      pendingMessageCount: this.host.sender.queued + (ctx.hasPendingMessages() ? 1 : 0),
    };
    return state;
  }

  private getLastAssistantText(): Json {
    const messages = this.branchMessages();
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index];
      if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
      const text = message.content
        .filter((block: Json) => block?.type === "text" && typeof block.text === "string")
        .map((block: Json) => block.text)
        .join("");
      if (text) return { text };
    }
    return {}; // pi leaves `text` out when there is none
  }

  private getSessionStats(): Json {
    const manager = this.context.sessionManager;
    const messages = this.branchMessages();
    const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    let cost = 0;
    let toolCalls = 0;
    for (const message of messages) {
      if (message.role !== "assistant") continue;
      if (Array.isArray(message.content)) toolCalls += message.content.filter((b: Json) => b?.type === "toolCall").length;
      const usage = isObject(message.usage) ? message.usage : {};
      for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
        tokens[key] += Number(usage[key]) || 0;
      }
      cost += Number(usage.cost?.total) || 0;
    }
    tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
    const count = (role: string) => messages.filter((m) => m.role === role).length;
    return {
      sessionFile: manager.getSessionFile(),
      sessionId: manager.getSessionId(),
      userMessages: count("user"),
      assistantMessages: count("assistant"),
      toolCalls,
      toolResults: count("toolResult"),
      totalMessages: messages.length,
      tokens,
      cost,
    };
  }

  /**
   * RPC's `messageCount` is `session.messages.length`: the agent's context (pi-rpc.md §2), which
   * pi builds from the branch as `buildSessionContext` does (core/session-manager.ts 308–415):
   * after the latest compaction that is its summary, the messages kept from `firstKeptEntryId`,
   * and those after it; `message`, `custom_message` and `branch_summary` entries count.
   */
  private contextMessageCount(): number {
    const manager = this.context.sessionManager as any;
    const path: unknown[] = typeof manager.getBranch === "function" ? manager.getBranch() : manager.getEntries();
    const entries = path.filter(isObject);
    const counts = (entry: Json) =>
      entry.type === "message" || entry.type === "custom_message" || (entry.type === "branch_summary" && Boolean(entry.summary));
    let compactionIndex = -1;
    for (let index = entries.length - 1; index >= 0; index--) {
      if (entries[index].type === "compaction") {
        compactionIndex = index;
        break;
      }
    }
    if (compactionIndex < 0) return entries.filter(counts).length;
    const compaction = entries[compactionIndex];
    let count = 1; // the summary
    let kept = false;
    for (let index = 0; index < compactionIndex; index++) {
      if (entries[index].id === compaction.firstKeptEntryId) kept = true;
      if (kept && counts(entries[index])) count++;
    }
    for (let index = compactionIndex + 1; index < entries.length; index++) if (counts(entries[index])) count++;
    return count;
  }

  /** The messages on the session's current branch. */
  private branchMessages(): Json[] {
    const manager = this.context.sessionManager as any;
    const entries: unknown[] = typeof manager.getBranch === "function" ? manager.getBranch() : manager.getEntries();
    return entries
      .filter((entry): entry is Json => isObject(entry) && entry.type === "message" && isObject(entry.message))
      .map((entry) => entry.message);
  }

}

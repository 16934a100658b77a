/**
 * Stopping a terminal session's run from outside (a chat's `/stop`, `pi-relayd abort`): pi's
 * `ctx.abort()` alone does not always stop it.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { later, type Log, type Timer } from "./callbacks.ts";
import type { Gatekeeper } from "./gates.ts";

/**
 * How long a prompt may stay in pi's pre-run phase (key lookup, a pre-prompt compaction,
 * before_agent_start: spec §11 trap 10) and still be taken for the one a stop meant; a prompt
 * that never starts (it failed, trap 6) must not leave a stop armed for a later one.
 */
const PRE_RUN_LIMIT_MS = 30_000;

/**
 * How long a stop stays armed for a prompt whose pre-run phase is compacting: the compaction's
 * own LLM call can take minutes, and the prompt starts after it (spec §11 traps 5 and 10).
 */
const COMPACTING_LIMIT_MS = 10 * 60_000;

/**
 * After an overflow recovery's compaction, how long a stop stays armed for the run pi continues
 * on its own: 100 ms later (AgentSession 1928–1939, spec §11 trap 4).
 */
const CONTINUATION_LIMIT_MS = 5000;

export interface RunStopLimits {
  preRunMs: number;
  compactingMs: number;
}

/**
 * What a stop does besides pi's `ctx.abort()`: gates waiting for a person are denied at once
 * (their `tool_call` handlers get no abort signal, trap 12), the chat prompts still queued here
 * are dropped, and a prompt in its pre-run phase, which `ctx.abort()` cannot reach (trap 10),
 * is aborted at its `agent_start`, before its first model call and so before any tool call.
 */
export class RunStop {
  private readonly gatekeeper: Gatekeeper;
  private readonly dropQueuedPrompts: () => number;
  private readonly log: Log;
  /** When a prompt entered pi's pre-run phase (its `input` event while pi was idle). */
  private preRunSince: number | undefined;
  /** A stop that came during a pre-run: the run is aborted when it starts. */
  private armed: Timer | undefined;
  /**
   * Between `session_before_compact` and `session_compact` (or the next run or prompt): whether
   * the compaction began in a prompt's pre-run phase, within its limit (a prompt that never
   * started, trap 6, leaves `preRunSince` behind; a later compaction is not its).
   */
  private compacting = false;
  /**
   * The armed stop is for the run pi continues after an overflow recovery's compaction, which
   * pi's abort does not cancel (AgentSession 1280–1284; spec §11 trap 4), rather than for a prompt.
   */
  private armedForContinuation = false;
  private readonly limits: RunStopLimits;
  /** Whether the run awaits pi's continuation after a context overflow (set by the relay). */
  overflowRecovery: () => boolean = () => false;

  constructor(
    gatekeeper: Gatekeeper,
    dropQueuedPrompts: () => number,
    log: Log,
    limits: RunStopLimits = { preRunMs: PRE_RUN_LIMIT_MS, compactingMs: COMPACTING_LIMIT_MS },
  ) {
    this.gatekeeper = gatekeeper;
    this.dropQueuedPrompts = dropQueuedPrompts;
    this.log = log;
    this.limits = limits;
  }

  /** pi's `input` event: with pi idle, a prompt now goes through its pre-run phase. */
  onInput(idle: boolean): void {
    // A prompt after the stop is the user's new word, not the stopped run going on.
    if (this.armedForContinuation) this.disarm();
    this.compacting = false;
    if (idle) this.preRunSince = Date.now();
  }

  /**
   * pi compacts (`session_before_compact`) or has compacted (`session_compact`). A prompt whose
   * pre-run phase compacts is still the one a stop meant, however long the compaction takes;
   * once it is done, the prompt's own pre-run time starts again.
   */
  onCompaction(active: boolean): void {
    if (!active && this.armedForContinuation) {
      this.arm(CONTINUATION_LIMIT_MS);
      this.armedForContinuation = true;
    }
    if (active) {
      this.compacting = this.preRunSince !== undefined && Date.now() - this.preRunSince < this.limits.preRunMs;
      return;
    }
    const prompts = this.compacting;
    this.compacting = false;
    if (!prompts) return;
    this.preRunSince = Date.now();
    if (this.armed) this.arm(this.limits.preRunMs);
  }

  /**
   * pi's `agent_start`: a stop that came before it ends this run now. Returns true for the run
   * pi continued after an overflow recovery, which the stop already ended for the chats.
   */
  onAgentStart(ctx: ExtensionContext | undefined): boolean {
    this.preRunSince = undefined;
    this.compacting = false;
    // A run a stop is armed for is still the stopped one: its calls stay refused.
    if (!this.armed) {
      this.gatekeeper.runStarted();
      return false;
    }
    const continuation = this.armedForContinuation;
    this.disarm();
    this.log(
      continuation
        ? "aborting the run pi continued after the overflow compaction a stop came during"
        : "aborting the run a stop came for while its prompt was still starting",
    );
    ctx?.abort();
    return continuation;
  }

  onAgentEnd(): void {
    this.preRunSince = undefined;
  }

  /** The daemon's `abort`. Returns what it did, for the response. */
  stop(ctx: ExtensionContext): { gatesDenied: number; promptsDropped: number; abortAtStart: boolean } {
    const gatesDenied = this.gatekeeper.cancelAll("the run was stopped");
    const promptsDropped = this.dropQueuedPrompts();
    if (promptsDropped > 0) this.log(`dropped ${promptsDropped} queued chat prompt(s) at a stop`);
    const preRun =
      ctx.isIdle() && this.preRunSince !== undefined && (this.compacting || Date.now() - this.preRunSince < this.limits.preRunMs);
    const continuation = !preRun && this.overflowRecovery();
    if (preRun) this.arm(this.compacting ? this.limits.compactingMs : this.limits.preRunMs);
    if (continuation) {
      this.arm(this.limits.compactingMs);
      this.armedForContinuation = true;
    }
    ctx.abort();
    return { gatesDenied, promptsDropped, abortAtStart: preRun || continuation };
  }

  /**
   * `/new`, `/resume` or `/fork`: an armed stop is kept only while a prompt is still starting
   * (the switch does not abort it, trap 2); otherwise it is for nothing in the new session.
   */
  sessionSwitched(promptStarting: boolean): void {
    if (promptStarting) return;
    this.disarm();
    this.preRunSince = undefined;
    this.compacting = false;
  }

  private arm(ms: number): void {
    this.disarm();
    this.armed = later(this.log, "pre-run stop", ms, () => {
      this.armed = undefined;
    });
  }

  private disarm(): void {
    if (this.armed) clearTimeout(this.armed);
    this.armed = undefined;
    this.armedForContinuation = false;
  }
}

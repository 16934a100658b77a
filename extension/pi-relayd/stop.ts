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

  constructor(gatekeeper: Gatekeeper, dropQueuedPrompts: () => number, log: Log) {
    this.gatekeeper = gatekeeper;
    this.dropQueuedPrompts = dropQueuedPrompts;
    this.log = log;
  }

  /** pi's `input` event: with pi idle, a prompt now goes through its pre-run phase. */
  onInput(idle: boolean): void {
    if (idle) this.preRunSince = Date.now();
  }

  /** pi's `agent_start`: a stop that came before it ends this run now. */
  onAgentStart(ctx: ExtensionContext | undefined): void {
    this.preRunSince = undefined;
    if (!this.armed) return;
    this.disarm();
    this.log("aborting the run a stop came for while its prompt was still starting");
    ctx?.abort();
  }

  onAgentEnd(): void {
    this.preRunSince = undefined;
  }

  /** The daemon's `abort`. Returns what it did, for the response. */
  stop(ctx: ExtensionContext): { gatesDenied: number; promptsDropped: number; abortAtStart: boolean } {
    const gatesDenied = this.gatekeeper.cancelAll("the run was stopped");
    const promptsDropped = this.dropQueuedPrompts();
    if (promptsDropped > 0) this.log(`dropped ${promptsDropped} queued chat prompt(s) at a stop`);
    const preRun = ctx.isIdle() && this.preRunSince !== undefined && Date.now() - this.preRunSince < PRE_RUN_LIMIT_MS;
    if (preRun) {
      this.disarm();
      this.armed = later(this.log, "pre-run stop", PRE_RUN_LIMIT_MS, () => {
        this.armed = undefined;
      });
    }
    ctx.abort();
    return { gatesDenied, promptsDropped, abortAtStart: preRun };
  }

  private disarm(): void {
    if (this.armed) clearTimeout(this.armed);
    this.armed = undefined;
  }

  clear(): void {
    this.disarm();
    this.preRunSince = undefined;
  }
}

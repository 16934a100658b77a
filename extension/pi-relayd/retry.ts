/**
 * What pi does after a run's `agent_end`, told in advance: pi decides on an auto-retry or an
 * overflow compaction in its own agent_end processing, after the extensions' handlers ran, and
 * tells only its own listeners (`auto_retry_*`, `auto_compaction_*` are no extension events:
 * shared/specs/pi-extension-api.md §11 trap 4). So the extension applies pi's own rules to the
 * same messages and settings, and says what pi's RPC mode would say.
 *
 * Read at badlogic/pi-mono 83378aad (pi 0.58.3); `AS` is packages/coding-agent/src/core/agent-session.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isObject, type Json } from "./callbacks.ts";

/** pi's retry settings (`core/settings-manager.ts` 651–671: `retry.enabled` true, 3 retries, 2000 ms). */
export interface RetrySettings {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
}

/** What pi will do after this `agent_end`. */
export type RetryPrediction =
  /** Nothing: the run is over. `gaveUp` when retries ran out (pi's `auto_retry_end` success:false). */
  | { retrying: false; gaveUp?: { attempt: number; finalError: string } }
  /** An auto-retry after `delayMs` (pi's `auto_retry_start`). */
  | { retrying: true; kind: "retry"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  /** Context overflow: a compaction, then a continuation 100 ms after it (`auto_compaction_start` reason overflow). */
  | { retrying: true; kind: "overflow"; delayMs: undefined; errorMessage: string };

/**
 * `_isRetryableError`'s pattern (`AS` 2311–2323): overloaded, rate limits, 5xx, connection
 * errors, "terminated", "retry delay".
 */
const RETRYABLE =
  /overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|upstream.?connect|reset before headers|terminated|retry delay/i;

/** `OVERFLOW_PATTERNS` of packages/ai/src/utils/overflow.ts 27–45. */
const OVERFLOW_PATTERNS = [
  /prompt is too long/i,
  /input is too long for requested model/i,
  /exceeds the context window/i,
  /input token count.*exceeds the maximum/i,
  /maximum prompt length is \d+/i,
  /reduce the length of the messages/i,
  /maximum context length is \d+ tokens/i,
  /exceeds the limit of \d+/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /context window exceeds limit/i,
  /exceeded model token limit/i,
  /too large for model with \d+ maximum context length/i,
  /model_context_window_exceeded/i,
  /context[_ ]length[_ ]exceeded/i,
  /too many tokens/i,
  /token limit exceeded/i,
];

/** pi-ai's `isContextOverflow` (overflow.ts 92–116): an overflow error, or a silent one (usage over the window). */
export function isContextOverflow(message: Json, contextWindow: number): boolean {
  const error = typeof message.errorMessage === "string" ? message.errorMessage : "";
  if (message.stopReason === "error" && error) {
    if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(error))) return true;
    if (/^4(00|13)\s*(status code)?\s*\(no body\)/i.test(error)) return true; // Cerebras
  }
  if (contextWindow && message.stopReason === "stop") {
    const usage = isObject(message.usage) ? message.usage : {};
    if ((Number(usage.input) || 0) + (Number(usage.cacheRead) || 0) > contextWindow) return true;
  }
  return false;
}

/** `_isRetryableError` (`AS` 2311–2323): an error, not an overflow, whose text matches. */
export function isRetryableError(message: Json, contextWindow: number): boolean {
  if (message.stopReason !== "error" || typeof message.errorMessage !== "string" || !message.errorMessage) return false;
  if (isContextOverflow(message, contextWindow)) return false;
  return RETRYABLE.test(message.errorMessage);
}

/**
 * pi's agent folder (`config.ts` 187–195: `PI_CODING_AGENT_DIR`, `~` expanded, else
 * `~/.pi/agent`) and the project's `.pi` folder (`CONFIG_DIR_NAME`).
 */
function settingsFiles(cwd: string): string[] {
  const env = process.env.PI_CODING_AGENT_DIR;
  let agentDir = path.join(os.homedir(), ".pi", "agent");
  if (env) agentDir = env === "~" ? os.homedir() : env.startsWith("~/") ? os.homedir() + env.slice(1) : env;
  return [path.join(agentDir, "settings.json"), path.join(cwd, ".pi", "settings.json")];
}

function readJson(file: string): Json {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8"));
    return isObject(parsed) ? parsed : {};
  } catch {
    return {}; // pi takes a missing or broken file for no settings
  }
}

/**
 * The global settings.json, then the project's over it, one level deep (`deepMergeSettings`,
 * settings-manager.ts 100–130), with pi's defaults.
 */
export function readPiSettings(cwd: string): { retry: RetrySettings; compactionEnabled: boolean } {
  const [global, project] = settingsFiles(cwd).map(readJson);
  const section = (name: string): Json => ({ ...(isObject(global[name]) ? global[name] : {}), ...(isObject(project[name]) ? project[name] : {}) });
  const retry = section("retry");
  const compaction = section("compaction");
  const number = (value: unknown, fallback: number) => (typeof value === "number" && Number.isFinite(value) ? value : fallback);
  return {
    retry: {
      enabled: typeof retry.enabled === "boolean" ? retry.enabled : true,
      maxRetries: number(retry.maxRetries, 3),
      baseDelayMs: number(retry.baseDelayMs, 2000),
    },
    compactionEnabled: typeof compaction.enabled === "boolean" ? compaction.enabled : true,
  };
}

/** The model pi compares against: `ctx.model` (its provider, id and context window). */
export interface ModelInfo {
  provider?: string;
  id?: string;
  contextWindow?: number;
}

/**
 * Follows pi's retry bookkeeping event by event, so that at each `agent_end` it knows what pi
 * will do next. For the prompts engineer: `isPending` while a predicted retry or overflow
 * continuation has not started yet (chat prompts wait then: pi's `isIdle()` is true in the gap,
 * trap 7), `pendingDelayMs` for how long at least.
 */
export class RetryWatch {
  /** pi's `_retryAttempt`: counts failed attempts; back to 0 after an answer that is no error. */
  private attempt = 0;
  /** pi's `_overflowRecoveryAttempted`: one compact-and-retry per prompt. */
  private overflowTried = false;
  /** pi's `_lastAssistantMessage`: the last assistant `message_end` of the run. */
  private lastAssistant: Json | undefined;
  private pending: RetryPrediction | undefined;
  private readonly settings: () => { retry: RetrySettings; compactionEnabled: boolean };

  constructor(settings: () => { retry: RetrySettings; compactionEnabled: boolean }) {
    this.settings = settings;
  }

  /** A predicted continuation has not started yet. */
  get isPending(): boolean {
    return this.pending !== undefined;
  }

  get prediction(): RetryPrediction | undefined {
    return this.pending;
  }

  /** The back-off before the pending retry (undefined for an overflow compaction: its length is the compaction's). */
  get pendingDelayMs(): number | undefined {
    return this.pending?.retrying ? this.pending.delayMs : undefined;
  }

  /** The retry attempt pi is on (0: none). */
  get currentAttempt(): number {
    return this.attempt;
  }

  /** `message_start` of a user message: a new prompt may overflow-recover again (`AS` 433). */
  onUserMessage(): void {
    this.overflowTried = false;
  }

  /**
   * `message_end` of an assistant message (`AS` 478–495). Returns the attempt that succeeded
   * when this ends a retry (pi's `auto_retry_end` success:true), else undefined.
   */
  onAssistantMessageEnd(message: Json): number | undefined {
    this.lastAssistant = message;
    if (message.stopReason === "error") return undefined;
    this.overflowTried = false;
    if (this.attempt === 0) return undefined;
    const succeeded = this.attempt;
    this.attempt = 0;
    return succeeded;
  }

  /** `agent_start`: a predicted continuation began. */
  onAgentStart(): void {
    this.pending = undefined;
  }

  /**
   * `agent_end`: what pi decides next (`AS` 499–510: a retryable error first, then the
   * overflow check of `_checkCompaction`, 1742–1790).
   */
  onAgentEnd(model: ModelInfo | undefined): RetryPrediction {
    const message = this.lastAssistant;
    this.lastAssistant = undefined;
    this.pending = undefined;
    if (!message) return { retrying: false };
    const settings = this.settings();
    const contextWindow = Number(model?.contextWindow) || 0;
    let gaveUp: { attempt: number; finalError: string } | undefined;
    if (isRetryableError(message, contextWindow)) {
      // _handleRetryableError, AS 2329–2400.
      if (settings.retry.enabled) {
        this.attempt++;
        if (this.attempt <= settings.retry.maxRetries) {
          const prediction: RetryPrediction = {
            retrying: true,
            kind: "retry",
            attempt: this.attempt,
            maxAttempts: settings.retry.maxRetries,
            delayMs: settings.retry.baseDelayMs * 2 ** (this.attempt - 1),
            errorMessage: message.errorMessage || "Unknown error",
          };
          this.pending = prediction;
          return prediction;
        }
        gaveUp = { attempt: this.attempt - 1, finalError: message.errorMessage };
        this.attempt = 0;
      }
    }
    // _checkCompaction's overflow case (AS 1742–1790): compaction on, not aborted, same model.
    const sameModel = model !== undefined && message.provider === model.provider && message.model === model.id;
    if (settings.compactionEnabled && message.stopReason !== "aborted" && sameModel && isContextOverflow(message, contextWindow)) {
      if (!this.overflowTried) {
        this.overflowTried = true;
        const prediction: RetryPrediction = {
          retrying: true,
          kind: "overflow",
          delayMs: undefined,
          errorMessage: typeof message.errorMessage === "string" ? message.errorMessage : "context overflow",
        };
        this.pending = prediction;
        return prediction;
      }
    }
    return gaveUp ? { retrying: false, gaveUp } : { retrying: false };
  }

  /** The predicted continuation will not come (it was cancelled, or never started). */
  cancel(): void {
    this.pending = undefined;
    this.attempt = 0;
  }

  /** A session switch: pi's new session starts its bookkeeping afresh. */
  reset(): void {
    this.cancel();
    this.overflowTried = false;
    this.lastAssistant = undefined;
  }
}

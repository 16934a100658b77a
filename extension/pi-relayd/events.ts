/** Events out, in pi's RPC shapes. */
import { isObject, later, type Json, type Log, type Timer } from "./callbacks.ts";

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
 * The event as pi's RPC mode would print it, with docs/EXTENSION.md's two savings: a
 * message_update keeps only its assistantMessageEvent's type, contentIndex and delta (pi
 * repeats the whole answer in `message` and `partial` on every token), and agent_end drops
 * `messages`. Undefined for events the daemon does not take.
 */
export function relayedEvent(event: Json): Json | undefined {
  switch (event.type) {
    case "agent_start":
    case "agent_end":
      return { type: event.type };
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

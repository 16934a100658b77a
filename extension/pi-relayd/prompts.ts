/** Prompts in from the chats, handed to pi one at a time. */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { describe, later, type Json, type Log, type Timer } from "./callbacks.ts";

/** How long a prompt sent while idle may take to start its run before the next one goes. */
const PROMPT_START_TIMEOUT_MS = 10_000;
/** How long a prompt queued into a busy pi may take to pass pi's `input` stage. */
const PROMPT_QUEUED_TIMEOUT_MS = 2000;

export interface OutgoingPrompt {
  content: string | Json[];
  text: string;
  deliverAs: "steer" | "followUp";
}

/**
 * Hands the daemon's prompts to pi.sendUserMessage one at a time (pi-extension-api §9, trap 6):
 * two sends while pi is idle both pass pi's busy check, and the second fails with "Agent is
 * already processing a prompt" even with deliverAs. So after a send into an idle pi the next
 * waits for agent_start (pi is then streaming and queues it as steer or follow-up), and after a
 * send into a busy pi for that text's `input` event; each wait has a timeout, for a prompt that
 * another extension swallows.
 */
export class PromptSender {
  private readonly queue: OutgoingPrompt[] = [];
  private waiting: { until: "agent_start" | "input"; text: string; timer: Timer } | undefined;
  private readonly pi: ExtensionAPI;
  private readonly isIdle: () => boolean;
  private readonly log: Log;

  constructor(pi: ExtensionAPI, isIdle: () => boolean, log: Log) {
    this.pi = pi;
    this.isIdle = isIdle;
    this.log = log;
  }

  /** Prompts not yet handed to pi. */
  get queued(): number {
    return this.queue.length;
  }

  get isBusy(): boolean {
    return this.waiting !== undefined || this.queue.length > 0;
  }

  enqueue(prompt: OutgoingPrompt): void {
    this.queue.push(prompt);
    this.pump();
  }

  onAgentStart(): void {
    if (this.waiting) this.release();
  }

  onExtensionInput(text: string): void {
    if (this.waiting?.until === "input" && this.waiting.text === text) this.release();
  }

  /** The session changed: what was meant for the old one is dropped. */
  clear(): void {
    if (this.queue.length > 0) this.log(`dropped ${this.queue.length} chat prompt(s) at a session switch`);
    this.queue.length = 0;
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = undefined;
  }

  private release(): void {
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = undefined;
    this.pump();
  }

  private pump(): void {
    while (!this.waiting && this.queue.length > 0) {
      const next = this.queue.shift()!;
      const idle = this.isIdle();
      const until = idle ? "agent_start" : "input";
      const timeout = idle ? PROMPT_START_TIMEOUT_MS : PROMPT_QUEUED_TIMEOUT_MS;
      // Set before sending: pi may run our own `input` handler before sendUserMessage returns.
      this.waiting = {
        until,
        text: next.text,
        timer: later(this.log, "prompt wait", timeout, () => {
          this.log(`no ${until} for a chat prompt within ${timeout} ms; sending the next`);
          this.release();
        }),
      };
      try {
        this.pi.sendUserMessage(next.content as any, { deliverAs: next.deliverAs });
      } catch (error) {
        this.log(`sendUserMessage failed: ${describe(error)}`);
        clearTimeout(this.waiting.timer);
        this.waiting = undefined;
      }
    }
  }
}

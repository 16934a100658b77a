/** Questions: the ask_user tool, asked in the terminal and the chats at once. */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { randomUUID } from "node:crypto";
import { isObject, later, safely, type Json, type Log, type Timer } from "./callbacks.ts";
import type { DaemonLink } from "./link.ts";

export const ASK_USER_PARAMETERS = {
  type: "object",
  properties: {
    question: { type: "string", description: "The question, as the user should read it." },
    options: {
      type: "array",
      items: { type: "string" },
      description: "Answers to choose from. Leave out for a free-text answer.",
    },
    multiline: { type: "boolean", description: "True when the answer needs several lines of text." },
  },
  required: ["question"],
};

type ChatReply = { value: string } | { cancelled: true; why?: string };

/**
 * How long no chat may watch (or the daemon be away) before a multi-line question waiting in the
 * chats opens the terminal's editor: longer than a daemon restart, whose re-attach asks it again.
 */
export const CHATS_GONE_MS = 10_000;

interface OpenQuestion {
  request: Json;
  reply: (answer: ChatReply) => void;
}

interface Answer {
  text: string;
  by: "terminal" | "chat";
}

/** Resolves when `signal` aborts (never, without one); `dispose` drops the listener. */
function whenAborted(signal: AbortSignal | undefined): { promise: Promise<void>; dispose: () => void } {
  if (!signal) return { promise: new Promise<void>(() => {}), dispose: () => {} };
  let listener: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    listener = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", listener, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", listener) };
}

/**
 * The agent's questions, asked in the terminal and in the chats at once; the first answer
 * wins. pi shows one terminal dialog at a time (a second one orphans the first), so questions
 * are asked one after another.
 */
export class Questions {
  private readonly open = new Map<string, OpenQuestion>();
  /** Another extension's questions shown to the chats, by tool call id (onForeignEvent). */
  private readonly foreign = new Map<string, Json>();
  private chain: Promise<unknown> = Promise.resolve();
  private readonly link: () => DaemonLink | undefined;
  /** Whether a chat watches the session now (the daemon's relay_status says). */
  private readonly watched: () => boolean;
  /** Multi-line questions waiting in the chats alone, each told when no chat watches any more. */
  private readonly chatsGone = new Set<() => void>();
  private goneTimer: Timer | undefined;
  private readonly log: Log;

  constructor(link: () => DaemonLink | undefined, watched: () => boolean, log: Log) {
    this.link = link;
    this.watched = watched;
    this.log = log;
  }

  /**
   * The chats watching changed (relay_status, a detach or an attach). Once none has watched for
   * CHATS_GONE_MS, the multi-line questions waiting in the chats open the terminal's editor:
   * nobody would see them where they are.
   */
  watchChanged(): void {
    const gone = !this.link()?.isAttached || !this.watched();
    if (!gone) {
      clearTimeout(this.goneTimer);
      this.goneTimer = undefined;
      return;
    }
    if (this.goneTimer || this.chatsGone.size === 0) return;
    this.goneTimer = later(this.log, "no chat watching", CHATS_GONE_MS, () => {
      this.goneTimer = undefined;
      if (this.link()?.isAttached && this.watched()) return;
      for (const fallBack of [...this.chatsGone]) safely(this.log, "a multi-line question to the terminal", fallBack);
    });
  }

  ask(params: Json, signal: AbortSignal | undefined, ctx: ExtensionContext): Promise<Answer> {
    const run = this.chain.then(
      () => this.askNow(params, signal, ctx),
      () => this.askNow(params, signal, ctx),
    );
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** The daemon's extension_ui_response: the chats answered or cancelled. */
  onResponse(message: Json): void {
    const question = this.open.get(String(message.id));
    if (!question) return; // answered already, or not ours
    this.open.delete(String(message.id));
    if (message.cancelled === true || typeof message.value !== "string") question.reply({ cancelled: true });
    else question.reply({ value: message.value });
  }

  /** After a re-attach the daemon no longer holds our open questions: ask them again. */
  resend(): void {
    for (const question of this.open.values()) this.link()?.send(question.request);
    for (const request of this.foreign.values()) this.link()?.send(request);
  }

  /**
   * Another extension's `ask_user` (pi-config's: `{question, context?, options?}`, options as
   * strings or `{label}`) asks with its own dialog, which no extension can answer or close
   * (spec §4.1). What the API allows: its tool call is seen (`tool_execution_start` carries the
   * args, `tool_execution_end` comes once the terminal answered), so the chats are shown the
   * question with `terminalOnly` (no answers there, "answer it in the terminal") and its card is
   * closed `by: "terminal"` when it ends (`by: "abort"` when the call failed, an abort included).
   * A run that ends without the call's end closes what is left: at its agent_end, or where pi
   * ends it without one (spec §11 traps 1, 2, 17) and the relay ends it (`closeForeign`).
   */
  onForeignEvent(event: Json): void {
    const callID = String(event.toolCallId ?? "");
    if (event.type === "tool_execution_start" && event.toolName === "ask_user") {
      const args = isObject(event.args) ? event.args : {};
      const title = typeof args.question === "string" ? args.question.trim() : "";
      if (!title) return;
      const options = (Array.isArray(args.options) ? args.options : [])
        .map((option: any) => (typeof option === "string" ? option : typeof option?.label === "string" ? option.label : undefined))
        .filter((option: unknown): option is string => typeof option === "string" && option !== "");
      const request: Json = {
        type: "extension_ui_request",
        id: `terminal-${callID}`,
        method: options.length > 0 ? "select" : "input",
        title,
        terminalOnly: true,
      };
      if (options.length > 0) request.options = options;
      if (typeof args.context === "string" && args.context.trim()) request.message = args.context.trim();
      this.foreign.set(callID, request);
      this.link()?.send(request);
    } else if (event.type === "tool_execution_end" && this.foreign.has(callID)) {
      const request = this.foreign.get(callID)!;
      this.foreign.delete(callID);
      this.link()?.send({ type: "extension_ui_closed", id: request.id, by: event.isError === true ? "abort" : "terminal" });
    } else if (event.type === "agent_end") {
      this.closeForeign();
    }
  }

  /** The run is over, with or without its agent_end: another extension's questions left open went with it. */
  closeForeign(): void {
    for (const request of this.foreign.values()) this.link()?.send({ type: "extension_ui_closed", id: request.id, by: "abort" });
    this.foreign.clear();
  }

  private async askNow(params: Json, signal: AbortSignal | undefined, ctx: ExtensionContext): Promise<Answer> {
    const title = typeof params.question === "string" ? params.question.trim() : "";
    if (!title) throw new Error("ask_user needs a question.");
    const options = Array.isArray(params.options) ? params.options.filter((o: unknown) => typeof o === "string") : [];
    const multiline = params.multiline === true;
    const method = multiline ? "editor" : options.length > 0 ? "select" : "input";
    if (signal?.aborted) throw new Error("The question was not asked: the run was aborted.");
    if (!this.link()?.isAttached) return this.askInTerminal(ctx, method, title, options, signal);
    // pi's editor cannot be closed from outside, so a multi-line question goes to the chats
    // alone; with no chat watching, nobody would see it there: the terminal's editor asks it.
    if (multiline && !this.watched()) return this.askInTerminal(ctx, method, title, options, signal);

    const id = randomUUID();
    const request: Json = { type: "extension_ui_request", id, method, title };
    if (method === "select") request.options = options;
    const chat = new Promise<ChatReply>((resolve) => this.open.set(id, { request, reply: resolve }));
    this.link()?.send(request);

    const aborted = whenAborted(signal);
    const dialog = new AbortController();
    let fallBack: (() => void) | undefined;
    try {
      // pi's editor cannot be closed from outside: a multi-line question waits in the chats
      // only, until no chat watches any more (watchChanged).
      const terminal: Promise<string | undefined> = multiline
        ? new Promise((resolve) => {
            fallBack = () => {
              if (fallBack) this.chatsGone.delete(fallBack);
              // The terminal alone answers now: the chats' copy closes, and is not asked again
              // at a re-attach (resend), where an answer could not close pi's editor.
              this.open.delete(id);
              this.link()?.send({ type: "extension_ui_closed", id, by: "moved" });
              resolve(Promise.resolve().then(() => this.openDialog(ctx, method, title, options, dialog.signal)));
              ctx.ui.notify(`No chat watches any more: answer here. ${title}`, "info");
            };
            this.chatsGone.add(fallBack);
            this.watchChanged();
          })
        : this.openDialog(ctx, method, title, options, dialog.signal);
      if (multiline) ctx.ui.notify(`The agent asks in the chats (answer there): ${title}`, "info");
      const first = await Promise.race([
        terminal.then((value) => ({ from: "terminal" as const, value })),
        chat.then((reply) => ({ from: "chat" as const, reply })),
        aborted.promise.then(() => ({ from: "abort" as const })),
      ]);
      if (first.from === "chat") {
        dialog.abort(); // dismisses the terminal's copy
        if ("value" in first.reply) return { text: first.reply.value, by: "chat" };
        throw new Error(`Nobody answered: ${first.reply.why ?? "the question was cancelled in the chat"}.`);
      }
      if (first.from === "terminal" && first.value !== undefined && !signal?.aborted) {
        this.link()?.send({ type: "extension_ui_closed", id, by: "terminal" });
        return { text: first.value, by: "terminal" };
      }
      if (signal?.aborted) {
        this.link()?.send({ type: "extension_ui_closed", id, by: "abort" });
        throw new Error("Nobody answered: the run was aborted.");
      }
      this.link()?.send({ type: "extension_ui_closed", id, by: "terminal" });
      throw new Error("Nobody answered: the question was dismissed in the terminal.");
    } finally {
      if (fallBack) this.chatsGone.delete(fallBack);
      this.open.delete(id);
      dialog.abort();
      aborted.dispose();
    }
  }

  /** Not attached: the terminal alone asks. */
  private async askInTerminal(
    ctx: ExtensionContext,
    method: string,
    title: string,
    options: string[],
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const value = await this.openDialog(ctx, method, title, options, signal);
    if (value !== undefined && !signal?.aborted) return { text: value, by: "terminal" };
    if (signal?.aborted) throw new Error("Nobody answered: the run was aborted.");
    throw new Error("Nobody answered: the question was dismissed in the terminal.");
  }

  private openDialog(
    ctx: ExtensionContext,
    method: string,
    title: string,
    options: string[],
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    const ui = ctx.ui as any;
    if (method === "select") return Promise.resolve(ui.select(title, options, { signal }));
    if (method === "input") return Promise.resolve(ui.input(title, undefined, { signal }));
    return Promise.resolve(ui.editor(title)); // pi's editor takes no signal
  }

  /** The session ends: whatever waits on the chats gives up. */
  closeAll(why: string): void {
    for (const question of this.open.values()) question.reply({ cancelled: true, why });
    this.open.clear();
  }
}

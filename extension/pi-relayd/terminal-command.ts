/**
 * `/relay` in the terminal (seeds 001 and 002 have one; 004 has `/bridge:status`):
 *
 * - `/relay` or `/relay status`: the link, the daemon's session, the watching chats, the
 *   approvals waiting;
 * - `/relay disconnect` and `/relay connect`: detach and attach without unloading. Disconnected
 *   stays disconnected, across the daemon's restarts and pi's `/reload`, until `connect`; the
 *   gates keep their last rules and ask at the terminal alone (they fail closed);
 * - `/relay pair [messenger] [label]`: a code (and, where the messenger has one, a link) that
 *   pairs whoever claims it in a direct message with the bot and binds that chat to this session
 *   under the label (the daemon's `pair.session`).
 *
 * pi awaits a command's handler before the terminal takes input again (spec §5.3), so none of
 * these waits long: `pair` waits for the daemon's answer only, not for the claim.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { describe, type Json, type Log } from "./callbacks.ts";

const PAIR_TIMEOUT_MS = 20_000;

/** What `/relay` reads and does of the relay. */
export interface RelayControls {
  status(): RelayStatus;
  connect(): void;
  disconnect(): void;
  /** The daemon's `pair.session` answer. */
  pair(params: Json, timeoutMs: number): Promise<Json>;
}

export interface RelayStatus {
  /** The link's state: attached, connecting, offline, refused, disconnected (by /relay disconnect), displaced (another pi relays the session). */
  link: string;
  socketPath: string;
  piSessionID: string | undefined;
  /** The daemon's session id and name, once attached. */
  sessionID: string | undefined;
  sessionName: string | undefined;
  /** The messengers whose chats watch this session. */
  watchers: string[];
  /** Approval gates waiting for an answer now. */
  pendingApprovals: number;
  /** Whether the daemon sent approval rules (kept after a detach). */
  gated: boolean;
}

const SUBCOMMANDS = [
  { value: "status", label: "status", description: "the link, the session, the watching chats, pending approvals" },
  { value: "connect", label: "connect", description: "attach to pi-relayd again" },
  { value: "disconnect", label: "disconnect", description: "detach from pi-relayd until /relay connect" },
  { value: "pair", label: "pair", description: "pair [messenger] [label]: a code that binds a chat to this session" },
];

export function registerRelayCommand(pi: ExtensionAPI, controls: RelayControls, log: Log): void {
  pi.registerCommand("relay", {
    description: "pi-relayd: status, connect, disconnect, pair [messenger] [label]",
    getArgumentCompletions(prefix: string) {
      const typed = prefix.trimStart();
      if (typed.includes(" ")) return null;
      const found = SUBCOMMANDS.filter((item) => item.value.startsWith(typed));
      return found.length > 0 ? found : null;
    },
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      // A throw would reach pi as an extension error in red; say what went wrong instead.
      try {
        await runRelayCommand(args, ctx, controls);
      } catch (error) {
        log(`/relay ${args}: ${describe(error)}`);
        ctx.ui.notify(`relay: ${describe(error)}`, "error");
      }
    },
  } as any);
}

async function runRelayCommand(args: string, ctx: ExtensionCommandContext, controls: RelayControls): Promise<void> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const sub = (words[0] ?? "status").toLowerCase();
  switch (sub) {
    case "status":
      ctx.ui.notify(statusLines(controls.status()).join("\n"), "info");
      return;
    case "connect": {
      const before = controls.status().link;
      controls.connect();
      ctx.ui.notify(before === "attached" ? "relay: already attached" : "relay: connecting to pi-relayd", "info");
      return;
    }
    case "disconnect": {
      const before = controls.status().link;
      controls.disconnect();
      ctx.ui.notify(
        before === "disconnected"
          ? "relay: already disconnected (/relay connect attaches again)"
          : "relay: disconnected; chats no longer see this session until /relay connect. Approval gates keep their rules and ask here.",
        "info",
      );
      return;
    }
    case "pair":
      await pair(words.slice(1), ctx, controls);
      return;
    default:
      ctx.ui.notify(`relay: unknown subcommand ${sub}. Use: /relay status | connect | disconnect | pair [messenger] [label]`, "warning");
  }
}

function statusLines(status: RelayStatus): string[] {
  const lines = [`relay: ${status.link} (${status.socketPath})`];
  if (status.sessionID) lines.push(`session: ${status.sessionName ?? "?"} (${status.sessionID}), pi session ${status.piSessionID ?? "?"}`);
  else lines.push(`session: not attached (pi session ${status.piSessionID ?? "?"})`);
  lines.push(status.watchers.length > 0 ? `watched on: ${status.watchers.join(", ")}` : "watched on: no chat (/relay pair binds one)");
  lines.push(`approvals pending: ${status.pendingApprovals}` + (status.gated ? "" : " (no approval rules)"));
  return lines;
}

/** `/relay pair [messenger] [label]`: one word names a messenger only if it is not the label. */
async function pair(words: string[], ctx: ExtensionCommandContext, controls: RelayControls): Promise<void> {
  const status = controls.status();
  if (status.link !== "attached" || !status.sessionID) {
    ctx.ui.notify(`relay: not attached (${status.link}); /relay connect first`, "warning");
    return;
  }
  const params: Json = { sessionID: status.sessionID };
  if (words[0]) params.messenger = words[0];
  if (words.length > 1) params.label = words.slice(1).join(" ");
  const answer = await controls.pair(params, PAIR_TIMEOUT_MS);
  const code = String(answer.code ?? "");
  const messenger = String(answer.messenger ?? words[0] ?? "");
  const minutes = Math.max(1, Math.round(Number(answer.expiresInSeconds ?? 600) / 60));
  // Slack takes every message starting with "/" as its own command: there the claim is /pi pair.
  const claim = messenger === "slack" ? "/pi pair" : "/pair";
  const lines = [`Pairing code for ${messenger}: ${code}`];
  lines.push(`Send in a direct message${answer.bot ? ` to ${answer.bot}` : ""}:  ${claim} ${code}`);
  if (typeof answer.link === "string") lines.push(`or open:  ${answer.link}`);
  lines.push(
    `The chat that claims it watches this session${answer.label ? ` as "${answer.label}"` : ""}. It works once, for ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  );
  ctx.ui.notify(lines.join("\n"), "info");
}

/**
 * `/relay disconnect` outlives a `/reload`, which makes the extension anew in the same pi
 * process (spec §1.4): the choice is kept on globalThis, which a reload does not reset.
 */
const DISCONNECTED = Symbol.for("pi-relayd.disconnected");

export function disconnectedHere(): boolean {
  return (globalThis as any)[DISCONNECTED] === true;
}

export function setDisconnectedHere(disconnected: boolean): void {
  (globalThis as any)[DISCONNECTED] = disconnected;
}

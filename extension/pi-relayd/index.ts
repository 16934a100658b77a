/**
 * pi-relayd's pi extension: attaches the interactive pi you run in a terminal to the pi-relayd
 * daemon, so chats can watch it, prompt it, answer its questions and stop it (docs/EXTENSION.md
 * is the contract with the daemon; its "registration protocol" section is what this speaks).
 *
 * Node built-ins only: pi loads these files as they are (a folder with index.ts, spec §1.1),
 * and so does plain Node for the tests; imports name their .ts files for Node's type stripping.
 * The rules it lives by come from pi's extension API (shared/specs/pi-extension-api.md, §9 and
 * §11): every callback catches (pi has no uncaught-exception handler: a throw in a socket or
 * timer callback kills the user's pi), handlers never wait on the network (pi awaits them in
 * turn and the terminal only redraws after them), and nothing is ever written to stdout or stderr.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import * as path from "node:path";
import { fileLogger, relaydHome, safely, type Json } from "./callbacks.ts";
import { RELAYED_EVENTS } from "./events.ts";
import { gateHook, Gatekeeper, parseGates } from "./gates.ts";
import { claimActive, isPassiveProcess, releaseActive } from "./presence.ts";
import { Relay } from "./relay.ts";
import { registerRelayCommand } from "./terminal-command.ts";
import { registerRelayTools } from "./tools.ts";

// What the tests and other tools use of the extension.
export { later, safely } from "./callbacks.ts";
export { relayedEvent } from "./events.ts";
export { globToRegExp, matchingRule, type GateRule, type Gates } from "./gates.ts";
export { EXTENSION_VERSION, isOlderVersion, MIN_PI_VERSION } from "./version.ts";

export default function piRelayd(pi: ExtensionAPI): void {
  if (isPassiveProcess(process.argv, process.env)) {
    // A pi-relayd child: no session to attach (the daemon drives it), but its gates apply here.
    const sessionID = process.env.PI_RELAYD_SESSION;
    const gates = parseGates(process.env.PI_RELAYD_APPROVALS);
    const childToken = {};
    if (!sessionID || !claimActive(childToken)) return;
    (pi as any).on("session_shutdown", () => releaseActive(childToken));
    const log = fileLogger();
    const socketPath = path.join(relaydHome(), "relayd.sock");
    // The daemon refuses a tool while no chat watches the session, and says so. Registered at
    // session_start: looking for tools of the same names needs pi's runtime.
    (pi as any).on("session_start", () => {
      safely(log, "registering the relay tools", () => registerRelayTools(pi, socketPath, () => sessionID));
    });
    if (!gates) return;
    const gatekeeper = new Gatekeeper(socketPath, log, false);
    gatekeeper.sessionID = sessionID;
    gatekeeper.gates = gates;
    gateHook(pi, gatekeeper, log);
    return;
  }
  const token = {};
  if (!claimActive(token)) return; // another loaded copy relays this pi
  const log = fileLogger();
  const relay = new Relay(pi, log);
  registerRelayCommand(pi, relay.terminalControls(), log);
  gateHook(pi, relay.gatekeeper, log);

  // pi awaits handlers and reports their throws in red; ours never throw and never wait.
  const on = (event: string, handler: (event: Json, ctx: ExtensionContext) => void) => {
    (pi as any).on(event, (payload: Json, ctx: ExtensionContext) => {
      safely(log, `${event} handler`, () => handler(payload, ctx));
      return undefined;
    });
  };

  on("session_start", (_event, ctx) => relay.start(ctx));
  on("session_shutdown", () => {
    releaseActive(token);
    relay.stop();
  });
  on("session_switch", (event, ctx) => relay.onSessionChanged(ctx, event.reason === "new" ? "new" : "resume"));
  on("session_fork", (_event, ctx) => relay.onSessionChanged(ctx, "fork"));
  on("session_before_compact", () => relay.onCompactionStart());
  on("session_compact", () => relay.onCompactionEnd());
  for (const name of RELAYED_EVENTS) on(name, (event) => relay.onAgentEvent(event));
  on("input", (event) => relay.onInput(event));
  on("model_select", () => relay.onModelSelect());
}

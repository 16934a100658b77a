/**
 * The relay: pi's side of the attach connection. It attaches the terminal session, sends pi's
 * events to the daemon, and hands the daemon's commands, prompts and answers to pi.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import * as fs from "node:fs";
import * as path from "node:path";
import { later, relaydHome, safely, type Json, type Log, type Timer } from "./callbacks.ts";
import { PiCommands } from "./commands.ts";
import { relayedEvent, RelayedRun, RUN_LINE_TYPES, ToolUpdateThrottle } from "./events.ts";
import { Gatekeeper, parseGates } from "./gates.ts";
import { controlCall, DaemonLink } from "./link.ts";
import { PromptSender, type SwitchReason } from "./prompts.ts";
import { ASK_USER_PARAMETERS, Questions } from "./questions.ts";
import { readPiSettings, RetryWatch } from "./retry.ts";
import { RunStop } from "./stop.ts";
import { disconnectedHere, setDisconnectedHere, type RelayControls } from "./terminal-command.ts";
import { registerRelayTools } from "./tools.ts";
import { EXTENSION_VERSION, isOlderVersion, MIN_PI_VERSION, readPiVersion } from "./version.ts";

const STATUS_KEY = "pi-relayd";
/** pi has no event for thinking-level or name changes made in the terminal: they are polled. */
const SESSION_INFO_POLL_MS = 2000;

interface SessionInfo {
  sessionFile: string | null;
  name: string | null;
  model: string | null;
  /** The model's `input` kinds: pi hands pictures to a text-only model too (§11 trap 9). */
  modelInput: string[] | null;
  thinkingLevel: string | null;
}

function modelInput(model: any): string[] | null {
  return Array.isArray(model?.input) ? model.input.filter((kind: unknown) => typeof kind === "string") : null;
}

/** A user message's text as pi flattens sendUserMessage content: text blocks joined by newlines. */
function userText(message: Json): string {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return "";
  return message.content
    .filter((block: Json) => block?.type === "text" && typeof block.text === "string")
    .map((block: Json) => block.text)
    .join("\n");
}

function modelName(model: any): string | null {
  if (!model || typeof model.id !== "string") return null;
  return typeof model.provider === "string" ? `${model.provider}/${model.id}` : model.id;
}


export class Relay {
  readonly pi: ExtensionAPI;
  readonly log: Log;
  private ctx: ExtensionContext | undefined;
  private link: DaemonLink | undefined;
  private piVersion: string | null = null;
  /** The pi session relayed now (pi changes its id in place at `/new`, before telling us). */
  private piSessionID: string | undefined;
  /**
   * The pi session a `/new`, `/resume` or `/fork` left, named as `previousPiSessionID` until the
   * new one is attached, so the chats follow even when the daemon was away at the switch.
   */
  private replacedPiSessionID: string | undefined;
  private lastStatus: string | undefined;
  private lastInfo: SessionInfo | undefined;
  private sessionFileExists = false;
  private infoTimer: Timer | undefined;
  private toolRegistered = false;
  /** Another extension's ask_user took the name: its questions are shown to the chats. */
  private foreignAskUser = false;
  private stopped = false;
  /**
   * The run pi continued after an overflow compaction that a stop came during: aborted at its
   * start, and not shown, since the chats were told at the stop that the run ended.
   */
  private stoppedContinuation = false;
  readonly sender: PromptSender;
  /** What a stop does besides ctx.abort(): gates, queued prompts, a prompt still starting. */
  private readonly runStop: RunStop;
  private readonly commands: PiCommands;
  private readonly throttle: ToolUpdateThrottle;
  private readonly questions: Questions;
  /** The messengers whose chats watch this session, from the daemon's relay_status. */
  private watchers: string[] = [];
  /** The daemon's name for this session, from the attach answer (`/relay status`). */
  private sessionName: string | undefined;
  /** Approval gates, with the rules the daemon sent at the attach. */
  readonly gatekeeper: Gatekeeper;
  /**
   * What pi will do after a run's agent_end (a retry, an overflow continuation: spec §11 trap 4);
   * `isPending` while such a continuation has not started, for the chat prompts that must wait.
   */
  readonly retry: RetryWatch;
  /** The run as the daemon sees it: ended here when pi ends it silently, one run across retries. */
  private readonly run: RelayedRun;

  constructor(pi: ExtensionAPI, log: Log) {
    this.pi = pi;
    this.log = log;
    this.gatekeeper = new Gatekeeper(path.join(relaydHome(), "relayd.sock"), log, true);
    this.sender = new PromptSender(
      pi,
      () => this.ctx?.isIdle() ?? true,
      log,
      (line) => this.link?.send(line),
      () => this.gatekeeper.pending > 0,
    );
    this.throttle = new ToolUpdateThrottle((event) => this.link?.send(event), log);
    this.runStop = new RunStop(this.gatekeeper, () => this.sender.dropQueued(), log);
    this.runStop.overflowRecovery = () => this.run.isRecoveringFromOverflow;
    this.retry = new RetryWatch(() => readPiSettings(this.ctx?.cwd ?? process.cwd()));
    this.run = new RelayedRun(
      {
        send: (event) => this.link?.send(event),
        idle: () => this.ctx?.isIdle() ?? true,
        model: () => this.ctx?.model as any,
        flush: () => this.throttle.flushAll(),
        // pi looks idle in a retry's back-off: a chat prompt now would race pi's continuation (trap 7).
        continuationExpected: (ms) => this.sender.hold("retry", ms, { untilAgentStart: true }),
        continuationOver: () => this.sender.release("retry"),
        // Another extension's question in the run got no tool_execution_end: its card would stay answerable.
        endedSilently: () => this.questions.closeForeign(),
        log,
      },
      this.retry,
    );
    this.commands = new PiCommands({
      pi,
      sender: this.sender,
      gatekeeper: this.gatekeeper,
      runStop: this.runStop,
      log,
      context: () => this.ctx,
      send: (message) => this.link?.send(message),
      runAborted: () => this.run.onAbort(),
      sessionInfoChanged: () => this.sendSessionInfoIfChanged(),
    });
    this.questions = new Questions(
      () => this.link,
      () => this.watchers.length > 0,
      log,
    );
  }

  // --- pi's lifecycle

  start(ctx: ExtensionContext): void {
    this.ctx = ctx;
    if (!ctx.hasUI) return; // print and JSON modes: no terminal session to attach
    this.piSessionID = ctx.sessionManager.getSessionId();
    this.gatekeeper.adopt(this.piSessionID); // after a /reload: the rules and approvals it had
    safely(this.log, "registering ask_user", () => this.registerAskTool());
    // Registered once and never hidden: a run keeps the tools it started with, and each change
    // costs the prompt cache (spec §11 trap 14). With no chat watching they say so.
    safely(this.log, "registering the relay tools", () =>
      registerRelayTools(this.pi, path.join(relaydHome(), "relayd.sock"), () => this.gatekeeper.sessionID, () => this.watchers.length > 0),
    );
    this.piVersion = readPiVersion();
    if (this.piVersion && isOlderVersion(this.piVersion, MIN_PI_VERSION) === true) {
      this.log(`pi ${this.piVersion} is older than ${MIN_PI_VERSION}: not attaching`);
      this.showStatus(`relay: pi ${MIN_PI_VERSION} or newer needed`, true);
      return;
    }
    const socketPath = path.join(relaydHome(), "relayd.sock");
    this.link = new DaemonLink(socketPath, {
      attachParams: () => this.attachParams(),
      onAttached: (params, result) => this.onAttached(params, result),
      onRefused: (error) => this.onRefused(error),
      onDetached: () => this.onDetached(),
      onOffline: () => this.showStatus("relay: offline"),
      // Said once, in the footer: the daemon now relays the other pi's copy of this session.
      onDisplaced: (holderPid) => this.showStatus(`relay: another pi (pid ${holderPid}) relays this session; a prompt here takes it back`),
      onUntrusted: (problem) => this.showStatus(`relay: refused (${problem})`, true),
      onLine: (message) => this.onLine(message),
      log: this.log,
    });
    if (disconnectedHere()) {
      this.link.suspend(); // `/relay disconnect` holds across a /reload
      this.showStatus("relay: disconnected (/relay connect)");
    }
    this.link.start(); // in the background: session_start must not wait for the daemon
  }

  stop(): void {
    this.stopped = true;
    // pi quits without ending a run going on (trap 17): the daemon hears the end before the EOF.
    this.run.onShutdown();
    // The chats hear which of their prompts will not run, before the link closes.
    this.sender.tellDropped(this.sender.clear(), "shutdown");
    this.link?.close();
    this.link = undefined;
    this.stopInfoPoll();
    this.throttle.clear();
    this.questions.closeAll("pi is shutting down");
  }

  /** `/new`, `/resume`, `/fork`: the same pi, another pi session; attach that one. */
  onSessionChanged(ctx: ExtensionContext, reason: SwitchReason = "fork"): void {
    this.ctx = ctx;
    const current = ctx.sessionManager.getSessionId();
    if (current === this.piSessionID) return;
    // `/new` and `/resume` aborted a run without its agent_end (trap 2): it ends in the old session.
    if (reason !== "fork") this.run.onSessionSwitch(reason);
    const promptStarting = this.switchPrompts(reason);
    // Several switches before the daemon hears of them: it knows the first one left. A pi that
    // another pi displaced names none: the chats would follow it away from the pi relaying them.
    if (!this.link?.isDisplaced) this.replacedPiSessionID ??= this.piSessionID;
    this.piSessionID = current;
    this.gatekeeper.sessionChanged(current); // "Approve for session" ends with the session
    // A stop armed for a prompt still in its pre-run phase stays armed: the switch does not
    // abort that prompt, and it starts in the new session (trap 2). With none starting, the arm
    // (its prompt failed, or its compaction did) must not stop a later prompt there.
    this.runStop.sessionSwitched(promptStarting);
    this.throttle.clear();
    this.stopInfoPoll();
    this.lastInfo = undefined;
    this.sessionFileExists = false;
    if (this.link) {
      this.showStatus("relay: offline");
      this.link.restart();
    }
  }

  // --- events from pi

  onAgentEvent(event: Json): void {
    if (event.type === "agent_start") this.stoppedContinuation = this.runStop.onAgentStart(this.ctx);
    if (this.stoppedContinuation) {
      if (event.type === "agent_start") this.sender.onAgentStart();
      if (event.type !== "agent_end") return;
      this.stoppedContinuation = false;
      this.runStop.onAgentEnd();
      this.sender.onAgentEnd(!(this.ctx?.hasPendingMessages() ?? true));
      return;
    }
    // Another extension's ask_user: shown in the chats, answered in the terminal (questions.ts).
    if (this.foreignAskUser) this.questions.onForeignEvent(event);
    // agent_end first: whether pi will continue this run (trap 4) is known to what follows.
    if (event.type === "agent_end") {
      this.throttle.flushAll();
      this.run.onAgentEvent(event);
    }
    if (event.type === "agent_end") this.runStop.onAgentEnd();
    if (event.type === "agent_start") this.sender.onAgentStart();
    if (event.type === "agent_end") this.sender.onAgentEnd(!(this.ctx?.hasPendingMessages() ?? true));
    if (event.type === "message_start" && event.message?.role === "user") this.sender.onUserMessage(userText(event.message));
    if (event.type === "tool_execution_update") {
      const relayed = relayedEvent(event);
      if (relayed && this.link?.isAttached) this.throttle.update(relayed);
      return;
    }
    if (event.type === "tool_execution_end") this.throttle.end(event.toolCallId);
    if (event.type !== "agent_end") this.run.onAgentEvent(event);
    if (event.type === "message_end" || event.type === "agent_end") this.checkSessionFileSoon();
  }

  /** pi's `input` event: terminal prompts go to the chats; our own are recognised, not echoed. */
  onInput(event: Json): void {
    const text = typeof event.text === "string" ? event.text : "";
    this.runStop.onInput(this.ctx?.isIdle() ?? true);
    if (event.source === "interactive") {
      // Typing here makes this the pi in use: one that another pi displaced attaches again.
      this.link?.takeBack();
      const images = Array.isArray(event.images) ? event.images.length : 0;
      this.link?.send({ type: "terminal_input", text, images });
      this.sender.onTerminalInput(text);
    } else if (event.source === "extension") {
      this.sender.onExtensionInput(text);
    }
  }

  /** `session_before_compact`: pi compacts; chat prompts wait (spec §11 trap 7). */
  onCompactionStart(): void {
    const aborted = this.run.onCompactionStart(); // mid-run: pi aborted the run without its end (trap 1)
    this.sender.onCompactionStart(aborted);
    this.runStop.onCompaction(true);
  }

  /** `session_compact`: the compaction is done. */
  onCompactionEnd(): void {
    this.run.onCompactionEnd(); // an overflow recovery continues now
    this.sender.onCompactionEnd(this.ctx?.hasPendingMessages() ?? false);
    this.runStop.onCompaction(false);
  }

  /**
   * The chats' prompts at a switch (spec §11 trap 2). `/fork` keeps the run and its queue: they
   * go on in the fork. `/new` and `/resume`: what is still here is held and the chats are asked;
   * what pi has is dropped by `/new` and delivered into the resumed conversation by `/resume`.
   */
  /** Returns whether a chat prompt is still in pi's pre-run phase (a fork aborts nothing: as if so). */
  private switchPrompts(reason: SwitchReason): boolean {
    if (reason === "fork") return true;
    const { held, inPi, starting } = this.sender.switched();
    if (reason === "new") this.sender.tellDropped(inPi, "new");
    this.sender.tellDelivered(reason === "new" ? starting : [...inPi, ...starting], reason);
    this.sender.askAboutHeld(held, reason);
    return starting.length > 0;
  }

  onModelSelect(): void {
    this.sendSessionInfoIfChanged();
  }

  // --- the connection

  private attachParams(): Json {
    const ctx = this.ctx!;
    const piSessionID = ctx.sessionManager.getSessionId();
    const info = this.currentInfo();
    const params: Json = {
      piSessionID,
      sessionFile: info.sessionFile,
      cwd: ctx.cwd,
      name: info.name,
      model: info.model,
      modelInput: info.modelInput,
      thinkingLevel: info.thinkingLevel,
      pid: process.pid,
      piVersion: this.piVersion,
      extensionVersion: EXTENSION_VERSION,
      interactive: true,
    };
    if (this.replacedPiSessionID && this.replacedPiSessionID !== piSessionID) {
      params.previousPiSessionID = this.replacedPiSessionID;
    }
    return params;
  }

  private onAttached(params: Json, result: Json): void {
    if (params.piSessionID === this.piSessionID) this.replacedPiSessionID = undefined;
    this.log(`attached pi session ${params.piSessionID} as ${result.sessionID ?? "?"}`);
    this.gatekeeper.sessionID = typeof result.sessionID === "string" ? result.sessionID : undefined;
    this.sessionName = typeof result.session === "string" ? result.session : undefined;
    // Kept after a detach: the terminal alone then decides what the rules gate.
    this.gatekeeper.gates = parseGates(result.approvals);
    this.lastInfo = {
      sessionFile: params.sessionFile,
      name: params.name,
      model: params.model,
      modelInput: params.modelInput,
      thinkingLevel: params.thinkingLevel,
    };
    this.sessionFileExists = typeof params.sessionFile === "string" && fs.existsSync(params.sessionFile);
    this.showStatus("relay: attached");
    // Attached in the middle of a run (the daemon restarted, or pi switched session while
    // busy): the daemon heard no agent_start, so it would take the session for idle and show
    // nothing of the rest of the run. It hears one now; the run's remaining events follow.
    // What was kept since a switch is sent next (DaemonLink). When its first run line is an
    // agent_start, that run announces itself. When it is the tail of a run that started before
    // the switch (one goes on across /fork, spec §11 trap 3), that run needs its start even if
    // it has ended by now and pi is idle: else the daemon drops its end and final answer.
    // A retry's back-off looks idle to pi: the run, and that it will go on, are told too.
    const firstKept = this.link?.firstHeld(RUN_LINE_TYPES);
    if (firstKept === undefined) {
      if (this.run.isContinuing) for (const line of this.run.resumeLines()) this.link?.send(line);
      else if (this.ctx && !this.ctx.isIdle()) this.link?.send({ type: "agent_start" });
    } else if (firstKept !== "agent_start") {
      this.link?.send({ type: "agent_start" }); // the kept tail carries any auto_retry_start itself
    }
    this.questions.resend();
    this.gatekeeper.askAgain(); // a gate waiting: the chats are asked again, the terminal's dialog stays
    this.sender.askAgain();
    this.startInfoPoll();
  }

  private onRefused(error: Json): void {
    const message = typeof error.message === "string" ? error.message : "refused";
    this.log(`the daemon refused the attach: ${error.code ?? "error"}: ${message}`);
    if (error.code === "unsupported") this.showStatus(`relay: pi ${MIN_PI_VERSION} or newer needed`, true);
    else this.showStatus(`relay: refused (${message})`, true);
  }

  private onDetached(): void {
    this.watchers = [];
    this.gatekeeper.sessionID = undefined;
    this.stopInfoPoll();
    this.throttle.clear();
    this.showStatus("relay: offline");
    this.questions.watchChanged();
  }

  private onLine(message: Json): void {
    const type = message.type;
    if (type === "relay_status") return this.onRelayStatus(message);
    if (type === "extension_ui_response") {
      if (this.sender.onResponse(message)) return;
      return this.questions.onResponse(message);
    }
    if (typeof type !== "string") {
      this.log(`ignored a line from the daemon without a type: ${JSON.stringify(message).slice(0, 160)}`);
      return;
    }
    safely(this.log, `command ${type}`, () => this.commands.run(message));
  }

  private onRelayStatus(message: Json): void {
    const watchers = Array.isArray(message.watchers) ? message.watchers.filter((w: unknown) => typeof w === "string") : [];
    this.watchers = watchers;
    this.showStatus(watchers.length > 0 ? `relay: watching on ${watchers.join(", ")}` : "relay: attached");
    this.questions.watchChanged();
  }

  // --- `/relay` in the terminal (terminal-command.ts)

  terminalControls(): RelayControls {
    return {
      status: () => ({
        link: this.link?.isSuspended
          ? "disconnected"
          : this.link?.isDisplaced
            ? `displaced: pi ${this.link.holderPid} relays this session (a prompt here or /relay connect takes it back)`
            : this.link?.isAttached
              ? "attached"
              : (this.link?.state ?? "not started"),
        socketPath: path.join(relaydHome(), "relayd.sock"),
        piSessionID: this.piSessionID,
        sessionID: this.link?.isAttached ? this.gatekeeper.sessionID : undefined,
        sessionName: this.link?.isAttached ? this.sessionName : undefined,
        watchers: this.watchers.slice(),
        pendingApprovals: this.gatekeeper.pending,
        gated: this.gatekeeper.gates !== undefined,
      }),
      connect: () => {
        setDisconnectedHere(false);
        if (this.link?.isSuspended) this.showStatus("relay: offline");
        this.link?.resume();
      },
      disconnect: () => {
        setDisconnectedHere(true);
        this.link?.suspend(); // onDetached: the chats' tools hidden, the gates ask here alone
        this.showStatus("relay: disconnected (/relay connect)");
      },
      pair: (params, timeoutMs) => controlCall(path.join(relaydHome(), "relayd.sock"), "pair.session", params, timeoutMs),
    };
  }

  // --- the tool

  private registerAskTool(): void {
    if (this.toolRegistered) return;
    this.toolRegistered = true;
    // Someone else's ask_user wins: two tools of one name would confuse the model.
    if (this.pi.getAllTools().some((tool: any) => tool.name === "ask_user")) {
      this.log("another extension has an ask_user tool; not registering ours");
      this.foreignAskUser = true;
      return;
    }
    const questions = this.questions;
    const sessionContext = () => this.context;
    this.pi.registerTool({
      name: "ask_user",
      label: "Ask user",
      description:
        "Ask the user a question and wait for the answer. Use it when you need a decision or information only the user has. " +
        "Give options for a choice; set multiline for an answer of several lines.",
      parameters: ASK_USER_PARAMETERS as any,
      async execute(_toolCallId: string, params: any, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: ExtensionContext) {
        const answer = await questions.ask(params ?? {}, signal, ctx ?? sessionContext());
        return { content: [{ type: "text", text: answer.text }], details: { answeredBy: answer.by } };
      },
    } as any);
  }

  // --- session_info and the footer

  private currentInfo(): SessionInfo {
    const ctx = this.ctx!;
    return {
      sessionFile: ctx.sessionManager.getSessionFile() ?? null,
      name: this.pi.getSessionName() ?? null,
      model: modelName(ctx.model),
      modelInput: modelInput(ctx.model),
      thinkingLevel: this.pi.getThinkingLevel() ?? null,
    };
  }

  /** Sends session_info when what the daemon knows of the session changed. */
  private sendSessionInfoIfChanged(): void {
    if (!this.link?.isAttached || !this.ctx) return;
    const info = this.currentInfo();
    const fileExists = info.sessionFile !== null && fs.existsSync(info.sessionFile);
    const last = this.lastInfo;
    const changed =
      !last ||
      last.sessionFile !== info.sessionFile ||
      last.name !== info.name ||
      last.model !== info.model ||
      last.thinkingLevel !== info.thinkingLevel ||
      fileExists !== this.sessionFileExists;
    if (!changed) return;
    this.lastInfo = info;
    this.sessionFileExists = fileExists;
    this.link.send({ type: "session_info", ...info });
  }

  /** pi writes the session file after the message_end handlers ran: look once they are done. */
  private checkSessionFileSoon(): void {
    if (this.sessionFileExists || !this.link?.isAttached) return;
    later(this.log, "session file check", 0, () => this.sendSessionInfoIfChanged());
  }

  private startInfoPoll(): void {
    this.stopInfoPoll();
    const poll = () => {
      this.sendSessionInfoIfChanged();
      this.infoTimer = later(this.log, "session info poll", SESSION_INFO_POLL_MS, poll);
    };
    this.infoTimer = later(this.log, "session info poll", SESSION_INFO_POLL_MS, poll);
  }

  private stopInfoPoll(): void {
    if (this.infoTimer) clearTimeout(this.infoTimer);
    this.infoTimer = undefined;
  }

  private showStatus(text: string, isError = false): void {
    if (this.stopped || !this.ctx || text === this.lastStatus) return;
    this.lastStatus = text;
    const ui = this.ctx.ui as any;
    let shown = text;
    if (isError) {
      try {
        if (typeof ui.theme?.fg === "function") shown = ui.theme.fg("error", text);
      } catch {
        // Plain text then.
      }
    }
    ui.setStatus(STATUS_KEY, shown);
  }
}

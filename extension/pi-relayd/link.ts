/** The connection to the daemon: the attach connection, and one-off control calls. */
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { describe, isObject, later, safely, type Json, type Log, type Timer } from "./callbacks.ts";

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
/** A daemon that accepts the connection but never answers the attach is given up on. */
const ATTACH_TIMEOUT_MS = 10_000;
const MAX_LINE_CHARS = 16 * 1024 * 1024;
/**
 * The daemon reads at most 16 MiB a line on its control socket and skips a longer one with no
 * word to us (ControlServer.swift, `maxLineBytes: 16 << 20`): no line we write is longer than
 * this, which leaves room to spare.
 */
const LINE_BUDGET_BYTES = 15 * 1024 * 1024;
const MB = 1024 * 1024;
/** A daemon that stops reading while pi streams would make Node buffer without end. */
const MAX_UNSENT_BYTES = 64 * 1024 * 1024;
/** session_shutdown ends the connection politely, but never waits for the network longer. */
const SHUTDOWN_DESTROY_MS = 200;
/**
 * Lines kept between a session switch and the new attach (a run goes on across `/fork`,
 * spec §11 trap 3): at most this many, this many bytes, and none older than this.
 */
const SWITCH_BUFFER_LINES = 5000;
const SWITCH_BUFFER_BYTES = 16 * 1024 * 1024;
const SWITCH_BUFFER_MS = 60_000;
/** How long the daemon may take to say who holds the session after it closed the link. */
const HOLDER_ASK_MS = 2000;
/** How often a displaced link looks whether the pi that took its session over still runs. */
const HOLDER_WATCH_MS = 2000;

/**
 * Whoever can put a socket where we connect could prompt this pi, and so run its tools, as us.
 * The daemon keeps its folder owner-only; a folder or socket that is not ours, or a folder
 * others may write to, is not connected to. Undefined when all is well (or nothing is there).
 */
export function socketTrustProblem(socketPath: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const folder = path.dirname(socketPath);
  let folderStat: fs.Stats;
  try {
    folderStat = fs.statSync(folder);
  } catch {
    return undefined; // no folder: the connect fails as for an absent daemon
  }
  if (folderStat.uid !== uid) return `${folder} is not yours`;
  if ((folderStat.mode & 0o022) !== 0) return `others may write to ${folder}`;
  let socketStat: fs.Stats;
  try {
    socketStat = fs.lstatSync(socketPath);
  } catch {
    return undefined;
  }
  if (socketStat.uid !== uid) return `${socketPath} is not yours`;
  return undefined;
}

/** An image block (pi's ImageContent): what can make an event bigger than a line may be. */
function isImageBlock(value: unknown): value is Json {
  return isObject(value) && value.type === "image" && typeof value.data === "string";
}

/**
 * A copy of `value` with each image block, wherever it is (a message's content, a tool's result
 * or partial result, turn_end's toolResults), replaced by a text block that says it was left
 * out. Only plain objects and arrays are copied; `count` says how many images went.
 */
function withoutImages(value: unknown): { value: unknown; count: number } {
  if (isImageBlock(value)) {
    const size = (Buffer.byteLength(value.data, "base64") / MB).toFixed(1);
    return { value: { type: "text", text: `[an image of ${size} MB was not relayed (over the relay's line limit)]` }, count: 1 };
  }
  if (Array.isArray(value)) {
    let count = 0;
    const copy = value.map((item) => {
      const result = withoutImages(item);
      count += result.count;
      return result.value;
    });
    return count > 0 ? { value: copy, count } : { value, count: 0 };
  }
  const proto = typeof value === "object" && value !== null ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) return { value, count: 0 }; // a Date, a Buffer: as JSON makes them
  let count = 0;
  const copy: Json = {};
  for (const [key, item] of Object.entries(value as Json)) {
    const result = withoutImages(item);
    count += result.count;
    copy[key] = result.value;
  }
  return count > 0 ? { value: copy, count } : { value, count: 0 };
}

/**
 * A message as one line for the daemon, at most LINE_BUDGET_BYTES of UTF-8. pi passes images on
 * as they are (spec §11 trap 9: a picture in a prompt, or a tool's, can be any size), so a
 * line over the budget goes with a text block in place of each image: the event itself (a
 * tool_execution_end that closes the chat's tool line) matters more than its picture. Still
 * over without them, it is not sent, and the log says what was lost. Undefined: no line.
 */
function encodeLine(message: Json, log: Log): { line: string; bytes: number } | undefined {
  const what = message.type ?? message.method;
  let line: string;
  try {
    line = `${JSON.stringify(message)}\n`;
  } catch (error) {
    log(`could not encode a ${what} line: ${describe(error)}`);
    return undefined;
  }
  let bytes = Buffer.byteLength(line);
  if (bytes <= LINE_BUDGET_BYTES) return { line, bytes };
  const stripped = withoutImages(message);
  if (stripped.count > 0) {
    line = `${JSON.stringify(stripped.value)}\n`;
    const before = bytes;
    bytes = Buffer.byteLength(line);
    if (bytes <= LINE_BUDGET_BYTES) {
      log(`a ${what} line of ${(before / MB).toFixed(1)} MB: ${stripped.count} image(s) left out, over the daemon's 16 MiB line limit`);
      return { line, bytes };
    }
  }
  log(`not relaying a ${what} line of ${(bytes / MB).toFixed(1)} MB: over the daemon's 16 MiB line limit${stripped.count > 0 ? " even without its images" : ""}`);
  return undefined;
}

interface SwitchBuffer {
  lines: { type: unknown; line: string }[];
  bytes: number;
  since: number;
}

/** `displaced`: another pi attached this same pi session, and the daemon let this link go. */
export type LinkState = "idle" | "connecting" | "attaching" | "attached" | "refused" | "displaced" | "closed";

export interface LinkHooks {
  /** The attach request's params, read when the connection is made. */
  attachParams(): Json;
  onAttached(params: Json, result: Json): void;
  onRefused(error: Json): void;
  /** A connection that was attached ended. */
  onDetached(): void;
  /** A try to connect or attach failed; another follows. */
  onOffline(): void;
  /**
   * Another pi (`holderPid`) attached this pi session and the daemon let this link go: no try
   * to attach again until `takeBack()`, `resume()`, a switch, or that pi's process ends.
   */
  onDisplaced(holderPid: number): void;
  /** The socket or its folder is not safe to connect to (socketTrustProblem); tried again later. */
  onUntrusted(problem: string): void;
  /** Every line after the attach answer. */
  onLine(message: Json): void;
  log: Log;
}

/**
 * One Unix-socket connection to the daemon at a time, attached with the `attach` request, and
 * made again whenever it ends: after 250 ms, doubling to at most 5 s, and at once when the
 * socket appears in the daemon's folder; except after another pi attached the same pi session
 * (displaced), see onClose. Lines are JSON, one per line.
 */
export class DaemonLink {
  state: LinkState = "idle";
  private readonly socketPath: string;
  private readonly hooks: LinkHooks;
  private socket: net.Socket | undefined;
  private received = "";
  private retryTimer: Timer | undefined;
  private retryDelay = RETRY_FIRST_MS;
  private attachTimer: Timer | undefined;
  private watcher: fs.FSWatcher | undefined;
  private attachingParams: Json | undefined;
  /** The last failure logged, so a daemon that stays away is logged once, not every 5 s. */
  private lastFailure = "";
  /** Lines sent since a switch restarted the link, for the new attach; undefined otherwise. */
  private switchBuffer: SwitchBuffer | undefined;
  /** The kept lines while onAttached runs (they are written right after it). */
  private attachKept: SwitchBuffer | undefined;
  /** `/relay disconnect` holds: nothing connects until `/relay connect`. */
  private suspended = false;
  /** The daemon's id of the session last attached, to ask who holds it when the link ends. */
  private attachedSessionID: string | undefined;
  /** While displaced: the pid of the pi that took the session over. */
  private holder: number | undefined;
  private holderTimer: Timer | undefined;
  /** Bumped whenever the link acts, so a late answer about the session's holder is dropped. */
  private holderAsk = 0;
  /** The link ended and the daemon is being asked who holds the session now. */
  private askingHolder = false;

  constructor(socketPath: string, hooks: LinkHooks) {
    this.socketPath = socketPath;
    this.hooks = hooks;
  }

  get isAttached(): boolean {
    return this.state === "attached";
  }

  /** Another pi attached this pi session and relays it now (`holderPid`). */
  get isDisplaced(): boolean {
    return this.state === "displaced";
  }

  /** While displaced: the pid of the pi that took the session over. */
  get holderPid(): number | undefined {
    return this.holder;
  }

  /** `/relay disconnect`: no connection, and no try to make one, until `resume()`. */
  get isSuspended(): boolean {
    return this.suspended;
  }

  /**
   * `/relay disconnect`: ends the connection (onDetached when it was attached) and stays away,
   * a daemon that (re)starts included, until `resume()`. Not a close: pi goes on, and so do the
   * hooks. Lines sent meanwhile are dropped, as for an absent daemon.
   */
  suspend(): void {
    if (this.state === "closed" || this.suspended) return;
    this.suspended = true;
    this.switchBuffer = undefined;
    this.clearRetry();
    this.clearHolderWatch();
    const wasAttached = this.state === "attached";
    this.dropSocket(); // its close event then belongs to no connection and changes nothing
    this.state = "idle";
    if (wasAttached) this.hooks.onDetached();
  }

  /** `/relay connect`: connects and attaches again at once. */
  resume(): void {
    if (this.state === "closed") return;
    this.suspended = false;
    this.retryDelay = RETRY_FIRST_MS;
    if (this.socket) return; // connecting or attached already
    this.state = "idle";
    this.watchFolder();
    this.connect();
  }

  start(): void {
    this.watchFolder();
    this.connect();
  }

  /**
   * The person works in this pi (a prompt typed here): a displaced link attaches again, and so
   * takes the session back from the other pi, which is let go in turn. The prompt's lines are
   * kept for the new attach, as after a switch. False when not displaced.
   */
  takeBack(): boolean {
    // While the daemon is asked who holds the session, the answer may be "another pi": too late
    // for this prompt then, so it takes the session now.
    if (this.state !== "displaced" && !(this.askingHolder && this.state === "idle" && !this.socket && !this.suspended)) return false;
    this.hooks.log(`taking the session back${this.holderPid ? ` from pi ${this.holderPid}` : ""}: a prompt was typed here`);
    this.switchBuffer ??= { lines: [], bytes: 0, since: Date.now() };
    this.state = "idle";
    this.retryDelay = RETRY_FIRST_MS;
    this.connect();
    return true;
  }

  /**
   * Ends this connection and attaches anew at once: pi switched to another session. What is
   * sent until the new attach is kept and sent after it (bounded), not dropped.
   */
  restart(): void {
    if (this.state === "closed" || this.suspended) return; // disconnected: the next connect attaches the new session
    this.switchBuffer ??= { lines: [], bytes: 0, since: Date.now() };
    this.dropSocket();
    this.state = "idle";
    this.retryDelay = RETRY_FIRST_MS;
    this.connect();
  }

  /**
   * Sends a line when attached. Between a switch and the new attach it is kept for the new
   * session (responses excepted: their commands belonged to the old one); otherwise dropped
   * (the daemon reports what it missed).
   */
  send(message: Json): boolean {
    if (this.state === "attached" && this.socket) return this.write(this.socket, message);
    const buffer = this.switchBuffer;
    if (!buffer || message.type === "response") return false;
    // Kept as it will be written: within the daemon's line limit, or not at all.
    const encoded = encodeLine(message, this.hooks.log);
    if (!encoded) return false;
    if (
      buffer.lines.length >= SWITCH_BUFFER_LINES ||
      buffer.bytes + encoded.bytes > SWITCH_BUFFER_BYTES ||
      Date.now() - buffer.since > SWITCH_BUFFER_MS
    ) {
      this.hooks.log(`no attach since the session switch: ${buffer.lines.length} kept line(s) dropped, and what follows`);
      this.switchBuffer = undefined;
      return false;
    }
    buffer.lines.push({ type: message.type, line: encoded.line });
    buffer.bytes += encoded.bytes;
    return true;
  }

  /** The type of the first line waiting to be sent after the attach that is one of `types`. */
  firstHeld(types: readonly string[]): string | undefined {
    const kept = (this.attachKept ?? this.switchBuffer)?.lines.find((line) => types.includes(line.type as string));
    return kept?.type as string | undefined;
  }

  /** Closes everything without waiting for the network. */
  close(): void {
    this.state = "closed";
    this.switchBuffer = undefined;
    this.clearRetry();
    this.clearHolderWatch();
    this.clearAttachTimer();
    try {
      this.watcher?.close();
    } catch {
      // Already closed.
    }
    this.watcher = undefined;
    this.dropSocket();
  }

  private connect(): void {
    if (this.state === "closed" || this.suspended || this.socket) return;
    this.clearRetry();
    this.clearHolderWatch();
    this.holderAsk++;
    this.askingHolder = false;
    const problem = socketTrustProblem(this.socketPath);
    if (problem) {
      if (problem !== this.lastFailure) this.hooks.log(`not connecting: ${problem}`);
      this.lastFailure = problem;
      this.state = "idle";
      this.hooks.onUntrusted(problem);
      this.scheduleRetry();
      return;
    }
    this.state = "connecting";
    this.received = "";
    const socket = net.createConnection({ path: this.socketPath });
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.unref();
    const log = this.hooks.log;
    socket.on("connect", () => safely(log, "socket connect", () => this.onConnect(socket)));
    socket.on("data", (chunk: string) => safely(log, "socket data", () => this.onData(socket, chunk)));
    socket.on("error", (error: Error) => safely(log, "socket error", () => this.onError(socket, error)));
    socket.on("close", () => safely(log, "socket close", () => this.onClose(socket)));
  }

  private onConnect(socket: net.Socket): void {
    if (socket !== this.socket) return;
    this.state = "attaching";
    const params = this.hooks.attachParams();
    this.attachingParams = params;
    this.write(socket, { id: "attach", method: "attach", params });
    this.attachTimer = later(this.hooks.log, "attach timeout", ATTACH_TIMEOUT_MS, () => {
      if (socket !== this.socket || this.state !== "attaching") return;
      this.hooks.log("the daemon did not answer the attach; trying again");
      socket.destroy();
    });
  }

  private onData(socket: net.Socket, chunk: string): void {
    if (socket !== this.socket) return;
    this.received += chunk;
    let newline: number;
    while (socket === this.socket && (newline = this.received.indexOf("\n")) >= 0) {
      const line = this.received.slice(0, newline);
      this.received = this.received.slice(newline + 1);
      safely(this.hooks.log, "a line from the daemon", () => this.onLine(socket, line));
    }
    if (socket === this.socket && this.received.length > MAX_LINE_CHARS) {
      this.hooks.log("a line from the daemon is over 16 MiB; reconnecting");
      socket.destroy();
    }
  }

  private onLine(socket: net.Socket, raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.hooks.log(`ignored a line from the daemon that is not JSON: ${line.slice(0, 160)}`);
      return;
    }
    if (!isObject(message)) {
      this.hooks.log(`ignored a line from the daemon that is not an object: ${line.slice(0, 160)}`);
      return;
    }
    if (this.state === "attaching" && message.id === "attach" && message.type === undefined) {
      this.onAttachAnswer(socket, message);
    } else if (this.state === "attached") {
      this.hooks.onLine(message);
    } else {
      this.hooks.log(`ignored a line before the attach answer: ${line.slice(0, 160)}`);
    }
  }

  private onAttachAnswer(socket: net.Socket, answer: Json): void {
    this.clearAttachTimer();
    const params = this.attachingParams ?? {};
    if (isObject(answer.result)) {
      this.state = "attached";
      this.retryDelay = RETRY_FIRST_MS;
      this.lastFailure = "";
      this.attachedSessionID = typeof answer.result.sessionID === "string" ? answer.result.sessionID : undefined;
      this.holder = undefined;
      const kept = this.switchBuffer;
      this.switchBuffer = undefined;
      this.attachKept = kept;
      try {
        this.hooks.onAttached(params, answer.result);
      } finally {
        this.attachKept = undefined;
      }
      // After the attach's own lines (a mid-run agent_start): the run's events since the switch.
      for (const { line } of kept?.lines ?? []) {
        if (socket !== this.socket || this.state !== "attached") break;
        socket.write(line);
      }
      return;
    }
    // Refused (another uid, a pi too old, bad params): trying every 5 s would not change the
    // answer. The folder watch still tries once more when the daemon's socket is made anew.
    this.state = "refused";
    this.hooks.onRefused(isObject(answer.error) ? answer.error : { message: "the daemon refused the attach" });
    socket.end();
  }

  private onError(socket: net.Socket, error: Error): void {
    if (socket !== this.socket) return;
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    if (code !== this.lastFailure || this.state === "attached") {
      this.hooks.log(`connection to ${this.socketPath}: ${error.message}`);
    }
    this.lastFailure = code;
    // "close" follows.
  }

  private onClose(socket: net.Socket): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    this.clearAttachTimer();
    const wasAttached = this.state === "attached";
    if (this.state === "closed" || this.state === "refused") return;
    this.state = "idle";
    if (!wasAttached) {
      this.hooks.onOffline();
      this.scheduleRetry();
      return;
    }
    this.hooks.log("detached: the daemon closed the connection");
    this.hooks.onDetached();
    // The daemon closes an attached link when it goes away, and when a newer attach of the same
    // pi session replaces it (docs/EXTENSION.md), with nothing on the link to tell which. Its
    // `sessions` answer does: the session's `pid` is the pi attached now. Attaching again at
    // once would replace that pi, which would do the same to us, for ever (every attach resets
    // the back-off); so a link another pi took over waits (watchHolder) instead.
    const ask = ++this.holderAsk;
    this.askingHolder = true;
    safely(this.hooks.log, "asking who holds the session", () =>
      this.askHolder().then((holder) => {
        if (ask !== this.holderAsk || this.socket || this.state !== "idle" || this.suspended) return; // moved on meanwhile
        this.askingHolder = false;
        if (holder === undefined) this.scheduleRetry();
        else this.displace(holder);
      }),
    );
  }

  /**
   * The pid of another pi the daemon says holds the session last attached here; undefined when
   * none does (or the daemon does not answer: then it went away, and the retries find it back).
   */
  private async askHolder(): Promise<number | undefined> {
    const sessionID = this.attachedSessionID;
    if (!sessionID || socketTrustProblem(this.socketPath)) return undefined;
    let sessions: unknown;
    try {
      sessions = await controlRequest(this.socketPath, "sessions", {}, HOLDER_ASK_MS);
    } catch {
      return undefined;
    }
    const entry = Array.isArray(sessions) ? sessions.find((s) => isObject(s) && s.id === sessionID) : undefined;
    const pid = isObject(entry) ? entry.pid : undefined;
    // Our own pid: the daemon has not yet seen a link we ended ourselves; nobody took it over.
    return typeof pid === "number" && Number.isInteger(pid) && pid > 0 && pid !== process.pid ? pid : undefined;
  }

  private displace(holderPid: number): void {
    this.clearRetry();
    const told = this.state === "displaced" && this.holder === holderPid;
    this.state = "displaced";
    this.holder = holderPid;
    if (!told) {
      this.hooks.log(`pi ${holderPid} attached this session in another terminal: not taking it back until a prompt is typed here or it quits`);
      this.hooks.onDisplaced(holderPid);
    }
    this.watchHolder();
  }

  /**
   * Taken back only when the pi that took the session over is gone (or by takeBack/resume). Not
   * when the daemon shows the session detached: a /reload there detaches for a blink (a take
   * over then would be a race), and a /relay disconnect or /new there is that pi's business, not
   * a sign this one is the pi in use. Its process ending is unambiguous, and costs no daemon call.
   */
  private watchHolder(): void {
    this.clearHolderWatch();
    this.holderTimer = later(this.hooks.log, "holder watch", HOLDER_WATCH_MS, () => {
      this.holderTimer = undefined;
      if (this.state !== "displaced" || this.suspended) return;
      if (this.holderPid !== undefined && processRuns(this.holderPid)) {
        this.watchHolder();
        return;
      }
      // Gone: unless a third pi holds the session by now, this one attaches it again.
      const ask = ++this.holderAsk;
      return this.askHolder().then((holder) => {
        if (ask !== this.holderAsk || this.state !== "displaced" || this.suspended) return;
        if (holder !== undefined) {
          this.displace(holder);
          return;
        }
        this.hooks.log(`pi ${this.holderPid} is gone: attaching this session again`);
        this.state = "idle";
        this.retryDelay = RETRY_FIRST_MS;
        this.connect();
      });
    });
  }

  private clearHolderWatch(): void {
    if (this.holderTimer) clearTimeout(this.holderTimer);
    this.holderTimer = undefined;
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.state === "closed" || this.suspended) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
    this.retryTimer = later(this.hooks.log, "reconnect", delay, () => {
      this.retryTimer = undefined;
      this.watchFolder(); // the folder may have appeared since
      this.connect();
    });
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private clearAttachTimer(): void {
    if (this.attachTimer) clearTimeout(this.attachTimer);
    this.attachTimer = undefined;
  }

  /** Watches the daemon's folder so a daemon that (re)starts is found at once. */
  private watchFolder(): void {
    if (this.watcher || this.state === "closed") return;
    const folder = path.dirname(this.socketPath);
    const log = this.hooks.log;
    try {
      const watcher = fs.watch(folder, { persistent: false }, (_event, name) =>
        safely(log, "folder watch", () => this.onFolderChange(name)),
      );
      watcher.on("error", (error: Error) =>
        safely(log, "folder watch error", () => {
          log(`stopped watching ${folder}: ${error.message}`);
          watcher.close();
          if (this.watcher === watcher) this.watcher = undefined; // made again at the next retry
        }),
      );
      this.watcher = watcher;
    } catch {
      // The folder does not exist yet: the next retry watches again.
    }
  }

  private onFolderChange(name: string | Buffer | null): void {
    if (name !== null && String(name) !== path.basename(this.socketPath)) return;
    if (this.suspended) return;
    if (this.socket || (this.state !== "idle" && this.state !== "refused")) return;
    if (!fs.existsSync(this.socketPath)) return;
    this.retryDelay = RETRY_FIRST_MS; // a daemon is starting: a failed first try retries soon
    this.state = "idle";
    this.connect();
  }

  private write(socket: net.Socket, message: Json): boolean {
    const encoded = encodeLine(message, this.hooks.log);
    if (!encoded) return false;
    if (socket.writableLength > MAX_UNSENT_BYTES) {
      this.hooks.log("the daemon stopped reading (64 MiB unsent); reconnecting");
      socket.destroy();
      return false;
    }
    socket.write(encoded.line);
    return true;
  }

  private dropSocket(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.clearAttachTimer();
    if (!socket) return;
    try {
      socket.end(); // EOF tells the daemon at once; the rest is not worth waiting for
    } catch {
      // Already gone.
    }
    later(this.hooks.log, "socket teardown", SHUTDOWN_DESTROY_MS, () => socket.destroy());
  }
}

/** Whether a process of this pid runs (EPERM: it does, as another user's). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A one-off control call; resolves with its result, an object (else `{}`). */
export async function controlCall(socketPath: string, method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<Json> {
  const result = await controlRequest(socketPath, method, params, timeoutMs, signal);
  return isObject(result) ? result : {};
}

/** A one-off control call; resolves with its result as the daemon sent it (`sessions`: a list). */
function controlRequest(socketPath: string, method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const problem = socketTrustProblem(socketPath);
    if (problem) {
      reject(new Error(problem));
      return;
    }
    let received = "";
    let settled = false;
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      action();
    };
    const socket = net.createConnection({ path: socketPath });
    const timer = setTimeout(() => finish(() => reject(new Error(`no answer to ${method} within ${timeoutMs} ms`))), timeoutMs);
    timer.unref?.();
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ id: "1", method, params })}\n`));
    socket.on("data", (chunk: string) => {
      received += chunk;
      const newline = received.indexOf("\n");
      if (newline < 0) return;
      let answer: unknown;
      try {
        answer = JSON.parse(received.slice(0, newline));
      } catch {
        finish(() => reject(new Error("the daemon answered with a line that is not JSON")));
        return;
      }
      if (isObject(answer) && isObject(answer.error)) {
        const error = answer.error;
        finish(() => reject(new Error(`${error.code ?? "error"}: ${error.message ?? ""}`)));
      } else {
        finish(() => resolve(isObject(answer) ? answer.result : undefined));
      }
    });
    socket.on("error", (error: Error) => finish(() => reject(error)));
    socket.on("close", () => finish(() => reject(new Error("the daemon closed the connection"))));
    signal?.addEventListener("abort", () => finish(() => reject(new Error(`${method} no longer needed`))), { once: true });
  });
}

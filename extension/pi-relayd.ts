/**
 * pi-relayd's pi extension: attaches the interactive pi you run in a terminal to the pi-relayd
 * daemon, so chats can watch it, prompt it, answer its questions and stop it (docs/EXTENSION.md
 * is the contract with the daemon; its "registration protocol" section is what this file speaks).
 *
 * One file, Node built-ins only: pi loads it as it is, and so does plain Node for the tests.
 * The rules it lives by come from pi's extension API (shared/specs/pi-extension-api.md, §9):
 * every callback catches (pi has no uncaught-exception handler: a throw in a socket or timer
 * callback kills the user's pi), handlers never wait on the network (pi awaits them in turn and
 * the terminal only redraws after them), and nothing is ever written to stdout or stderr.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

export const EXTENSION_VERSION = "0.1.0";

/** The first pi that fires `session_start` after its terminal UI is up. */
export const MIN_PI_VERSION = "0.58.1";

const STATUS_KEY = "pi-relayd";
/** Claimed by the one loaded copy that is active (the extension may be loaded twice). */
const ACTIVE_KEY = Symbol.for("pi-relayd.extension.active");

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
/** A daemon that accepts the connection but never answers the attach is given up on. */
const ATTACH_TIMEOUT_MS = 10_000;
const TOOL_UPDATE_INTERVAL_MS = 500;
/** How long a prompt sent while idle may take to start its run before the next one goes. */
const PROMPT_START_TIMEOUT_MS = 10_000;
/** How long a prompt queued into a busy pi may take to pass pi's `input` stage. */
const PROMPT_QUEUED_TIMEOUT_MS = 2000;
/** pi has no event for thinking-level or name changes made in the terminal: they are polled. */
const SESSION_INFO_POLL_MS = 2000;
const ABORT_IDLE_WAIT_MS = 5000;
const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** A daemon that stops reading while pi streams would make Node buffer without end. */
const MAX_UNSENT_BYTES = 64 * 1024 * 1024;
const LOG_MAX_BYTES = 1024 * 1024;
/** session_shutdown ends the connection politely, but never waits for the network longer. */
const SHUTDOWN_DESTROY_MS = 200;

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];

type Json = Record<string, any>;
type Log = (message: string) => void;
type Timer = ReturnType<typeof setTimeout>;

// ---------------------------------------------------------------------------------------------
// Small helpers

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Runs a callback that pi does not protect (socket, timer, watcher): it must never throw. */
export function safely(log: Log, what: string, action: () => unknown): void {
  try {
    const result = action();
    if (result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(undefined, (error) => log(`${what} failed: ${describe(error)}`));
    }
  } catch (error) {
    try {
      log(`${what} failed: ${describe(error)}`);
    } catch {
      // Nothing left to do: logging itself failed.
    }
  }
}

/** A timer that neither keeps the process alive nor lets its callback throw. */
export function later(log: Log, what: string, ms: number, action: () => unknown): Timer {
  const timer = setTimeout(() => safely(log, what, action), ms);
  timer.unref?.();
  return timer;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `PI_RELAYD_HOME`, else `~/.pi-relayd`, as the daemon and the CLI find it. */
function relaydHome(): string {
  const home = process.env.PI_RELAYD_HOME;
  if (home && home.length > 0) return path.resolve(home);
  return path.join(os.homedir(), ".pi-relayd");
}

/**
 * Appends to `$PI_RELAYD_HOME/logs/extension.log`, only when the daemon made its logs folder:
 * without a daemon nobody reads it. Kept to about 1 MiB (one older file beside it).
 */
function fileLogger(): Log {
  return (message: string) => {
    try {
      const folder = path.join(relaydHome(), "logs");
      if (!fs.existsSync(folder)) return;
      const file = path.join(folder, "extension.log");
      try {
        if (fs.statSync(file).size > LOG_MAX_BYTES) fs.renameSync(file, `${file}.1`);
      } catch {
        // No log yet.
      }
      fs.appendFileSync(file, `${new Date().toISOString()} pid ${process.pid}: ${message}\n`, { mode: 0o600 });
    } catch {
      // Logging must never hurt pi.
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Where we run

/** pi-relayd's own `pi --mode rpc` children load a globally installed copy too: they stay out. */
export function isPassiveProcess(argv: readonly string[], env: Record<string, string | undefined>): boolean {
  if (env.PI_RELAYD_CHILD !== undefined) return true;
  for (let index = 0; index + 1 < argv.length; index++) {
    if (argv[index] === "--mode" && argv[index + 1] === "rpc") return true;
  }
  return false;
}

/** Takes the process-wide claim; false when another loaded copy holds it. */
function claimActive(token: object): boolean {
  const global = globalThis as any;
  if (global[ACTIVE_KEY]) return false;
  global[ACTIVE_KEY] = token;
  return true;
}

/** Gives the claim back, so the copy `/reload` loads next can take over. */
function releaseActive(token: object): void {
  const global = globalThis as any;
  if (global[ACTIVE_KEY] === token) delete global[ACTIVE_KEY];
}

// ---------------------------------------------------------------------------------------------
// pi's version (pi offers no API for it)

/**
 * npm installs run `<package>/dist/cli.js`, so pi's package.json is one folder above the
 * script; the standalone build keeps a copy beside the executable. Null when neither is there.
 */
export function readPiVersion(argv: readonly string[] = process.argv, execPath: string = process.execPath): string | null {
  const candidates: string[] = [];
  const script = argv[1];
  if (script) {
    let real = script;
    try {
      real = fs.realpathSync(script); // `pi` on the PATH is usually a symlink to dist/cli.js
    } catch {
      // Keep the path as given.
    }
    candidates.push(path.join(path.dirname(real), "..", "package.json"));
  }
  candidates.push(path.join(path.dirname(execPath), "package.json"));
  for (const file of candidates) {
    const version = piVersionIn(file);
    if (version) return version;
  }
  return null;
}

function piVersionIn(file: string): string | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
    // The folder above a script can belong to anything: only pi's own manifest counts.
    const isPi = isObject(manifest.piConfig) || String(manifest.name ?? "").endsWith("pi-coding-agent");
    if (isPi && typeof manifest.version === "string") return manifest.version;
  } catch {
    // Not there, or not JSON.
  }
  return null;
}

/** Dotted versions compared by number; a pre-release suffix is ignored. Null if unparsable. */
export function isOlderVersion(version: string, minimum: string): boolean | null {
  const parts = (text: string): number[] | null => {
    const core = text.trim().replace(/^v/, "").split("-")[0];
    const numbers = core.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : NaN));
    return numbers.length > 0 && numbers.every((n) => !Number.isNaN(n)) ? numbers : null;
  };
  const have = parts(version);
  const need = parts(minimum);
  if (!have || !need) return null;
  for (let index = 0; index < Math.max(have.length, need.length); index++) {
    const left = have[index] ?? 0;
    const right = need[index] ?? 0;
    if (left !== right) return left < right;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The connection to the daemon

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

type LinkState = "idle" | "connecting" | "attaching" | "attached" | "refused" | "closed";

interface LinkHooks {
  /** The attach request's params, read when the connection is made. */
  attachParams(): Json;
  onAttached(params: Json, result: Json): void;
  onRefused(error: Json): void;
  /** A connection that was attached ended. */
  onDetached(): void;
  /** A try to connect or attach failed; another follows. */
  onOffline(): void;
  /** The socket or its folder is not safe to connect to (socketTrustProblem); tried again later. */
  onUntrusted(problem: string): void;
  /** Every line after the attach answer. */
  onLine(message: Json): void;
  log: Log;
}

/**
 * One Unix-socket connection to the daemon at a time, attached with the `attach` request, and
 * made again whenever it ends: after 250 ms, doubling to at most 5 s, and at once when the
 * socket appears in the daemon's folder. Lines are JSON, one per line.
 */
class DaemonLink {
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

  constructor(socketPath: string, hooks: LinkHooks) {
    this.socketPath = socketPath;
    this.hooks = hooks;
  }

  get isAttached(): boolean {
    return this.state === "attached";
  }

  start(): void {
    this.watchFolder();
    this.connect();
  }

  /** Ends this connection and attaches anew at once: pi switched to another session. */
  restart(): void {
    if (this.state === "closed") return;
    this.dropSocket();
    this.state = "idle";
    this.retryDelay = RETRY_FIRST_MS;
    this.connect();
  }

  /** Sends a line when attached; dropped otherwise (the daemon reports what it missed). */
  send(message: Json): boolean {
    if (this.state !== "attached" || !this.socket) return false;
    return this.write(this.socket, message);
  }

  /** Closes everything without waiting for the network. */
  close(): void {
    this.state = "closed";
    this.clearRetry();
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
    if (this.state === "closed" || this.socket) return;
    this.clearRetry();
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
      this.hooks.onAttached(params, answer.result);
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
    if (wasAttached) {
      this.hooks.log("detached: the daemon closed the connection");
      this.hooks.onDetached();
    } else {
      this.hooks.onOffline();
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.state === "closed") return;
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
    if (this.socket || (this.state !== "idle" && this.state !== "refused")) return;
    if (!fs.existsSync(this.socketPath)) return;
    this.retryDelay = RETRY_FIRST_MS; // a daemon is starting: a failed first try retries soon
    this.state = "idle";
    this.connect();
  }

  private write(socket: net.Socket, message: Json): boolean {
    let line: string;
    try {
      line = `${JSON.stringify(message)}\n`;
    } catch (error) {
      this.hooks.log(`could not encode a ${message.type ?? message.method} line: ${describe(error)}`);
      return false;
    }
    if (socket.writableLength > MAX_UNSENT_BYTES) {
      this.hooks.log("the daemon stopped reading (64 MiB unsent); reconnecting");
      socket.destroy();
      return false;
    }
    socket.write(line);
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

// ---------------------------------------------------------------------------------------------
// Approval gates (docs/CONFIG.md, "approvals"; docs/EXTENSION.md, "Approval gates")

export interface GateRule {
  name: string;
  tools: string[];
  command?: string;
  paths?: string[];
  outsideCwd?: boolean;
}

export interface Gates {
  timeoutSeconds: number;
  rules: GateRule[];
}

/** The gates the daemon sent (attach result) or set for a child (`PI_RELAYD_APPROVALS`). */
export function parseGates(value: unknown): Gates | undefined {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!isObject(parsed) || !Array.isArray(parsed.rules)) return undefined;
  const rules = parsed.rules.filter(
    (rule: unknown): rule is GateRule => isObject(rule) && typeof rule.name === "string" && Array.isArray(rule.tools),
  );
  if (rules.length === 0) return undefined;
  const timeoutSeconds = typeof parsed.timeoutSeconds === "number" && parsed.timeoutSeconds > 0 ? parsed.timeoutSeconds : 300;
  return { timeoutSeconds, rules };
}

/** `~` is the home folder; a path relative to the session's folder is taken from there. */
function resolvePath(given: string, cwd: string, home: string): string {
  const expanded = given === "~" ? home : given.startsWith("~/") ? path.join(home, given.slice(2)) : given;
  return path.resolve(cwd, expanded);
}

/**
 * A glob as a regular expression on a resolved path: `**` crosses folders, `*` and `?` stay
 * within one, `~` is the home folder, a relative glob with a `/` is taken from the session's
 * folder, and one without a `/` matches the file's name in any folder (`.env*`).
 */
export function globToRegExp(glob: string, cwd: string, home: string): RegExp {
  const byName = !glob.includes("/");
  const full = byName ? glob : resolvePath(glob, cwd, home);
  let source = "";
  for (let index = 0; index < full.length; index++) {
    const char = full[index];
    if (char === "*" && full[index + 1] === "*") {
      source += ".*";
      index++;
      if (full[index + 1] === "/") index++; // `**/` also matches no folder at all
    } else if (char === "*") {
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else {
      source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
    }
  }
  return new RegExp(byName ? `(^|/)${source}$` : `^${source}$`);
}

/** The first rule a call matches: one of its tools, and any of its conditions (none: every call). */
export function matchingRule(gates: Gates, toolName: string, input: Json, cwd: string, home: string = os.homedir()): GateRule | undefined {
  const target = typeof input?.path === "string" ? input.path : typeof input?.file_path === "string" ? input.file_path : undefined;
  const resolved = target === undefined ? undefined : resolvePath(target, cwd, home);
  for (const rule of gates.rules) {
    if (!rule.tools.includes(toolName)) continue;
    const conditions = [rule.command !== undefined, (rule.paths?.length ?? 0) > 0, rule.outsideCwd === true];
    if (!conditions.some(Boolean)) return rule;
    if (rule.command !== undefined && typeof input?.command === "string") {
      try {
        if (new RegExp(rule.command).test(input.command)) return rule;
      } catch {
        return rule; // a pattern this engine cannot read gates rather than lets through
      }
    }
    if (resolved !== undefined && rule.paths?.some((glob) => globToRegExp(glob, cwd, home).test(resolved))) return rule;
    if (resolved !== undefined && rule.outsideCwd === true) {
      const relative = path.relative(path.resolve(cwd), resolved);
      if (relative.startsWith("..") || path.isAbsolute(relative)) return rule;
    }
  }
  return undefined;
}

/**
 * One request on a connection of its own to the daemon's control socket, for a call that may
 * wait minutes (an approval): the attach connection carries pi's RPC and must not wait on it.
 */
export function controlCall(socketPath: string, method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<Json> {
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
        finish(() => resolve(isObject(answer) && isObject(answer.result) ? answer.result : {}));
      }
    });
    socket.on("error", (error: Error) => finish(() => reject(error)));
    socket.on("close", () => finish(() => reject(new Error("the daemon closed the connection"))));
    signal?.addEventListener("abort", () => finish(() => reject(new Error(`${method} no longer needed`))), { once: true });
  });
}

type GateVerdict = { block: true; reason: string } | undefined;

const APPROVE_ONCE = "Approve once";
const APPROVE_FOR_SESSION = "Approve for session";
const DENY = "Deny";
const GATE_CHOICES = [APPROVE_ONCE, APPROVE_FOR_SESSION, DENY];

/**
 * Holds gated calls in pi's `tool_call` hook until a person decides: the daemon asks the chats;
 * in a terminal session the terminal asks too, and the first answer wins. Fails closed: a child
 * whose daemon cannot be reached is denied; a terminal that cannot reach it asks only at the
 * terminal.
 */
export class Gatekeeper {
  gates: Gates | undefined;
  /** The daemon's id for this session, once known. */
  sessionID: string | undefined;
  private readonly socketPath: string;
  private readonly log: Log;
  /** An interactive pi, whose terminal can answer too; false in a pi-relayd child (RPC). */
  private readonly terminal: boolean;
  /** Rules approved for the session here, for when the daemon cannot be asked. */
  private readonly approvedHere = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(socketPath: string, log: Log, terminal: boolean) {
    this.socketPath = socketPath;
    this.log = log;
    this.terminal = terminal;
  }

  /** pi's tool_call: undefined lets the call run; a block carries the reason the agent reads. */
  check(event: Json, ctx: ExtensionContext): Promise<GateVerdict> | GateVerdict {
    const gates = this.gates;
    if (!gates) return undefined;
    const rule = matchingRule(gates, String(event.toolName), isObject(event.input) ? event.input : {}, ctx.cwd);
    if (!rule) return undefined;
    // One question at a time, as pi shows one dialog at a time.
    const run = this.chain.then(
      () => this.decide(rule, gates, event, ctx),
      () => this.decide(rule, gates, event, ctx),
    );
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async decide(rule: GateRule, gates: Gates, event: Json, ctx: ExtensionContext): Promise<GateVerdict> {
    const blocked = (why: string): GateVerdict => ({ block: true, reason: `pi-relayd's approval gate "${rule.name}" denied ${event.toolName}: ${why}` });
    if (this.terminal && !this.sessionID && this.approvedHere.has(rule.name)) return undefined;
    const id = randomUUID();
    const params: Json = { session: this.sessionID, id, toolName: event.toolName, input: event.input, rule: rule.name };
    const waitMs = (gates.timeoutSeconds + 30) * 1000;
    // Let go once the terminal decides: a waiting connection would keep pi's event loop busy.
    const asking = new AbortController();
    const asked: Promise<Json | Error> = this.sessionID
      ? controlCall(this.socketPath, "approval", params, waitMs, asking.signal).catch((error: Error) => error)
      : Promise.resolve(new Error("not attached to pi-relayd"));
    if (!this.terminal) {
      // A pi-relayd child: only the chats can answer (its "UI" is the daemon's RPC).
      const answer = await asked;
      if (answer instanceof Error) {
        this.log(`approval for ${event.toolName} (rule ${rule.name}) failed: ${answer.message}`);
        return blocked(`pi-relayd cannot be reached (${answer.message}), so it was denied`);
      }
      return answer.allowed === true ? undefined : blocked(String(answer.reason || answer.outcome || "denied"));
    }
    const dialog = new AbortController();
    const title = `pi-relayd: approve ${event.toolName}? (rule ${rule.name})\n${previewInput(event.input)}`;
    const terminal = ctx.ui
      .select(title, GATE_CHOICES, { signal: dialog.signal, timeout: gates.timeoutSeconds * 1000 })
      .then((value: string | undefined) => ({ from: "terminal" as const, value }));
    const first = await Promise.race([terminal, asked.then((answer) => ({ from: "daemon" as const, answer }))]);
    if (first.from === "daemon" && !(first.answer instanceof Error) && !["terminal_only", "abandoned"].includes(String(first.answer.outcome))) {
      dialog.abort(); // the chats decided: the terminal's copy goes
      return first.answer.allowed === true ? undefined : blocked(String(first.answer.reason || first.answer.outcome));
    }
    // The terminal decides: it answered first, or the daemon cannot ask anyone else.
    const value = first.from === "terminal" ? first.value : (await terminal).value;
    const choice = value === APPROVE_ONCE || value === APPROVE_FOR_SESSION ? value : DENY;
    asking.abort();
    if (first.from === "terminal" && this.sessionID) {
      // The chats' copy closes, and the daemon logs who decided.
      controlCall(this.socketPath, "answer", { session: this.sessionID, id, value: choice, by: "the terminal" }, 10_000).catch(() =>
        controlCall(this.socketPath, "approval-decided", { ...params, choice }, 10_000).catch(() => undefined),
      );
    } else if (this.sessionID) {
      controlCall(this.socketPath, "approval-decided", { ...params, choice }, 10_000).catch(() => undefined);
    }
    if (choice === APPROVE_FOR_SESSION) this.approvedHere.add(rule.name);
    return choice === DENY ? blocked(value === undefined ? "nobody approved it at the terminal" : "denied at the terminal") : undefined;
  }
}

/** A call's arguments for the terminal's dialog: the command or path, else JSON, shortened. */
function previewInput(input: unknown): string {
  const object = isObject(input) ? input : {};
  const text = typeof object.command === "string" ? object.command : typeof object.path === "string" ? object.path : JSON.stringify(object);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Agent tools: the agent reaches the chats that watch its session

export const RELAY_TOOLS = ["relay_notify", "relay_send_file", "spawn_session"];

/**
 * Registers relay_notify, relay_send_file and spawn_session (each only if no tool of its name
 * exists). Each asks the daemon on a connection of its own and fails with the daemon's reason
 * (no chat watches the session, a path outside the workspace, the spawn limit) as the tool's
 * error, which the agent reads.
 */
export function registerRelayTools(pi: ExtensionAPI, socketPath: string, sessionID: () => string | undefined): string[] {
  const existing = new Set(pi.getAllTools().map((tool: any) => tool.name));
  const call = async (method: string, params: Json): Promise<Json> => {
    const session = sessionID();
    if (!session) throw new Error("this pi is not attached to pi-relayd, so no chat can be reached");
    try {
      return await controlCall(socketPath, method, { ...params, session }, 90_000);
    } catch (error) {
      throw new Error(`pi-relayd: ${describe(error)}`);
    }
  };
  const tools: Json[] = [
    {
      name: "relay_notify",
      label: "Notify the chats",
      description:
        "Post a short progress message to the chat(s) watching this session (pi-relayd), without ending your turn. " +
        "Use it sparingly, for milestones the user would want to hear about while you keep working.",
      parameters: { type: "object", properties: { text: { type: "string", description: "The message, one or two lines." } }, required: ["text"] },
      async execute(_id: string, params: any) {
        const result = await call("relay-notify", { text: String(params?.text ?? "") });
        return { content: [{ type: "text", text: `posted to ${result.posted ?? 0} chat(s)` }], details: result };
      },
    },
    {
      name: "relay_send_file",
      label: "Send a file to the chat",
      description:
        "Send a file from this session's workspace to the chat that asked for the current work (pi-relayd). " +
        "The path is relative to the workspace; files outside it, and secrets such as .env or keys, are refused.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "The file, relative to the workspace." },
          caption: { type: "string", description: "A line to show with it." },
        },
        required: ["path"],
      },
      async execute(_id: string, params: any) {
        const fields: Json = { path: String(params?.path ?? "") };
        if (typeof params?.caption === "string") fields.caption = params.caption;
        const result = await call("relay-file", fields);
        return { content: [{ type: "text", text: `sent ${result.sent ?? fields.path} to ${result.chats ?? 0} chat(s)` }], details: result };
      },
    },
    {
      name: "spawn_session",
      label: "Spawn a session",
      description:
        "Start a new, separate pi session in a folder, with its own thread in the chat that asked for the current work (pi-relayd), " +
        "optionally with a first task. Use it to hand off independent work; the new session does not share your context. " +
        "Returns the new session's id and name.",
      parameters: {
        type: "object",
        properties: {
          cwd: { type: "string", description: "The folder to work in: absolute, ~/..., or relative to this session's folder." },
          name: { type: "string", description: "A short name for the session and its thread." },
          prompt: { type: "string", description: "The new session's first task; leave it out to start it idle." },
        },
        required: ["cwd"],
      },
      async execute(_id: string, params: any) {
        const fields: Json = { cwd: String(params?.cwd ?? "") };
        if (typeof params?.name === "string" && params.name) fields.name = params.name;
        if (typeof params?.prompt === "string" && params.prompt) fields.prompt = params.prompt;
        const result = await call("spawn-session", fields);
        const where = result.thread ? "in a new thread" : `without a thread: ${result.note ?? "none could be opened"}`;
        const task = result.prompted ? ", working on its first task" : ", idle";
        return {
          content: [{ type: "text", text: `started session ${result.name} (id ${result.session}) in ${result.cwd} ${where}${task}` }],
          details: result,
        };
      },
    },
  ];
  const registered: string[] = [];
  for (const tool of tools) {
    if (existing.has(tool.name)) continue;
    pi.registerTool(tool as any);
    registered.push(tool.name);
  }
  return registered;
}

// ---------------------------------------------------------------------------------------------
// Events out, in pi's RPC shapes

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
class ToolUpdateThrottle {
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

// ---------------------------------------------------------------------------------------------
// Prompts in, one at a time

interface OutgoingPrompt {
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
class PromptSender {
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

// ---------------------------------------------------------------------------------------------
// Questions: the ask_user tool

const ASK_USER_PARAMETERS = {
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
class Questions {
  private readonly open = new Map<string, OpenQuestion>();
  private chain: Promise<unknown> = Promise.resolve();
  private readonly link: () => DaemonLink | undefined;
  /** Whether a chat watches the session now (the daemon's relay_status says). */
  private readonly watched: () => boolean;

  constructor(link: () => DaemonLink | undefined, watched: () => boolean) {
    this.link = link;
    this.watched = watched;
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
    try {
      // pi's editor cannot be closed from outside: a multi-line question waits in the chats only.
      const terminal: Promise<string | undefined> = multiline
        ? new Promise(() => {})
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

// ---------------------------------------------------------------------------------------------
// The relay: pi's side of the connection

interface SessionInfo {
  sessionFile: string | null;
  name: string | null;
  model: string | null;
  thinkingLevel: string | null;
}

function modelName(model: any): string | null {
  if (!model || typeof model.id !== "string") return null;
  return typeof model.provider === "string" ? `${model.provider}/${model.id}` : model.id;
}

class CommandError extends Error {}

/** The daemon's command names this extension carries out, each with its handler's name. */
const COMMANDS: Record<string, string> = {
  prompt: "prompt",
  steer: "steer",
  follow_up: "followUp",
  abort: "abort",
  compact: "compact",
  set_model: "setModel",
  set_thinking_level: "setThinkingLevel",
  set_session_name: "setSessionName",
  get_state: "getState",
  get_last_assistant_text: "getLastAssistantText",
  get_session_stats: "getSessionStats",
  new_session: "newSession",
};

class Relay {
  private readonly pi: ExtensionAPI;
  private readonly log: Log;
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
  private compacting = false;
  private toolRegistered = false;
  private stopped = false;
  private readonly sender: PromptSender;
  private readonly throttle: ToolUpdateThrottle;
  private readonly questions: Questions;
  /** The messengers whose chats watch this session, from the daemon's relay_status. */
  private watchers: string[] = [];
  /** Approval gates, with the rules the daemon sent at the attach. */
  readonly gatekeeper: Gatekeeper;
  /** relay_notify, relay_send_file and spawn_session, offered to the model only while a chat watches. */
  private relayTools: string[] = [];

  constructor(pi: ExtensionAPI, log: Log) {
    this.pi = pi;
    this.log = log;
    this.gatekeeper = new Gatekeeper(path.join(relaydHome(), "relayd.sock"), log, true);
    this.sender = new PromptSender(pi, () => this.ctx?.isIdle() ?? true, log);
    this.throttle = new ToolUpdateThrottle((event) => this.link?.send(event), log);
    this.questions = new Questions(
      () => this.link,
      () => this.watchers.length > 0,
    );
  }

  // --- pi's lifecycle

  start(ctx: ExtensionContext): void {
    this.ctx = ctx;
    if (!ctx.hasUI) return; // print and JSON modes: no terminal session to attach
    this.piSessionID = ctx.sessionManager.getSessionId();
    safely(this.log, "registering ask_user", () => this.registerAskTool());
    safely(this.log, "registering the relay tools", () => {
      this.relayTools = registerRelayTools(this.pi, path.join(relaydHome(), "relayd.sock"), () => this.gatekeeper.sessionID);
      this.showRelayTools(false); // until a chat watches
    });
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
      onUntrusted: (problem) => this.showStatus(`relay: refused (${problem})`, true),
      onLine: (message) => this.onLine(message),
      log: this.log,
    });
    this.link.start(); // in the background: session_start must not wait for the daemon
  }

  stop(): void {
    this.stopped = true;
    this.link?.close();
    this.link = undefined;
    this.stopInfoPoll();
    this.throttle.clear();
    this.sender.clear();
    this.questions.closeAll("pi is shutting down");
  }

  /** `/new`, `/resume`, `/fork`: the same pi, another pi session; attach that one. */
  onSessionChanged(ctx: ExtensionContext): void {
    this.ctx = ctx;
    const current = ctx.sessionManager.getSessionId();
    if (current === this.piSessionID) return;
    // Several switches before the daemon hears of them: it knows the first one left.
    this.replacedPiSessionID ??= this.piSessionID;
    this.piSessionID = current;
    this.sender.clear();
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
    if (event.type === "agent_start") this.sender.onAgentStart();
    if (event.type === "tool_execution_update") {
      const relayed = relayedEvent(event);
      if (relayed && this.link?.isAttached) this.throttle.update(relayed);
      return;
    }
    if (event.type === "tool_execution_end") this.throttle.end(event.toolCallId);
    if (event.type === "agent_end") this.throttle.flushAll();
    const relayed = relayedEvent(event);
    if (relayed) this.link?.send(relayed);
    if (event.type === "message_end" || event.type === "agent_end") this.checkSessionFileSoon();
  }

  /** pi's `input` event: terminal prompts go to the chats; our own are recognised, not echoed. */
  onInput(event: Json): void {
    const text = typeof event.text === "string" ? event.text : "";
    if (event.source === "interactive") {
      const images = Array.isArray(event.images) ? event.images.length : 0;
      this.link?.send({ type: "terminal_input", text, images });
    } else if (event.source === "extension") {
      this.sender.onExtensionInput(text);
    }
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
    // Kept after a detach: the terminal alone then decides what the rules gate.
    this.gatekeeper.gates = parseGates(result.approvals);
    this.lastInfo = {
      sessionFile: params.sessionFile,
      name: params.name,
      model: params.model,
      thinkingLevel: params.thinkingLevel,
    };
    this.sessionFileExists = typeof params.sessionFile === "string" && fs.existsSync(params.sessionFile);
    this.showStatus("relay: attached");
    // Attached in the middle of a run (the daemon restarted, or pi switched session while
    // busy): the daemon heard no agent_start, so it would take the session for idle and show
    // nothing of the rest of the run. It hears one now; the run's remaining events follow.
    if (this.ctx && !this.ctx.isIdle()) this.link?.send({ type: "agent_start" });
    this.questions.resend();
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
    safely(this.log, "hiding the relay tools", () => this.showRelayTools(false));
    this.gatekeeper.sessionID = undefined;
    this.stopInfoPoll();
    this.throttle.clear();
    this.showStatus("relay: offline");
  }

  private onLine(message: Json): void {
    const type = message.type;
    if (type === "relay_status") return this.onRelayStatus(message);
    if (type === "extension_ui_response") return this.questions.onResponse(message);
    if (typeof type !== "string") {
      this.log(`ignored a line from the daemon without a type: ${JSON.stringify(message).slice(0, 160)}`);
      return;
    }
    safely(this.log, `command ${type}`, () => this.runCommand(message));
  }

  private onRelayStatus(message: Json): void {
    const watchers = Array.isArray(message.watchers) ? message.watchers.filter((w: unknown) => typeof w === "string") : [];
    this.watchers = watchers;
    this.showRelayTools(watchers.length > 0);
    this.showStatus(watchers.length > 0 ? `relay: watching on ${watchers.join(", ")}` : "relay: attached");
  }

  // --- commands from the daemon

  private async runCommand(command: Json): Promise<void> {
    const type = String(command.type);
    const respond = (success: boolean, data?: unknown, error?: string) => {
      const response: Json = { type: "response", id: command.id, command: type, success };
      if (data !== undefined) response.data = data;
      if (error !== undefined) response.error = error;
      this.link?.send(response);
    };
    const handler = COMMANDS[type];
    if (!handler) {
      respond(false, undefined, `Unknown command: ${type} (the pi-relayd extension of a terminal session does not do it)`);
      return;
    }
    try {
      const data = await (this as any)[handler](command);
      respond(true, data);
    } catch (error) {
      if (!(error instanceof CommandError)) this.log(`command ${type} failed: ${describe(error)}`);
      respond(false, undefined, describe(error));
    }
  }

  private get context(): ExtensionContext {
    if (!this.ctx) throw new CommandError("pi's session is not ready yet");
    return this.ctx;
  }

  /** The user message's content: the text, then the images as pi's image blocks. */
  private promptContent(command: Json): OutgoingPrompt["content"] {
    if (typeof command.message !== "string") throw new CommandError(`${command.type} needs a message (a string)`);
    const images = Array.isArray(command.images) ? command.images.filter(isObject) : [];
    if (images.length === 0) return command.message;
    return [
      { type: "text", text: command.message },
      ...images.map((image: Json) => ({ type: "image", data: image.data, mimeType: image.mimeType })),
    ];
  }

  private prompt(command: Json): undefined {
    const content = this.promptContent(command);
    const behavior = command.streamingBehavior;
    const busy = !this.context.isIdle() || this.sender.isBusy;
    if (busy && behavior !== "steer" && behavior !== "followUp") {
      // As pi's RPC mode answers a prompt while it streams.
      throw new CommandError(
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.",
      );
    }
    // deliverAs is ignored by an idle pi; it matters when pi got busy before the send.
    this.sender.enqueue({ content, text: command.message, deliverAs: behavior === "steer" ? "steer" : "followUp" });
    return undefined;
  }

  private steer(command: Json): undefined {
    this.sender.enqueue({ content: this.promptContent(command), text: command.message, deliverAs: "steer" });
    return undefined;
  }

  private followUp(command: Json): undefined {
    this.sender.enqueue({ content: this.promptContent(command), text: command.message, deliverAs: "followUp" });
    return undefined;
  }

  /** pi's abort answers once the agent is idle; ctx.abort() cannot be awaited, so we poll. */
  private async abort(): Promise<undefined> {
    const ctx = this.context;
    ctx.abort();
    const deadline = Date.now() + ABORT_IDLE_WAIT_MS;
    while (!ctx.isIdle() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return undefined;
  }

  private compact(command: Json): Promise<unknown> {
    const ctx = this.context;
    const customInstructions = typeof command.customInstructions === "string" ? command.customInstructions : undefined;
    this.compacting = true;
    return new Promise((resolve, reject) => {
      const done = () => {
        this.compacting = false;
      };
      try {
        ctx.compact({
          customInstructions,
          onComplete: (result: unknown) => {
            done();
            resolve(result);
          },
          onError: (error: unknown) => {
            done();
            reject(new CommandError(describe(error)));
          },
        } as any);
      } catch (error) {
        done();
        reject(new CommandError(describe(error)));
      }
    });
  }

  private async setModel(command: Json): Promise<unknown> {
    const { provider, modelId } = command;
    if (typeof provider !== "string" || typeof modelId !== "string") {
      throw new CommandError("set_model needs provider and modelId");
    }
    const model = this.context.modelRegistry.find(provider, modelId);
    if (!model) throw new CommandError(`Model not found: ${provider}/${modelId}`);
    const switched = await this.pi.setModel(model);
    if (!switched) throw new CommandError(`No API key for ${provider}/${modelId}`);
    this.sendSessionInfoIfChanged();
    return model;
  }

  private setThinkingLevel(command: Json): undefined {
    if (!THINKING_LEVELS.includes(command.level)) {
      throw new CommandError(`Invalid thinking level: ${command.level} (one of ${THINKING_LEVELS.join(", ")})`);
    }
    this.pi.setThinkingLevel(command.level);
    this.sendSessionInfoIfChanged();
    return undefined;
  }

  private setSessionName(command: Json): undefined {
    const name = typeof command.name === "string" ? command.name.trim() : "";
    if (!name) throw new CommandError("Session name cannot be empty");
    this.pi.setSessionName(name);
    this.sendSessionInfoIfChanged();
    return undefined;
  }

  private newSession(): never {
    throw new CommandError(
      "A terminal session cannot start a new conversation from outside: type /new in pi's terminal.",
    );
  }

  /** pi's get_state, as far as an extension can see it (steeringMode and friends it cannot). */
  private getState(): Json {
    const ctx = this.context;
    const manager = ctx.sessionManager;
    const state: Json = {
      model: ctx.model,
      thinkingLevel: this.pi.getThinkingLevel(),
      isStreaming: !ctx.isIdle(),
      isCompacting: this.compacting,
      sessionFile: manager.getSessionFile(),
      sessionId: manager.getSessionId(),
      sessionName: this.pi.getSessionName(),
      messageCount: this.branchMessages().length,
      pendingMessageCount: this.sender.queued + (ctx.hasPendingMessages() ? 1 : 0),
    };
    return state;
  }

  private getLastAssistantText(): Json {
    const messages = this.branchMessages();
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index];
      if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
      const text = message.content
        .filter((block: Json) => block?.type === "text" && typeof block.text === "string")
        .map((block: Json) => block.text)
        .join("");
      if (text) return { text };
    }
    return {}; // pi leaves `text` out when there is none
  }

  private getSessionStats(): Json {
    const manager = this.context.sessionManager;
    const messages = this.branchMessages();
    const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    let cost = 0;
    let toolCalls = 0;
    for (const message of messages) {
      if (message.role !== "assistant") continue;
      if (Array.isArray(message.content)) toolCalls += message.content.filter((b: Json) => b?.type === "toolCall").length;
      const usage = isObject(message.usage) ? message.usage : {};
      for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
        tokens[key] += Number(usage[key]) || 0;
      }
      cost += Number(usage.cost?.total) || 0;
    }
    tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
    const count = (role: string) => messages.filter((m) => m.role === role).length;
    return {
      sessionFile: manager.getSessionFile(),
      sessionId: manager.getSessionId(),
      userMessages: count("user"),
      assistantMessages: count("assistant"),
      toolCalls,
      toolResults: count("toolResult"),
      totalMessages: messages.length,
      tokens,
      cost,
    };
  }

  /** The messages on the session's current branch. */
  private branchMessages(): Json[] {
    const manager = this.context.sessionManager as any;
    const entries: unknown[] = typeof manager.getBranch === "function" ? manager.getBranch() : manager.getEntries();
    return entries
      .filter((entry): entry is Json => isObject(entry) && entry.type === "message" && isObject(entry.message))
      .map((entry) => entry.message);
  }

  // --- the tool

  /** Offers the relay tools to the model, or hides them (pi rebuilds its system prompt). */
  private showRelayTools(shown: boolean): void {
    if (this.relayTools.length === 0) return;
    const active: string[] = this.pi.getActiveTools();
    const others = active.filter((name) => !this.relayTools.includes(name));
    const next = shown ? [...others, ...this.relayTools] : others;
    if (next.length !== active.length || next.some((name, index) => name !== active[index])) this.pi.setActiveTools(next);
  }

  private registerAskTool(): void {
    if (this.toolRegistered) return;
    this.toolRegistered = true;
    // Someone else's ask_user wins: two tools of one name would confuse the model.
    if (this.pi.getAllTools().some((tool: any) => tool.name === "ask_user")) {
      this.log("another extension has an ask_user tool; not registering ours");
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

// ---------------------------------------------------------------------------------------------
// The factory

const RELAYED_EVENTS = [
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
 * pi's tool_call hook for the gates. A throw would block the call with our error as its text:
 * failing closed, but with a clear reason instead.
 */
function gateHook(pi: ExtensionAPI, gatekeeper: Gatekeeper, log: Log): void {
  (pi as any).on("tool_call", async (event: Json, ctx: ExtensionContext) => {
    try {
      return await gatekeeper.check(event, ctx);
    } catch (error) {
      log(`approval gate failed: ${describe(error)}`);
      return { block: true, reason: `pi-relayd's approval gate failed (${describe(error)}), so the call was denied` };
    }
  });
}

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
  on("session_switch", (_event, ctx) => relay.onSessionChanged(ctx));
  on("session_fork", (_event, ctx) => relay.onSessionChanged(ctx));
  for (const name of RELAYED_EVENTS) on(name, (event) => relay.onAgentEvent(event));
  on("input", (event) => relay.onInput(event));
  on("model_select", () => relay.onModelSelect());
}

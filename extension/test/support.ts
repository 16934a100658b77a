/**
 * What the extension's tests share: a tiny fake daemon (a Unix socket server in a temp
 * PI_RELAYD_HOME that answers `attach` as docs/EXTENSION.md says) and helpers to start the fake
 * pi host with the real extension in it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import type { TestContext } from "node:test";
import { PiHost, type HostOptions } from "../../Tests/Fakes/pi-extension-host/host.ts";

export const EXTENSION = path.resolve(import.meta.dirname, "..", "pi-relayd", "index.ts");
const HOST = path.resolve(import.meta.dirname, "..", "..", "Tests", "Fakes", "pi-extension-host", "host.ts");

type Json = Record<string, any>;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms until it holds. */
export async function waitUntil(condition: () => boolean, timeoutMs = 5000, what = "the condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** A fresh PI_RELAYD_HOME (short: Unix socket paths are limited to 107 bytes) with logs/. */
export function makeHome(t: TestContext): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "prd-"));
  fs.mkdirSync(path.join(home, "logs"));
  const before = process.env.PI_RELAYD_HOME;
  process.env.PI_RELAYD_HOME = home;
  t.after(() => {
    if (before === undefined) delete process.env.PI_RELAYD_HOME;
    else process.env.PI_RELAYD_HOME = before;
    fs.rmSync(home, { recursive: true, force: true });
  });
  return home;
}

/** The fake pi host with the extension loaded and session_start done; shut down after the test. */
export async function startHost(t: TestContext, options: HostOptions = {}): Promise<PiHost> {
  const host = await PiHost.create({ extensions: [EXTENSION], ...options });
  t.after(() => host.shutdown());
  await host.start();
  return host;
}

/**
 * Makes the host's `ctx.modelRegistry.getApiKey` take `ms`, as pi's does when it refreshes an
 * OAuth token over the network (async: spec §3 modelRegistry; the refresh: §11 trap 6). Call
 * before `host.start()`: an extension keeps the ctx it got at session_start (§3).
 */
export function slowKeyLookup(host: PiHost, ms: number): void {
  const fake = host as any;
  const context = fake.context;
  fake.context = function (this: unknown) {
    const ctx = context.call(this);
    const getApiKey = ctx.modelRegistry.getApiKey;
    ctx.modelRegistry.getApiKey = async (model: unknown) => {
      await sleep(ms);
      return getApiKey(model);
    };
    return ctx;
  };
}

/**
 * The fake pi host as a process, scripted on stdin as the Swift integration tests drive it
 * (Tests/Fakes/pi-extension-host/README.md "As a process"), with the real extension loaded.
 * A pi of its own: its own pid, and its own process-wide claim of the extension.
 */
export class ScriptedHost {
  readonly child: ChildProcess;
  readonly seen: Json[] = [];
  readonly stdoutLines: string[] = [];
  stderr = "";
  exitCode: number | null | undefined;

  constructor(t: TestContext, args: string[]) {
    this.child = spawn(process.execPath, [HOST, "--extension", EXTENSION, ...args], {
      env: { ...process.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    t.after(() => {
      if (this.exitCode === undefined) this.child.kill("SIGKILL");
    });
    readline.createInterface({ input: this.child.stdout! }).on("line", (line) => {
      this.stdoutLines.push(line);
      try {
        this.seen.push(JSON.parse(line));
      } catch {
        // Kept in stdoutLines: the test fails on it.
      }
    });
    this.child.stderr!.on("data", (chunk) => (this.stderr += chunk));
    this.child.on("exit", (code) => (this.exitCode = code));
  }

  do(command: Json): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  async waitFor(match: (saw: Json) => boolean, what: string, timeoutMs = 5000): Promise<Json> {
    await waitUntil(() => this.seen.some(match), timeoutMs, `${what} on the host's stdout (saw ${JSON.stringify(this.seen.slice(-5))})`);
    return this.seen.find(match)!;
  }

  async exited(timeoutMs = 5000): Promise<number | null> {
    await waitUntil(() => this.exitCode !== undefined, timeoutMs, "the host to exit");
    return this.exitCode!;
  }
}

/** One connection the fake daemon accepted. */
export class DaemonConnection {
  readonly socket: net.Socket;
  attachParams: Json | undefined;
  /** The daemon's session id this connection attached (`t-` and 12 hex digits of pi's). */
  sessionID: string | undefined;
  ended = false;
  /** A newer attach of the same session took over: the daemon let this link go. */
  replaced = false;

  constructor(socket: net.Socket) {
    this.socket = socket;
  }

  send(message: Json | string): void {
    this.socket.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`);
  }
}

export interface DaemonOptions {
  /** Messengers in the relay_status line sent after each attach. */
  watchers?: string[];
  /** How long the attach waits for its answer (a busy daemon): lines meanwhile must not be lost. */
  attachDelayMs?: number;
  /** How long a `sessions` answer takes (a busy daemon, as attachDelayMs). */
  sessionsDelayMs?: number;
  /** An attach error to answer with instead of a result. */
  refuse?: { code: string; message: string };
  /** The gates in the attach result. */
  approvals?: Json;
  /** The answer to an `approval` request (default: denied); may wait, as a chat would. */
  approve?: (params: Json) => Json | Promise<Json>;
}

/**
 * The longest line the daemon reads on its control socket: `FDLineReader.lines(fd:, maxLineBytes:
 * 16 << 20)` in Sources/Supervisor/IO/Socket/ControlServer.swift (`serve`). Sources/SDK/Protocol/
 * LineFramer.swift skips a longer line to its LF unread and reports only its length (without the
 * LF); the server logs it and reads on. The connection stays open.
 */
export const DAEMON_MAX_LINE_BYTES = 16 << 20;

/** The daemon's side of docs/EXTENSION.md, just enough to test the extension against. */
export class FakeDaemon extends EventEmitter {
  readonly socketPath: string;
  readonly connections: DaemonConnection[] = [];
  /** Every line received, in order, with its connection and when it came. */
  readonly received: { connection: DaemonConnection; message: Json; at: number }[] = [];
  /** Lines over DAEMON_MAX_LINE_BYTES, skipped unread as the daemon does: their length and first bytes. */
  readonly skipped: { connection: DaemonConnection; bytes: number; prefix: string }[] = [];
  options: DaemonOptions;
  private server: net.Server | undefined;

  constructor(home: string, options: DaemonOptions = {}) {
    super();
    this.socketPath = path.join(home, "relayd.sock");
    this.options = options;
  }

  static async start(t: TestContext, home: string, options: DaemonOptions = {}): Promise<FakeDaemon> {
    const daemon = new FakeDaemon(home, options);
    t.after(() => daemon.stop());
    await daemon.listen();
    return daemon;
  }

  listen(): Promise<void> {
    const server = net.createServer((socket) => this.accept(socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.socketPath, () => resolve());
    });
  }

  /** The daemon goes away: connections closed, socket file removed. */
  async stop(): Promise<void> {
    this.dropConnections();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(this.socketPath, { force: true });
  }

  /** Ends every connection; the socket stays (as a daemon that let its sessions go). */
  dropConnections(): void {
    for (const connection of this.connections) connection.socket.destroy();
  }

  /** The attach requests received, in order. */
  get attaches(): Json[] {
    return this.received.filter((r) => r.message.method === "attach").map((r) => r.message.params);
  }

  /** The latest connection that attached. */
  get attached(): DaemonConnection {
    const connection = [...this.connections].reverse().find((c) => c.attachParams && !c.ended && !c.replaced);
    if (!connection) throw new Error("fake daemon: no attached connection");
    return connection;
  }

  send(message: Json | string): void {
    this.attached.send(message);
  }

  /** Lines received that `match` accepts. */
  lines(match: (message: Json) => boolean): Json[] {
    return this.received.map((r) => r.message).filter(match);
  }

  /** The `count`-th line (1-based) `match` accepts, waiting for it. */
  async waitFor(match: (message: Json) => boolean, timeoutMs = 5000, what = "a matching line", count = 1): Promise<Json> {
    await waitUntil(() => this.lines(match).length >= count, timeoutMs, `${what} at the fake daemon`);
    return this.lines(match)[count - 1];
  }

  /** The response to the command `id`. */
  response(id: string, timeoutMs = 5000): Promise<Json> {
    return this.waitFor((m) => m.type === "response" && m.id === id, timeoutMs, `the response to ${id}`);
  }

  /**
   * The `sessions` answer: one SessionSummary per terminal session ever attached (docs/PROTOCOL.md
   * §7, "the fields after it are present when known"; §9 lists `sessions`). `pid` is the attached
   * pi's, as its attach gave it (docs/EXTENSION.md §1, `pid`), absent while no pi is attached:
   * "End of file on the socket detaches the session ... The session shows as `offline` at once".
   */
  sessionList(): Json[] {
    const ids = [...new Set(this.connections.map((c) => c.sessionID).filter((id): id is string => id !== undefined))];
    return ids.map((id) => {
      const holder = [...this.connections].reverse().find((c) => c.sessionID === id && !c.ended && !c.replaced);
      const summary: Json = { id, name: "app", cwd: holder?.attachParams?.cwd ?? "/", state: holder ? "idle" : "offline", kind: "terminal" };
      if (holder) summary.pid = holder.attachParams!.pid;
      return summary;
    });
  }

  private accept(socket: net.Socket): void {
    const connection = new DaemonConnection(socket);
    this.connections.push(connection);
    // Bytes, as the daemon's LineFramer reads them: LF ends a line, one CR before it is dropped,
    // and a line over the cap is skipped (DAEMON_MAX_LINE_BYTES). Only new chunks are searched.
    let pending: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => {
      let start = 0;
      let newline: number;
      while ((newline = chunk.indexOf(0x0a, start)) >= 0) {
        const line = Buffer.concat([...pending, chunk.subarray(start, newline)]);
        pending = [];
        start = newline + 1;
        if (line.length > DAEMON_MAX_LINE_BYTES) {
          this.skipped.push({ connection, bytes: line.length, prefix: line.subarray(0, 256).toString("utf8") });
          continue;
        }
        const text = line.toString("utf8");
        this.onLine(connection, JSON.parse(text.endsWith("\r") ? text.slice(0, -1) : text));
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      connection.ended = true;
      this.emit("close", connection);
    });
  }

  private onLine(connection: DaemonConnection, message: Json): void {
    this.received.push({ connection, message, at: Date.now() });
    this.emit("line", message, connection);
    if (message.method === "approval") {
      const decide = this.options.approve ?? (() => ({ allowed: false, outcome: "denied", by: "the fake daemon", reason: "denied by the fake" }));
      Promise.resolve(decide(message.params)).then((result) => {
        if (!connection.ended) connection.send({ id: message.id, result });
      });
      return;
    }
    if (message.method === "relay-notify" || message.method === "relay-file") {
      connection.send({ id: message.id, result: message.method === "relay-notify" ? { posted: 1 } : { sent: message.params.path, chats: 1 } });
      return;
    }
    if (message.method === "spawn-session") {
      // As the daemon answers (docs/EXTENSION.md): a thread when the chat has them.
      const name = message.params.name ?? "child";
      connection.send({
        id: message.id,
        result: { session: "c0ffee01", name, cwd: `/work/${message.params.cwd}`, thread: "900", prompted: Boolean(message.params.prompt) },
      });
      return;
    }
    if (message.method === "pair.session") {
      // As the daemon answers `/relay pair` (docs/EXTENSION.md); an unknown session is refused.
      const known = this.connections.some((c) => c.attachParams && !c.ended && message.params.sessionID?.startsWith("t-"));
      if (!known) connection.send({ id: message.id, error: { code: "not_found", message: "no such session: attach first (/relay connect)" } });
      else {
        const messenger = message.params.messenger ?? "telegram";
        const result: Json = { code: "ABCDEFGHJK", messenger, session: "app", bot: "@relay_bot", expiresInSeconds: 600 };
        if (messenger === "telegram") result.link = "https://t.me/relay_bot?start=pair-ABCDEFGHJK";
        if (message.params.label) result.label = message.params.label;
        connection.send({ id: message.id, result });
      }
      return;
    }
    if (message.method === "answer" || message.method === "approval-decided") {
      connection.send({ id: message.id, result: {} });
      return;
    }
    if (message.method === "sessions") {
      const answer = () => connection.send({ id: message.id, result: this.sessionList() });
      if (this.options.sessionsDelayMs) setTimeout(answer, this.options.sessionsDelayMs);
      else answer();
      return;
    }
    if (message.method !== "attach") return;
    if (this.options.refuse) {
      connection.send({ id: message.id, error: this.options.refuse });
      return;
    }
    connection.attachParams = message.params;
    const hex = String(message.params.piSessionID).replace(/[^0-9a-f]/gi, "").slice(0, 12);
    connection.sessionID = `t-${hex}`;
    // docs/EXTENSION.md, end of "The registration protocol": "A newer attach of the same pi
    // session replaces an older connection". The daemon lets the older link go at the attach,
    // before it answers the newer one; the older one sees only the end of its connection.
    for (const older of this.connections) {
      if (older === connection || older.ended || older.replaced || older.sessionID !== connection.sessionID) continue;
      older.replaced = true;
      older.socket.end();
    }
    const result: Json = { sessionID: connection.sessionID, session: "app", protocol: 1, version: "0.1.0" };
    if (this.options.approvals) result.approvals = this.options.approvals;
    const answer = () => {
      connection.send({ id: message.id, result });
      connection.send({ type: "relay_status", watchers: this.options.watchers ?? [] });
    };
    if (this.options.attachDelayMs) setTimeout(answer, this.options.attachDelayMs);
    else answer();
  }
}

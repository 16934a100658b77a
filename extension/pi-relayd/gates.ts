/**
 * Approval gates (docs/CONFIG.md, "approvals"; docs/EXTENSION.md, "Approval gates"): pi's
 * `tool_call` hook holds a call a rule matches until a person decides.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { randomUUID } from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import { describe, isObject, type Json, type Log } from "./callbacks.ts";
import { controlCall } from "./link.ts";
import { isBuiltinTool, lexical, physical, toolPaths } from "./paths.ts";

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

/** pi's built-ins whose `path` is the root they search or list (paths.ts): they reach what is below it. */
const SEARCH_TOOLS = new Set(["grep", "find", "ls"]);

/**
 * Whether `glob` may match `root` or a path below it, for a tool that searches there (fail
 * closed: when unsure, it may). A glob without a `/` names a file in any folder, so it may; else
 * its literal part, up to the first `*` or `?`, must lie below the root, or the root below (or
 * beside, mid-name) that part.
 */
function globMayMatchBelow(glob: string, root: string, cwd: string, home: string): boolean {
  if (!glob.includes("/")) return true;
  const full = resolvePath(glob, cwd, home);
  const wildcard = full.search(/[*?]/);
  const literal = wildcard < 0 ? full : full.slice(0, wildcard);
  const top = path.resolve(root);
  return top === "/" || literal.startsWith(`${top}/`) || top.startsWith(literal);
}

/**
 * The first rule a call matches: one of its tools, and any of its conditions (none: every call).
 * Path conditions look at the path pi will open, not at the model's string (paths.ts), and hold
 * when any path the tool might open matches (fail closed). For grep, find and ls that path is a
 * root: a rule holds when a glob may match anything at or below it.
 */
export function matchingRule(gates: Gates, toolName: string, input: Json, cwd: string, home: string = os.homedir()): GateRule | undefined {
  const paths = toolPaths(toolName, input, cwd, home);
  // As written and as the kernel reaches it through symlinks (spec §11 trap 13): a rule that
  // matches either holds (fail closed). The second is looked up only for a rule that asks.
  const written = paths?.candidates.map(lexical) ?? [];
  const root = path.resolve(cwd);
  let links: { reached: (string | undefined)[]; root: string; home: string } | undefined;
  const throughLinks = () => {
    links ??= {
      reached: paths?.candidates.map((file) => physical(file)) ?? [],
      root: physical(root) ?? root,
      home: physical(home) ?? home,
    };
    return links;
  };
  const outside = (file: string, from: string) => {
    const relative = path.relative(from, file);
    return relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  };
  for (const rule of gates.rules) {
    if (!rule.tools.includes(toolName)) continue;
    const conditions = [rule.command !== undefined, (rule.paths?.length ?? 0) > 0, rule.outsideCwd === true];
    if (!conditions.some(Boolean)) return rule;
    // Whether any condition could be tested on this call: a tool without the arguments the rule
    // looks at (an extension's tool taking `cmd` or `files`) cannot be decided, and is asked.
    let decidable = false;
    if (rule.command !== undefined && typeof input?.command === "string") {
      decidable = true;
      try {
        if (new RegExp(rule.command).test(input.command)) return rule;
      } catch {
        return rule; // a pattern this engine cannot read gates rather than lets through
      }
    }
    if (rule.paths?.length && paths) {
      decidable = true;
      const { reached, root: realRoot, home: realHome } = throughLinks();
      // A home or folder behind a link itself: its globs are matched as the kernel names it too.
      const files = [...written, ...reached.filter((file): file is string => file !== undefined)];
      const bases: [string, string][] = [
        [cwd, home],
        [realRoot, realHome],
      ];
      // grep reads every file below its root, find and ls list them (spec §11 trap 13's grep.ts,
      // find.ts, ls.ts): matching the root alone let `grep ~/.ssh` past a rule on `~/.ssh/**`.
      const matches = SEARCH_TOOLS.has(toolName)
        ? (glob: string) => bases.some(([from, fromHome]) => files.some((file) => globMayMatchBelow(glob, file, from, fromHome)))
        : (glob: string) => bases.map(([from, fromHome]) => globToRegExp(glob, from, fromHome)).some((pattern) => files.some((file) => pattern.test(file)));
      if (rule.paths.some(matches)) return rule;
    }
    if (rule.outsideCwd === true && paths) {
      decidable = true;
      const { reached, root: realRoot } = throughLinks();
      // More links than the kernel follows: it refuses the path, and the gate asks rather than guess.
      if (written.some((file) => outside(file, root)) || reached.some((file) => file === undefined || outside(file, realRoot))) return rule;
    }
    if (!decidable && !isBuiltinTool(toolName)) return rule;
  }
  return undefined;
}

/**
 * One request on a connection of its own to the daemon's control socket, for a call that may
 * wait minutes (an approval): the attach connection carries pi's RPC and must not wait on it.
 */

type GateVerdict = { block: true; reason: string } | undefined;

/** A terminal gate's question in the chats (Gatekeeper.askChats). */
interface ChatsCopy {
  /** Settles with a chat's decision only. */
  readonly decision: Promise<Json>;
  /** The request last sent: its session and id are the ones the daemon knows. */
  readonly asked: Json | undefined;
  /** A request waits on the daemon now. */
  readonly live: boolean;
  /** The gate is decided: no more asking, and the request waiting is let go (it would keep pi's event loop busy). */
  close(): void;
}

const APPROVE_ONCE = "Approve once";
const APPROVE_FOR_SESSION = "Approve for session";
const DENY = "Deny";
const GATE_CHOICES = [APPROVE_ONCE, APPROVE_FOR_SESSION, DENY];

/**
 * What a terminal's gates learned at run time, kept across `/reload` (spec §11 trap 16: the old
 * instance is dropped and a fresh import starts with nothing). Keyed by pi's session id, so the
 * copy `/reload` loads into the same pi session picks it up at session_start.
 */
const MEMORY_KEY = Symbol.for("pi-relayd.gates.memory");
interface GateMemory {
  gates: Gates | undefined;
  approved: Set<string>;
}
function gateMemory(): Map<string, GateMemory> {
  const global = globalThis as any;
  global[MEMORY_KEY] ??= new Map<string, GateMemory>();
  return global[MEMORY_KEY];
}

/**
 * Holds gated calls in pi's `tool_call` hook until a person decides: the daemon asks the chats;
 * in a terminal session the terminal asks too, and the first answer wins. Fails closed: a child
 * whose daemon cannot be reached is denied; a terminal that cannot reach it asks only at the
 * terminal.
 */
export class Gatekeeper {
  private currentGates: Gates | undefined;
  /** The daemon's id for this session, once known. */
  sessionID: string | undefined;
  private readonly socketPath: string;
  private readonly log: Log;
  /** An interactive pi, whose terminal can answer too; false in a pi-relayd child (RPC). */
  private readonly terminal: boolean;
  /** Rules approved for the session here, for when the daemon cannot be asked. */
  private approvedHere = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();
  /** The pi session whose gates these are (a terminal's), the key of what `/reload` keeps. */
  private piSessionID: string | undefined;
  /** Gates waiting for a decision (queued ones included), each with its way to end at once. */
  private readonly waiting = new Set<(why: string) => void>();
  /** Counts the stops: a gate queued before one is denied when its turn comes. */
  private stops = 0;
  /**
   * Why the run was stopped, until the next run starts: pi checks no abort between one call's
   * `tool_call` hook and the next call's (spec §11 trap 12), so the rest of the stopped run's
   * batch would still come here, gated or not, and run.
   */
  private stoppedRun: string | undefined;
  /** Counts the attaches: a chats' copy lost before the latest one is asked again at once. */
  private attaches = 0;
  /** What asks each waiting terminal gate's question in the chats (askChats). */
  private readonly chatAsks = new Set<() => void>();

  constructor(socketPath: string, log: Log, terminal: boolean) {
    this.socketPath = socketPath;
    this.log = log;
    this.terminal = terminal;
  }

  get gates(): Gates | undefined {
    return this.currentGates;
  }

  /** The daemon's rules (attach) or a child's; a terminal's are kept for a `/reload`. */
  set gates(gates: Gates | undefined) {
    this.currentGates = gates;
    this.remember();
  }

  /**
   * session_start: the gates of pi session `piSessionID`. A `/reload`ed copy takes the rules and
   * the approvals for the session that the copy before it had, so it gates from the first call,
   * daemon or not.
   */
  adopt(piSessionID: string): void {
    this.piSessionID = piSessionID;
    const kept = gateMemory().get(piSessionID);
    if (kept) {
      this.currentGates ??= kept.gates;
      for (const rule of kept.approved) this.approvedHere.add(rule);
    }
    this.remember();
  }

  /**
   * `/new`, `/resume`, `/fork`: another pi session. "Approve for session" ends with the one left;
   * the rules stay (they are the daemon's, not the session's) until the next attach says otherwise.
   */
  sessionChanged(piSessionID: string): void {
    if (piSessionID === this.piSessionID) return;
    if (this.piSessionID !== undefined) gateMemory().delete(this.piSessionID);
    gateMemory().delete(piSessionID);
    this.piSessionID = piSessionID;
    this.approvedHere = new Set();
    this.remember();
  }

  private remember(): void {
    if (this.piSessionID === undefined) return;
    gateMemory().set(this.piSessionID, { gates: this.currentGates, approved: new Set(this.approvedHere) });
  }

  /** Gates waiting for a person now (queued behind the one shown included). */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * A stop (the chat's `/stop`, `pi-relayd abort`): every gate waiting now is denied at once, its
   * terminal dialog closed; pi's abort cannot end a `tool_call` handler (spec §11 trap 12).
   * Returns how many there were.
   */
  cancelAll(why: string): number {
    this.stops++;
    this.stoppedRun = why;
    const cancels = [...this.waiting];
    for (const cancel of cancels) cancel(why);
    return cancels.length;
  }

  /**
   * After an attach: a terminal gate still waiting whose question the chats no longer have (the
   * daemon restarted, or dropped the connection) is asked there again.
   */
  askAgain(): void {
    this.attaches++;
    for (const ask of [...this.chatAsks]) ask();
  }

  /** A new run (pi's `agent_start`): the calls of the one a stop ended are behind it. */
  runStarted(): void {
    this.stoppedRun = undefined;
  }

  /** pi's tool_call: undefined lets the call run; a block carries the reason the agent reads. */
  check(event: Json, ctx: ExtensionContext): Promise<GateVerdict> | GateVerdict {
    if (this.stoppedRun !== undefined) {
      this.log(`${event.toolName} not run: ${this.stoppedRun}`);
      return { block: true, reason: `pi-relayd did not run ${event.toolName}: ${this.stoppedRun}` };
    }
    const gates = this.gates;
    if (!gates) return undefined;
    const rule = matchingRule(gates, String(event.toolName), isObject(event.input) ? event.input : {}, ctx.cwd);
    if (!rule) return undefined;
    const stops = this.stops;
    let cancel: (why: string) => void = () => {};
    const cancelled = new Promise<string>((resolve) => (cancel = resolve));
    this.waiting.add(cancel);
    const decide = () => (this.stops !== stops ? Promise.resolve(this.stopped(rule, event, "the run was stopped")) : this.decide(rule, gates, event, ctx, cancelled));
    // One question at a time, as pi shows one dialog at a time.
    const run = this.chain.then(decide, decide).finally(() => this.waiting.delete(cancel));
    this.chain = run.catch(() => undefined);
    return Promise.race([run, cancelled.then((why) => this.stopped(rule, event, why))]);
  }

  private stopped(rule: GateRule, event: Json, why: string): GateVerdict {
    this.log(`approval for ${event.toolName} (rule ${rule.name}) ended: ${why}`);
    return { block: true, reason: `pi-relayd's approval gate "${rule.name}" denied ${event.toolName}: ${why}` };
  }

  private async decide(rule: GateRule, gates: Gates, event: Json, ctx: ExtensionContext, cancelled: Promise<string>): Promise<GateVerdict> {
    const blocked = (why: string): GateVerdict => ({ block: true, reason: `pi-relayd's approval gate "${rule.name}" denied ${event.toolName}: ${why}` });
    if (this.terminal && !this.sessionID && this.approvedHere.has(rule.name)) return undefined;
    const request = (session: string | undefined): Json => ({ session, id: randomUUID(), toolName: event.toolName, input: event.input, rule: rule.name });
    const waitMs = (gates.timeoutSeconds + 30) * 1000;
    if (!this.terminal) {
      // A pi-relayd child: only the chats can answer (its "UI" is the daemon's RPC).
      const asking = new AbortController();
      void cancelled.then(() => asking.abort()); // a stop lets go of the daemon's copy (it closes it on the same abort)
      const answer: Json | Error = this.sessionID
        ? await controlCall(this.socketPath, "approval", request(this.sessionID), waitMs, asking.signal).catch((error: Error) => error)
        : new Error("not attached to pi-relayd");
      if (answer instanceof Error) {
        this.log(`approval for ${event.toolName} (rule ${rule.name}) failed: ${answer.message}`);
        return blocked(`pi-relayd cannot be reached (${answer.message}), so it was denied`);
      }
      return answer.allowed === true ? undefined : blocked(String(answer.reason || answer.outcome || "denied"));
    }
    const chats = this.askChats(request, waitMs, `${event.toolName} (rule ${rule.name})`);
    const dialog = new AbortController();
    // A stop lets go of the daemon's copy (the daemon closes it on the same abort) and the dialog.
    let stopped = false;
    void cancelled.then(() => {
      stopped = true;
      chats.close();
      dialog.abort();
    });
    const title = `pi-relayd: approve ${event.toolName}? (rule ${rule.name})\n${previewInput(event.input)}`;
    const terminal = ctx.ui
      .select(title, GATE_CHOICES, { signal: dialog.signal, timeout: gates.timeoutSeconds * 1000 })
      .then((value: string | undefined) => ({ from: "terminal" as const, value }));
    const first = await Promise.race([terminal, chats.decision.then((answer) => ({ from: "chats" as const, answer }))]);
    // Read before letting go: whether the chats still hold a copy, and its id.
    const { asked, live } = chats;
    chats.close();
    if (first.from === "chats") {
      dialog.abort(); // the chats decided: the terminal's copy goes
      return first.answer.allowed === true ? undefined : blocked(String(first.answer.reason || first.answer.outcome));
    }
    // The terminal decided (its timeout included: a gate nobody decides is denied).
    const value = first.value;
    const choice = value === APPROVE_ONCE || value === APPROVE_FOR_SESSION ? value : DENY;
    if (stopped) return blocked("the run was stopped"); // check() answered already
    if (this.sessionID) {
      const decided = { ...(asked ?? request(this.sessionID)), session: this.sessionID, choice };
      if (live && asked) {
        // The chats' copy closes, and the daemon logs who decided.
        controlCall(this.socketPath, "answer", { session: asked.session, id: asked.id, value: choice, by: "the terminal" }, 10_000).catch(() =>
          controlCall(this.socketPath, "approval-decided", decided, 10_000).catch(() => undefined),
        );
      } else {
        controlCall(this.socketPath, "approval-decided", decided, 10_000).catch(() => undefined);
      }
    }
    if (choice === APPROVE_FOR_SESSION) {
      this.approvedHere.add(rule.name);
      this.remember();
    }
    return choice === DENY ? blocked(value === undefined ? "nobody approved it at the terminal" : "denied at the terminal") : undefined;
  }

  /**
   * A terminal gate's question in the chats: asked now when attached, and again after each
   * attach while the chats hold no copy of it. A daemon that restarted (or dropped the
   * connection) re-attaches the session (spec §10) but knows nothing of the question, and its
   * old buttons answer nothing. Each ask has an id of its own, as a daemon that lived on may
   * still hold the last one. "terminal_only" and "abandoned" leave the decision to the
   * terminal's dialog, which stays open all along.
   */
  private askChats(request: (session: string) => Json, waitMs: number, what: string): ChatsCopy {
    let settle: (answer: Json) => void = () => {};
    const decision = new Promise<Json>((resolve) => (settle = resolve));
    let asked: Json | undefined;
    let live: AbortController | undefined;
    let over = false;
    const ask = () => {
      const session = this.sessionID;
      if (over || live || !session) return;
      const attach = this.attaches;
      const controller = new AbortController();
      const params = request(session);
      asked = params;
      live = controller;
      const lost = (why: string) => {
        if (live === controller) live = undefined;
        if (over) return;
        this.log(`approval for ${what}: the chats cannot answer (${why}); asked there again after the next attach`);
        if (this.attaches !== attach) ask(); // attached again while this one was on its way
      };
      controlCall(this.socketPath, "approval", params, waitMs, controller.signal).then(
        (answer) => {
          if (["terminal_only", "abandoned"].includes(String(answer.outcome))) return lost(String(answer.reason || answer.outcome));
          if (live === controller) live = undefined;
          if (!over) settle(answer);
        },
        (error: Error) => lost(error.message),
      );
    };
    this.chatAsks.add(ask);
    ask();
    return {
      decision,
      get asked() {
        return asked;
      },
      get live() {
        return live !== undefined;
      },
      close: () => {
        over = true;
        this.chatAsks.delete(ask);
        live?.abort();
      },
    };
  }
}

/** A call's arguments for the terminal's dialog: the command or path, else JSON, shortened. */
function previewInput(input: unknown): string {
  const object = isObject(input) ? input : {};
  const text = typeof object.command === "string" ? object.command : typeof object.path === "string" ? object.path : JSON.stringify(object);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * pi's tool_call hook for the gates. A throw would block the call with our error as its text:
 * failing closed, but with a clear reason instead.
 */
export function gateHook(pi: ExtensionAPI, gatekeeper: Gatekeeper, log: Log): void {
  (pi as any).on("tool_call", async (event: Json, ctx: ExtensionContext) => {
    try {
      return await gatekeeper.check(event, ctx);
    } catch (error) {
      log(`approval gate failed: ${describe(error)}`);
      return { block: true, reason: `pi-relayd's approval gate failed (${describe(error)}), so the call was denied` };
    }
  });
}

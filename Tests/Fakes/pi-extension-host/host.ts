/**
 * A fake pi (interactive mode) that loads pi extensions: the parts of pi's extension API, ctx,
 * ctx.ui, events and tools that shared/specs/pi-extension-api.md describes, quirks included, and
 * a simulated agent. It is test code and shares nothing with the extension it loads.
 *
 * In-process (the extension's node:test tests):
 *     const host = await PiHost.create({ extensions: [path] }); await host.start(); ...
 * As a process (the Swift integration tests), driven by JSON lines on stdin, telling on stdout
 * what a user would see (README.md beside this file):
 *     node host.ts --extension PATH [--cwd DIR] [--session-id ID] [--pi-version V]
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

type Json = Record<string, any>;
type Handler = (event: Json, ctx: Json) => unknown;

/** One thing the person at the terminal would see; `saw` names what. */
export type Saw = Json & { saw: string };

export interface HostOptions {
  /** Extension files, loaded in this order (each import is fresh, as pi's jiti loads them). */
  extensions?: string[];
  /** The session's working directory (pi's process.cwd()). Default: a temp folder. */
  cwd?: string;
  sessionId?: string;
  /** The version pi's package.json says; null: no package.json to be found. Default 0.58.3. */
  piVersion?: string | null;
  /** pi's command-line arguments after the script, e.g. ["--mode", "rpc"]. */
  args?: string[];
  /** False plays print/JSON mode (ctx.hasUI false, dialogs answer their default at once). */
  hasUI?: boolean;
  /** Where sessions are written. Default: a temp folder. */
  agentDir?: string;
  /** Milliseconds between two streamed deltas. */
  streamDelayMs?: number;
  /** Milliseconds of a prompt's pre-run phase (API key lookup, before_agent_start). */
  preRunDelayMs?: number;
  /**
   * Milliseconds of a compaction's summary (its LLM call; default 50). pi is idle all along and a
   * prompt sent meanwhile runs unseen (spec §11 traps 5, 7): a test needs time to send one.
   */
  compactionMs?: number;
  /** Tools that exist before any extension loads, besides pi's built-ins. */
  extraTools?: Json[];
  /** Replaces settings.json's `retry.baseDelayMs` (pi's default 2000 ms), so back-offs are short. */
  retryBaseDelayMs?: number;
  /** Every prompt's pre-run phase runs a compaction before agent_start (as `precompact:` does; §11 trap 5). */
  preRunCompaction?: boolean;
  /** Prompt templates to install: name → file content (`<agentDir>/prompts/NAME.md`; §11 trap 8). */
  prompts?: Record<string, string>;
  /** Skills to install: name → SKILL.md content (`<agentDir>/skills/NAME/SKILL.md`; §11 trap 8). */
  skills?: Record<string, string>;
}

export const DEFAULT_PI_VERSION = "0.58.3";
const BUILTIN_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"];
/** The built-ins whose `path` is a root they search or list (`path || "."`), not one file. */
const SEARCH_TOOLS = ["grep", "find", "ls"];
/** pi's built-in TUI commands (core/slash-commands.ts): extensions cannot take these names. */
const BUILTIN_SLASH_COMMANDS = [
  "settings", "model", "scoped-models", "export", "share", "copy", "name", "session", "changelog",
  "hotkeys", "fork", "tree", "login", "logout", "new", "compact", "resume", "reload", "quit",
];

/** The entries of a folder, as full paths, sorted; none when it does not exist. */
function listFiles(folder: string): string[] {
  try {
    return fs.readdirSync(folder).sort().map((name) => path.join(folder, name));
  } catch {
    return [];
  }
}

/** A markdown file's `key: value` frontmatter (flat) and its body, as pi's parseFrontmatter. */
function frontmatterOf(content: string): { name?: string; description?: string; body: string } {
  const text = content.replace(/\r\n?/g, "\n");
  if (!text.startsWith("---")) return { body: text };
  const end = text.indexOf("\n---", 3);
  if (end === -1) return { body: text };
  const meta: Json = {};
  for (const line of text.slice(4, end).split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) meta[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { name: meta.name, description: meta.description, body: text.slice(end + 4).trim() };
}
/** Template arguments split as pi's parseCommandArgs: blanks separate, '…' and "…" group. */
function splitTemplateArgs(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === " " || char === "\t") {
      if (current) args.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current) args.push(current);
  return args;
}

/**
 * pi's substituteArgs (core/prompt-templates.ts): `$1`… first, then `${@:N}` / `${@:N:L}`, then
 * `$ARGUMENTS` and `$@`; values are not substituted again.
 */
function fillTemplate(body: string, args: string[]): string {
  const all = args.join(" ");
  return body
    .replace(/\$(\d+)/g, (_, n) => args[Number(n) - 1] ?? "")
    .replace(/\$\{@:(\d+)(?::(\d+))?\}/g, (_, from, count) => {
      const start = Math.max(Number(from) - 1, 0);
      return (count === undefined ? args.slice(start) : args.slice(start, start + Number(count))).join(" ");
    })
    .replace(/\$ARGUMENTS/g, () => all)
    .replace(/\$@/g, () => all);
}

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
/** settings-manager.ts: compaction.reserveTokens' default; a context over window − reserve is compacted. */
const RESERVE_TOKENS = 16384;
const NOT_INITIALIZED =
  "Extension runtime not initialized. Action methods cannot be called during extension loading.";
const BUSY_NO_BEHAVIOR =
  "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";
const BUSY_COLLISION =
  "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";

const SYSTEM_PROMPT = "You are the fake pi host's agent.";
/** What pi answers for a call a queued steer skipped (agent-loop.ts skipToolCall). */
const SKIPPED = "Skipped due to queued user message.";
/** The fake model's retryable error: Anthropic's overloaded answer (HTTP 529). */
const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
/** The fake model's context overflow, in Anthropic's words. */
const TOO_LONG = "prompt is too long: 213462 tokens > 200000 maximum";

const MODELS: Json[] = [
  model("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", true),
  model("openai", "gpt-5", "GPT-5", true),
  model("nokey", "model-without-key", "A model without an API key", false),
  // A model without image input: pi hands it pictures anyway and the provider drops them
  // without a word (§11 trap 9), so a relay must check `input` itself.
  model("openai", "gpt-3.5-turbo", "GPT-3.5 Turbo", false, ["text"]),
];

function model(provider: string, id: string, name: string, reasoning: boolean, input: string[] = ["text", "image"]): Json {
  return {
    id,
    name,
    api: `${provider}-messages`,
    provider,
    baseUrl: `https://${provider}.invalid`,
    reasoning,
    input,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200000,
    maxTokens: 64000,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What pi's sendUserMessage does with content: text blocks joined by "\n", images after. */
function flattenContent(content: unknown): { text: string; images: Json[] } {
  if (typeof content === "string") return { text: content, images: [] };
  if (!Array.isArray(content)) return { text: String(content), images: [] };
  const texts = content.filter((b) => b?.type === "text").map((b) => String(b.text));
  const images = content.filter((b) => b?.type === "image").map((b) => ({ type: "image", data: b.data, mimeType: b.mimeType }));
  return { text: texts.join("\n"), images };
}

/** What the terminal shows of a message's pictures: their type and size. */
function imageSights(images: Json[] | undefined): Json[] {
  return (images ?? []).map((image) => ({ mimeType: image.mimeType, bytes: Buffer.from(String(image.data ?? ""), "base64").length }));
}

// -------------------------------------------------------------------------------------------------
// pi's built-in tools (§6, §11 trap 13)

/**
 * Where a built-in tool reports what it opened; `below` for grep's, find's and ls's `path`, the
 * root they search or list: they reach the paths below it too (§11 trap 13; pi-rpc.md §3).
 */
interface ToolSink {
  cwd: string;
  opened(tool: string, file: string, below?: boolean): void;
}

/** Inside the session's folder: the fake only touches files there, never the tester's own. */
function insideFolder(file: string, cwd: string): boolean {
  const relative = path.relative(path.resolve(cwd), path.resolve(file));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function errorResult(text: string): Json {
  return { content: [{ type: "text", text }], details: {} };
}

function textResult(text: string, file?: string): Json {
  return { content: [{ type: "text", text }], details: file === undefined ? {} : { opened: file } };
}

/** `find`'s glob (`*`, `**`, `?`) as a RegExp on a relative path. */
function globRegExp(glob: string): RegExp {
  let pattern = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === "*" && glob[index + 1] === "*") {
      pattern += ".*";
      index++;
      if (glob[index + 1] === "/") index++;
    } else if (char === "*") pattern += "[^/]*";
    else if (char === "?") pattern += "[^/]";
    else pattern += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`(^|/)${pattern}$`);
}

/** Every file under `root` (relative paths), skipping .git and node_modules as fd and rg do. */
function walk(root: string): string[] {
  const found: string[] = [];
  const visit = (folder: string, prefix: string) => {
    for (const name of fs.readdirSync(folder).sort()) {
      if (name === ".git" || name === "node_modules") continue;
      const full = path.join(folder, name);
      const stat = fs.statSync(full, { throwIfNoEntry: false });
      if (stat?.isDirectory()) visit(full, `${prefix}${name}/`);
      else if (stat) found.push(`${prefix}${name}`);
    }
  };
  visit(root, "");
  return found;
}

/**
 * pi's built-in tools with their argument names: read {path, offset?, limit?}, write {path,
 * content}, edit {path, oldText, newText}, grep {pattern, path?, glob?, ignoreCase?, literal?},
 * find {pattern, path?}, ls {path?}, bash {command}. Each resolves its path as pi does, after
 * tool_call saw the model's string (§11 trap 13), and says which file it opened. Inside the
 * session's folder they really read, list, search and write; outside it they only say what they
 * would have done, so a test never touches the tester's files. bash never runs anything.
 */
function builtinTool(name: string, sink: ToolSink): Json {
  return {
    name,
    description: `pi's ${name} tool`,
    parameters: { type: "object" },
    async execute(_id: string, params: Json) {
      if (name === "bash") return textResult(`ran ${params.command}`);
      const file = piToolPath(name, params, sink.cwd)!;
      // grep, find and ls take their path as the root they search or list (`path || "."`).
      sink.opened(name, file, SEARCH_TOOLS.includes(name));
      if (!insideFolder(file, sink.cwd)) return textResult(`${name} ${params.path}`, file);
      switch (name) {
        case "read": {
          const stat = fs.statSync(file, { throwIfNoEntry: false });
          if (!stat) throw new Error(`ENOENT: no such file or directory, access '${file}'`);
          if (stat.isDirectory()) throw new Error(`EISDIR: illegal operation on a directory, read`);
          let lines = fs.readFileSync(file, "utf8").split("\n");
          const from = Math.max(Number(params.offset ?? 1), 1) - 1;
          lines = lines.slice(from, params.limit === undefined ? undefined : from + Number(params.limit));
          return textResult(lines.join("\n"), file);
        }
        case "write": {
          const content = String(params.content ?? "");
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, content);
          return textResult(`Successfully wrote ${Buffer.byteLength(content)} bytes to ${params.path}`, file);
        }
        case "edit": {
          if (!fs.existsSync(file)) throw new Error(`File not found: ${params.path}`);
          const text = fs.readFileSync(file, "utf8");
          const oldText = String(params.oldText ?? "");
          const count = oldText === "" ? 0 : text.split(oldText).length - 1;
          if (count === 0) throw new Error(`Could not find the exact text in ${params.path}. The old text must match exactly including all whitespace and newlines.`);
          if (count > 1) throw new Error(`Found ${count} occurrences of the text in ${params.path}. The text must be unique. Please provide more context to make it unique.`);
          fs.writeFileSync(file, text.replace(oldText, () => String(params.newText ?? "")));
          return textResult(`Successfully replaced text in ${params.path}.`, file);
        }
        case "ls": {
          if (!fs.existsSync(file)) throw new Error(`Path not found: ${file}`);
          const names = fs.readdirSync(file).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
          const shown = names.map((entry) => (fs.statSync(path.join(file, entry), { throwIfNoEntry: false })?.isDirectory() ? `${entry}/` : entry));
          return textResult(shown.length === 0 ? "(empty directory)" : shown.join("\n"), file);
        }
        case "find": {
          if (!fs.existsSync(file)) throw new Error(`Path not found: ${file}`);
          const match = globRegExp(String(params.pattern ?? "*"));
          const hits = walk(file).filter((relative) => match.test(relative));
          return textResult(hits.length === 0 ? "No files found matching pattern" : hits.join("\n"), file);
        }
        case "grep": {
          if (!fs.existsSync(file)) throw new Error(`Path not found: ${file}`);
          const source = params.literal ? String(params.pattern).replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : String(params.pattern);
          const pattern = new RegExp(source, params.ignoreCase ? "i" : "");
          const single = fs.statSync(file).isFile();
          const files = single ? [path.basename(file)] : walk(file);
          const filter = params.glob ? globRegExp(String(params.glob)) : undefined;
          const hits: string[] = [];
          for (const relative of files) {
            if (filter && !filter.test(relative)) continue;
            const full = single ? file : path.join(file, relative);
            // rg reads every file below its root: each is opened, not just the root.
            if (!single) sink.opened(name, full);
            fs.readFileSync(full, "utf8").split("\n").forEach((line, index) => {
              if (pattern.test(line)) hits.push(`${relative}:${index + 1}: ${line}`);
            });
          }
          return textResult(hits.length === 0 ? "No matches found" : hits.join("\n"), file);
        }
      }
      return textResult(`${name} ${params.path}`, file);
    },
  };
}


// pi's path handling inside its built-in tools, after tool_call saw the model's string (spec §11
// trap 13): pi 0.58.3's core/tools/path-utils.ts, step by step (line numbers are that file's).

/** path-utils.ts 35–48: one leading `@` off, unicode spaces to spaces, `~` and `~/` to home. */
function piExpandPath(filePath: string): string {
  const withoutAt = filePath.startsWith("@") ? filePath.slice(1) : filePath;
  const normalized = withoutAt.replace(/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, " ");
  if (normalized === "~") return os.homedir();
  if (normalized.startsWith("~/")) return os.homedir() + normalized.slice(1);
  return normalized;
}

/** path-utils.ts 54–60: absolute stays as it is, relative is resolved against the cwd. */
function piResolveToCwd(filePath: string, cwd: string): string {
  const expanded = piExpandPath(filePath);
  return path.isAbsolute(expanded) ? expanded : path.resolve(cwd, expanded);
}

/** path-utils.ts 62–94: `read` tries macOS variants when the resolved file does not exist. */
function piResolveReadPath(filePath: string, cwd: string): string {
  const resolved = piResolveToCwd(filePath, cwd);
  const exists = (file: string) => fs.existsSync(file);
  if (exists(resolved)) return resolved;
  const amPm = resolved.replace(/ (AM|PM)\./g, "\u202F$1.");
  if (amPm !== resolved && exists(amPm)) return amPm;
  const nfd = resolved.normalize("NFD");
  if (nfd !== resolved && exists(nfd)) return nfd;
  const curly = resolved.replace(/'/g, "\u2019");
  if (curly !== resolved && exists(curly)) return curly;
  const nfdCurly = nfd.replace(/'/g, "\u2019");
  if (nfdCurly !== resolved && exists(nfdCurly)) return nfdCurly;
  return resolved;
}

/** The path each tool opens: read.ts 63, write.ts 49, edit.ts 69; grep.ts 114, find.ts 80, ls.ts 70 (`path || "."`). */
function piToolPath(name: string, params: Json, cwd: string): string | undefined {
  if (name === "read") return piResolveReadPath(String(params.path), cwd);
  if (name === "write" || name === "edit") return piResolveToCwd(String(params.path), cwd);
  if (name === "grep" || name === "find" || name === "ls") return piResolveToCwd(params.path || ".", cwd);
  return undefined;
}

// pi's rules after agent_end (spec §11 trap 4), for the fake's retries and overflow recovery.

/** `_isRetryableError`'s pattern (AS 2320). */
const HOST_RETRYABLE =
  /overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|upstream.?connect|reset before headers|terminated|retry delay/i;

/** packages/ai/src/utils/overflow.ts 92–116, with the patterns the fake's errors use. */
function hostContextOverflow(message: Json, contextWindow: number): boolean {
  if (message.stopReason === "error" && /prompt is too long|exceeds the context window|context[_ ]length[_ ]exceeded|too many tokens/i.test(message.errorMessage ?? "")) return true;
  return Boolean(contextWindow) && message.stopReason === "stop" && (message.usage?.input ?? 0) + (message.usage?.cacheRead ?? 0) > contextWindow;
}

/** settings-manager.ts: global `<agentDir>/settings.json` (config.ts 187–195), project `<cwd>/.pi/settings.json` over it. */
function piSettings(cwd: string, hostAgentDir: string): { retry: { enabled: boolean; maxRetries: number; baseDelayMs: number }; compactionEnabled: boolean } {
  // PI_CODING_AGENT_DIR moves the agent dir (§1.1); else the host's own stands in for ~/.pi/agent,
  // so a tester's real settings never reach a test.
  const agentDir = process.env.PI_CODING_AGENT_DIR || hostAgentDir;
  const read = (file: string): Json => {
    try {
      return JSON.parse(fs.readFileSync(file, "utf8")) ?? {};
    } catch {
      return {};
    }
  };
  const global = read(path.join(agentDir, "settings.json"));
  const project = read(path.join(cwd, ".pi", "settings.json"));
  const retry = { ...global.retry, ...project.retry };
  const compaction = { ...global.compaction, ...project.compaction };
  return {
    retry: { enabled: retry.enabled ?? true, maxRetries: retry.maxRetries ?? 3, baseDelayMs: retry.baseDelayMs ?? 2000 },
    compactionEnabled: compaction.enabled ?? true,
  };
}

/**
 * session-manager.ts buildSessionContext, for a branch: with a compaction, its summary, the kept
 * messages from `firstKeptEntryId` up to it, then what came after; else every message.
 */
function buildContext(branch: Json[]): Json[] {
  const compactionAt = branch.findLastIndex((entry) => entry.type === "compaction");
  const messageOf = (entry: Json) =>
    entry.type === "message"
      ? entry.message
      : entry.type === "custom_message"
        ? { role: "custom", customType: entry.customType, content: entry.content, display: entry.display, details: entry.details, timestamp: Date.parse(entry.timestamp) }
        : undefined;
  if (compactionAt === -1) return branch.map(messageOf).filter(Boolean);
  const compaction = branch[compactionAt];
  const keptFrom = branch.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  const kept = keptFrom === -1 || keptFrom > compactionAt ? [] : branch.slice(keptFrom, compactionAt);
  const summary = { role: "compactionSummary", summary: compaction.summary, tokensBefore: compaction.tokensBefore, timestamp: Date.parse(compaction.timestamp) };
  return [summary, ...[...kept, ...branch.slice(compactionAt + 1)].map(messageOf).filter(Boolean)];
}

/** The model a saved session last used: its last model_change or assistant message (buildSessionContext). */
function savedModel(entries: Json[]): { provider: string; id: string } | undefined {
  let found: { provider: string; id: string } | undefined;
  for (const entry of entries) {
    if (entry.type === "model_change") found = { provider: entry.provider, id: entry.modelId };
    else if (entry.type === "message" && entry.message?.role === "assistant") found = { provider: entry.message.provider, id: entry.message.model };
  }
  return found;
}

/**
 * The user message of a prompt (§8.1): the text, then its images as they came, of any size:
 * prompt() neither resizes nor checks them (§11 trap 9).
 */
function userMessage(text: string, images: Json[]): Json {
  return { role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() };
}

function assistantMessage(content: Json[], stopReason: string, modelInfo: Json | undefined): Json {
  const message: Json = {
    role: "assistant",
    content,
    api: modelInfo?.api ?? "anthropic-messages",
    provider: modelInfo?.provider ?? "anthropic",
    model: modelInfo?.id ?? "claude-sonnet-4-5",
    usage: {
      input: 10,
      output: 20,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 30,
      cost: { input: 0.00003, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: 0.00033 },
    },
    stopReason,
    timestamp: Date.now(),
  };
  if (stopReason === "aborted") message.errorMessage = "Request was aborted";
  return message;
}

function textOf(message: Json | undefined): string {
  if (!message || !Array.isArray(message.content)) return "";
  return message.content.filter((b: Json) => b.type === "text").map((b: Json) => b.text).join("");
}

/** A loaded extension: its own handlers, tools and commands, as pi keeps them per extension. */
interface LoadedExtension {
  path: string;
  handlers: Map<string, Handler[]>;
  tools: Map<string, Json>;
  commands: Map<string, Json>;
}

interface QueuedMessage {
  text: string;
  images: Json[];
  source: string;
}

interface Dialog {
  method: string;
  title: string;
  options?: string[];
  closed: boolean;
  resolve: (value: string | undefined) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** What the agent does with a prompt (the simulated model). */
interface Plan {
  text?: string;
  toolCall?: { name: string; arguments: Json };
  /** Several calls in one assistant message (`batch:`): a parallel batch (§6, §11 trap 11). */
  toolCalls?: { name: string; arguments: Json }[];
  /** `throw: MESSAGE`: the agent loop itself throws this once the answer started streaming (§8.1). */
  throws?: string;
}

/** What the agent loop throws for `throw:`; any other throw stays a bug of the fake. */
class LoopThrow extends Error {}

/**
 * agent.ts `_runLoop`'s catch (spec §8.1, pi-rpc.md §3 "Detect errors"): the one synthetic
 * assistant message extensions get, in `agent_end` only (no message_start/message_end/turn_end).
 */
function loopFailure(error: unknown, modelInfo: Json | undefined, aborted: boolean): Json {
  const message = assistantMessage([{ type: "text", text: "" }], aborted ? "aborted" : "error", modelInfo);
  message.usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  message.errorMessage = errorText(error);
  return message;
}

let loadCounter = 0;

export class PiHost extends EventEmitter {
  /** Everything the host showed, in order. */
  readonly seen: Saw[] = [];
  /** Extension errors pi would print in red (handlers that threw, failed sendUserMessage...). */
  readonly errors: Json[] = [];
  /**
   * The paths pi's built-in tools opened, in order, resolved as pi does (spec §11 trap 13).
   * grep's, find's and ls's root comes with `below: true`: they reach what is below it too (in
   * the session folder grep's files follow, each on its own; outside it nothing is walked).
   */
  readonly opened: { tool: string; path: string; below?: true }[] = [];
  /** The absolute paths the built-in tools opened, in order (§11 trap 13). */
  get openedPaths(): string[] {
    return this.opened.map((o) => o.path);
  }
  /** Whether a built-in tool reached `file`: opened it, or searched or listed a root above it. */
  reached(file: string): boolean {
    const target = path.resolve(file);
    return this.opened.some((o) => {
      const opened = path.resolve(o.path); // an absolute path reaches the tool as written, `/` and all
      return opened === target || (o.below === true && (opened === "/" || target.startsWith(`${opened}/`)));
    });
  }
  /** Every tool that really executed: approved calls, also after an abort (§11 trap 12). */
  readonly executedTools: { tool: string; toolCallId: string; args: Json; aborted: boolean }[] = [];
  private readonly toolSink: ToolSink = {
    cwd: "",
    opened: (tool, file, below) => {
      this.opened.push(below ? { tool, path: file, below } : { tool, path: file });
      this.show(below ? { saw: "tool_opened", tool, path: file, below } : { saw: "tool_opened", tool, path: file });
    },
  };
  /** Every pi.sendUserMessage call, as made. */
  readonly sentUserMessages: { content: unknown; options: Json | undefined; streaming: boolean }[] = [];

  readonly cwd: string;
  readonly agentDir: string;
  readonly hasUI: boolean;
  readonly streamDelayMs: number;
  readonly preRunDelayMs: number;
  readonly compactionMs: number;
  readonly retryBaseDelayMs: number | undefined;
  readonly preRunCompaction: boolean;

  sessionId: string;
  sessionFile: string;
  sessionName: string | undefined;
  model: Json | undefined = MODELS[0];
  thinkingLevel = "medium";

  private readonly extensions: LoadedExtension[] = [];
  private readonly extraTools: Json[];
  private runtimeReady = false;
  private streaming = false;
  private runAbort: AbortController | undefined;
  private runDone: Promise<void> = Promise.resolve();
  private readonly steering: QueuedMessage[] = [];
  private readonly followUps: QueuedMessage[] = [];
  /** Agent events pass through one queue; extension handlers are awaited in turn. */
  private eventChain: Promise<void> = Promise.resolve();
  private entries: Json[] = [];
  private fileWritten = false;
  private visibleDialog: Dialog | undefined;
  private readonly statuses = new Map<string, string>();
  private readonly savedArgv: string[];
  private readonly packageDir: string;
  private shutDown = false;
  /**
   * The session's listener is off the agent (spec §11 traps 1, 2, 17): `compact()`, `/new` and
   * `/resume` unsubscribe before they abort, so the aborted run's last events reach nobody.
   */
  private unsubscribed = false;
  /** pi's `_retryAttempt` and `_overflowRecoveryAttempted` (trap 4). */
  private retryAttempt = 0;
  private overflowTried = false;
  /** A retry's back-off going on (Escape or an abort cancels it: `abortRetry`). */
  private retryWait: AbortController | undefined;
  /** The prompt the last run answered, for a continuation (which has no user message). */
  private lastPromptText = "";
  /** `fail: N x ERROR`: the model's next N calls end with that error. */
  private failing: { left: number; message: string } | undefined;
  /** A compaction runs (pi's `isCompacting`). */
  isCompacting = false;
  /** The session's leaf (`/tree` moves it); null: before the first entry. */
  private leafId: string | null = null;
  /** Queued messages whose session copy `/resume` cleared: the agent still delivers them (trap 2). */
  private readonly copiesCleared = new Set<QueuedMessage>();
  /** Credentials per provider: an API key, an OAuth login, or an OAuth login that cannot refresh. */
  private readonly credentials = new Map<string, "key" | "oauth" | "expired">([
    ["anthropic", "key"],
    ["openai", "key"],
  ]);
  /** Text typed at the terminal during a compaction, sent once it is over (IM 2055–2065). */
  private readonly heldInput: string[] = [];
  /** Each change of the tool set the model is offered, and whether a run was going on (trap 14). */
  readonly toolChanges: { during: "run" | "idle"; active: string[] }[] = [];
  /** How often the tool set (and with it the system prompt) changed: each one misses the prompt cache (trap 14). */
  get toolSetChanges(): number {
    return this.toolChanges.length;
  }
  /** The tools each run started with (a run keeps them to its end: trap 14). */
  readonly runTools: string[][] = [];

  private constructor(options: HostOptions) {
    super();
    this.cwd = options.cwd ?? fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-cwd-"));
    this.agentDir = options.agentDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-agent-"));
    this.hasUI = options.hasUI ?? true;
    this.streamDelayMs = options.streamDelayMs ?? 5;
    this.preRunDelayMs = options.preRunDelayMs ?? 20;
    this.compactionMs = options.compactionMs ?? 50;
    this.retryBaseDelayMs = options.retryBaseDelayMs;
    this.preRunCompaction = options.preRunCompaction ?? false;
    for (const [name, content] of Object.entries(options.prompts ?? {})) {
      fs.mkdirSync(path.join(this.agentDir, "prompts"), { recursive: true });
      fs.writeFileSync(path.join(this.agentDir, "prompts", `${name}.md`), content);
    }
    for (const [name, content] of Object.entries(options.skills ?? {})) {
      fs.mkdirSync(path.join(this.agentDir, "skills", name), { recursive: true });
      fs.writeFileSync(path.join(this.agentDir, "skills", name, "SKILL.md"), content);
    }
    this.extraTools = options.extraTools ?? [];
    this.toolSink.cwd = this.cwd;
    this.sessionId = options.sessionId ?? randomUUID();
    this.sessionFile = this.sessionFileFor(this.sessionId);
    // pi's npm install runs <package>/dist/cli.js: process.argv[1] says where pi is.
    this.packageDir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-package-"));
    fs.mkdirSync(path.join(this.packageDir, "dist"));
    fs.writeFileSync(path.join(this.packageDir, "dist", "cli.js"), "// the fake pi host's stand-in for pi's cli.js\n");
    const version = options.piVersion === undefined ? DEFAULT_PI_VERSION : options.piVersion;
    if (version !== null) {
      const manifest = { name: "@mariozechner/pi-coding-agent", version, piConfig: { name: "pi", configDir: ".pi" } };
      fs.writeFileSync(path.join(this.packageDir, "package.json"), JSON.stringify(manifest, null, 2));
    }
    this.savedArgv = process.argv;
    process.argv = [process.execPath, path.join(this.packageDir, "dist", "cli.js"), ...(options.args ?? [])];
  }

  /** Makes the host and loads its extensions (their factories run; the session is not bound). */
  static async create(options: HostOptions = {}): Promise<PiHost> {
    const host = new PiHost(options);
    for (const file of options.extensions ?? []) await host.load(file);
    return host;
  }

  // ----- loading

  /** Imports an extension anew and runs its factory, as pi's loader does. */
  async load(file: string): Promise<void> {
    const extension: LoadedExtension = { path: path.resolve(file), handlers: new Map(), tools: new Map(), commands: new Map() };
    let factory: unknown;
    try {
      const module = await import(`${pathToFileURL(extension.path).href}?pi-host-load=${++loadCounter}`);
      factory = module.default;
    } catch (error) {
      this.reportError(extension.path, "load", error);
      return;
    }
    if (typeof factory !== "function") {
      this.reportError(extension.path, "load", new Error(`${file} does not export a valid factory function`));
      return;
    }
    this.extensions.push(extension);
    try {
      await factory(this.api(extension));
    } catch (error) {
      this.extensions.pop();
      this.reportError(extension.path, "load", error);
    }
  }

  /** How many handlers the loaded extensions registered (0 for a passive one). */
  handlerCount(event?: string): number {
    let count = 0;
    for (const extension of this.extensions) {
      for (const [name, handlers] of extension.handlers) if (!event || name === event) count += handlers.length;
    }
    return count;
  }

  // ----- the session's life

  /** Binds the runtime and fires session_start, as pi does once its terminal UI is up. */
  async start(): Promise<void> {
    this.runtimeReady = true;
    await this.dispatch("session_start", {});
    this.show({ saw: "session", reason: "start", sessionId: this.sessionId, sessionFile: this.sessionFile });
  }

  /** `/new`: session_before_switch (may be cancelled), abort, new id, session_switch. */
  async newSession(): Promise<boolean> {
    const results = await this.dispatch("session_before_switch", { reason: "new" });
    if (results.some((r) => r?.cancel === true)) return false;
    await this.abortSilently(); // AS 1312–1313: no agent_end for that run (trap 2)
    // §11 trap 2: agent.reset() (AS 1314–1319) empties the agent's steer and follow-up queues, with no event.
    this.steering.length = 0;
    this.followUps.length = 0;
    this.contextMessages.length = 0;
    const previousSessionFile = this.sessionFile;
    this.switchTo(randomUUID(), []);
    await this.dispatch("session_switch", { reason: "new", previousSessionFile });
    this.show({ saw: "session", reason: "new", sessionId: this.sessionId, sessionFile: this.sessionFile });
    return true;
  }

  /** `/fork` from the latest entry: a new session with the same messages. */
  async fork(): Promise<boolean> {
    const entryId = this.leafId ?? "";
    const results = await this.dispatch("session_before_fork", { entryId });
    if (results.some((r) => r?.cancel === true)) return false;
    // §11 trap 3: /fork does not abort (AS 2647–2700): a running loop goes on, its later events
    // still reach the extensions and its messages land in the forked session.
    const previousSessionFile = this.sessionFile;
    this.switchTo(randomUUID(), this.branch().map((entry) => ({ ...entry })));
    // The agent's context is left as it is: the running loop keeps adding to it.
    await this.dispatch("session_fork", { previousSessionFile });
    this.show({ saw: "session", reason: "fork", sessionId: this.sessionId, sessionFile: this.sessionFile });
    return true;
  }

  /**
   * `/resume` of session `id` (spec §7, §11 trap 2): session_before_switch (may be cancelled),
   * abort, the other session's id, session_switch with reason "resume".
   */
  async resume(target: string, options: { model?: { provider: string; id: string } } = {}): Promise<boolean> {
    const found = this.findSession(target);
    const results = await this.dispatch("session_before_switch", { reason: "resume", targetSessionFile: found?.file ?? this.sessionFileFor(target) });
    if (results.some((r) => r?.cancel === true)) return false;
    await this.abortSilently(); // AS 2573–2574 (trap 2)
    // §11 trap 2: only the session's copies of the queues are cleared (AS 2575–2577); what the
    // agent still holds is delivered into the resumed session's next run.
    for (const queued of [...this.steering, ...this.followUps]) this.copiesCleared.add(queued);
    const previousSessionFile = this.sessionFile;
    this.switchTo(found?.id ?? target, found?.entries ?? [], found?.file);
    this.rebuildContext();
    // §11 trap 15: session_switch fires before the resumed model is installed (AS 2586–2625).
    await this.dispatch("session_switch", { reason: "resume", previousSessionFile });
    const saved = options.model ?? savedModel(this.entries);
    const match = saved && MODELS.find((m) => m.provider === saved.provider && m.id === saved.id && this.hasKey(m.provider));
    if (match && match !== this.model) {
      const previousModel = this.model;
      this.model = match;
      await this.dispatch("model_select", { model: match, previousModel, source: "restore" });
    }
    this.show({ saw: "session", reason: "resume", sessionId: this.sessionId, sessionFile: this.sessionFile });
    return true;
  }

  /**
   * `/tree`: moves the session's leaf to `targetId` (default: before the latest user message).
   * §11 trap 3: navigateTree (AS 2717 ff.) does not abort; a running loop goes on and its
   * events keep reaching the extensions across session_tree.
   */
  async tree(targetId?: string): Promise<boolean> {
    const oldLeafId = this.leafId;
    const branch = this.branch();
    const lastUser = branch.findLastIndex((e) => e.type === "message" && e.message?.role === "user");
    const target = targetId ?? (lastUser > 0 ? branch[lastUser - 1].id : null);
    const signal = new AbortController().signal;
    const results = await this.dispatch("session_before_tree", { preparation: { targetId: target, oldLeafId, entriesToSummarize: [], userWantsSummary: false }, signal });
    if (results.some((r) => r?.cancel === true)) return false;
    this.leafId = target;
    await this.dispatch("session_tree", { newLeafId: target, oldLeafId, summaryEntry: undefined, fromExtension: undefined });
    this.show({ saw: "session", reason: "tree", sessionId: this.sessionId, sessionFile: this.sessionFile, leafId: target });
    return true;
  }

  /** A session of this host's folder by id or file, with its entries (pi's session selector). */
  private findSession(target: string): { id: string; file: string; entries: Json[] } | undefined {
    const folder = path.dirname(this.sessionFileFor("x"));
    const file = fs.existsSync(target) ? target : listFiles(folder).find((f) => f.endsWith(`_${target}.jsonl`));
    if (!file) return undefined;
    const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
    const header = lines.find((line) => line.type === "session");
    return { id: header?.id ?? target, file, entries: lines.filter((line) => line.type !== "session") };
  }

  /**
   * `/reload` (spec §1.4, §11 trap 16): refused while streaming; session_shutdown on the loaded
   * instances, each extension imported afresh (its factory runs again), session_start on the
   * new ones. What an instance kept outside globalThis is gone.
   */
  async reload(): Promise<boolean> {
    // §11 trap 16: refused while streaming or compacting (IM 3782–3790): a warning line, nothing else.
    if (this.streaming) {
      this.show({ saw: "warning", message: "Wait for the current response to finish before reloading." });
      return false;
    }
    if (this.isCompacting) {
      this.show({ saw: "warning", message: "Wait for compaction to finish before reloading." });
      return false;
    }
    // §1.4: the extension UI is cleared first; a visible dialog is hidden without being
    // resolved (its countdown stops; only its signal can end it now), statuses go.
    const dialog = this.visibleDialog;
    if (dialog) {
      if (dialog.timer) clearTimeout(dialog.timer);
      this.visibleDialog = undefined;
      this.show({ saw: "dialog_hidden", title: dialog.title });
    }
    for (const key of [...this.statuses.keys()]) {
      this.statuses.delete(key);
      this.show({ saw: "status", key, text: null });
    }
    await this.dispatch("session_shutdown", {});
    const files = this.extensions.map((extension) => extension.path);
    this.extensions.length = 0;
    for (const file of files) await this.load(file);
    this.activeTools = undefined; // includeAllExtensionTools (AS 2286–2290): every tool active again
    await this.dispatch("session_start", {});
    await this.dispatch("resources_discover", { cwd: this.cwd, reason: "reload" });
    this.show({ saw: "session", reason: "reload", sessionId: this.sessionId, sessionFile: this.sessionFile });
    return true;
  }

  /**
   * `/quit`: session_shutdown (awaited), then pi exits. A run going on is not aborted and gets
   * no agent_end (spec §11 trap 17, IM 2633–2655): its events stop with the process.
   */
  async shutdown(): Promise<void> {
    if (this.shutDown) return;
    this.shutDown = true;
    await this.dispatch("session_shutdown", {});
    this.show({ saw: "shutdown" });
    this.unsubscribed = true; // process.exit(0): nothing more reaches anyone
    this.retryWait?.abort();
    this.dispose();
  }

  /** Gives process.argv back and removes the fake package folder (no session_shutdown). */
  dispose(): void {
    this.shutDown = true;
    this.runAbort?.abort();
    process.argv = this.savedArgv;
    try {
      fs.rmSync(this.packageDir, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }

  // ----- the person at the terminal

  /** Types a prompt and presses Enter: steer while the agent streams, as the TUI does. */
  type(text: string): void {
    if (this.visibleDialog) {
      this.show({ saw: "error", message: "a dialog is open: the editor is not there to type in" });
      return;
    }
    // The TUI matches its built-in commands first, before the streaming branch, so they work
    // mid-run (IM 1990–2035; §11 traps 1, 3, 16, 17). /resume and /tree open selectors in pi:
    // here `/resume ID` names the session and `/tree` goes back one prompt.
    const command = /^\/(compact|reload|new|quit|fork|tree|resume)(?:\s+(.*))?$/s.exec(text.trim());
    if (command) {
      const [, name, rest] = command;
      const done = (work: Promise<unknown>) => void work.catch((error) => this.show({ saw: "error", message: errorText(error) }));
      if (name === "compact") done(this.compactFromTerminal(rest?.trim() || undefined));
      else if (name === "reload") done(this.reload());
      else if (name === "new") done(this.newSession());
      else if (name === "quit") done(this.shutdown().then(() => this.emit("quit")));
      else if (name === "fork") done(this.fork());
      else if (name === "tree") done(this.tree(rest?.trim() || undefined));
      else if (rest?.trim()) done(this.resume(rest.trim()));
      else this.show({ saw: "error", message: "/resume needs a session id or file here" });
      return;
    }
    // §11 trap 7: during a compaction the TUI holds typed text and sends it afterwards
    // (extension commands still run at once).
    if (this.isCompacting && !this.isExtensionCommand(text)) {
      this.heldInput.push(text);
      this.show({ saw: "held", text });
      return;
    }
    const streamingBehavior = this.streaming ? "steer" : undefined;
    this.prompt(text, { source: "interactive", images: [], streamingBehavior, expand: true }).catch((error) =>
      this.show({ saw: "error", message: errorText(error) }),
    );
  }

  /** Answers the dialog on screen (a select's option, an input's or editor's text). */
  answer(value: string): boolean {
    const dialog = this.visibleDialog;
    if (!dialog) {
      this.show({ saw: "error", message: "no dialog to answer" });
      return false;
    }
    this.closeDialog(dialog, value, "answer");
    return true;
  }

  /** Escape: dismisses the dialog on screen, else aborts the running agent. */
  escape(): void {
    if (this.visibleDialog) this.closeDialog(this.visibleDialog, undefined, "escape");
    else if (this.retryWait) this.retryWait.abort(); // the TUI's Escape during a back-off: abortRetry
    else this.runAbort?.abort();
  }

  /** pi started without a model, or lost it (§11 trap 6: "No model selected."). */
  removeModel(): void {
    this.model = undefined;
  }

  /** `/logout PROVIDER`: its credentials are gone (trap 6: "No API key found for …"). */
  logout(provider: string): void {
    this.credentials.delete(provider);
  }

  /** The provider's OAuth login expired and cannot refresh (trap 6: "Authentication failed for …"). */
  expireLogin(provider: string): void {
    this.credentials.set(provider, "expired");
  }

  /** `/login PROVIDER`: an API key, or an OAuth login. */
  login(provider: string, kind: "key" | "oauth" = "key"): void {
    this.credentials.set(provider, kind);
  }

  /** Whether pi would find an API key for the provider (an expired OAuth login has none). */
  hasKey(provider: string): boolean {
    const credential = this.credentials.get(provider);
    return credential === "key" || credential === "oauth";
  }

  /** `/name TEXT` (pi appends a session_info entry; extensions get no event). */
  rename(name: string): void {
    this.sessionName = name;
    this.appendEntry({ type: "session_info", name });
  }

  /** Shift+Tab: the next thinking level (pi fires no extension event). */
  cycleThinking(): void {
    const index = THINKING_LEVELS.indexOf(this.thinkingLevel);
    this.thinkingLevel = THINKING_LEVELS[(index + 1) % THINKING_LEVELS.length];
  }

  /** `/model provider/id`. */
  async selectModel(provider: string, id: string): Promise<boolean> {
    const found = MODELS.find((m) => m.provider === provider && m.id === id);
    if (!found) return false;
    const previousModel = this.model;
    this.model = found;
    await this.dispatch("model_select", { model: found, previousModel, source: "set" });
    return true;
  }

  /** The tool pi would run under that name (the first registration wins). */
  tool(name: string): Json | undefined {
    return this.allTools().find((t) => t.name === name);
  }

  /** A ctx as a tool's execute gets it. */
  toolContext(): Json {
    return this.context();
  }

  get isStreaming(): boolean {
    return this.streaming;
  }

  /** The text on the footer for a status key. */
  status(key: string): string | undefined {
    return this.statuses.get(key);
  }

  /** Resolves with the first thing seen (already or later) that `match` accepts. */
  waitFor(match: (saw: Saw) => boolean, timeoutMs = 5000, what = "a matching sight"): Promise<Saw> {
    const found = this.seen.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off("saw", listener);
        reject(new Error(`host: no ${what} within ${timeoutMs} ms; saw ${JSON.stringify(this.seen.slice(-8))}`));
      }, timeoutMs);
      const listener = (saw: Saw) => {
        if (!match(saw)) return;
        clearTimeout(timer);
        this.off("saw", listener);
        resolve(saw);
      };
      this.on("saw", listener);
    });
  }

  /** Waits until no run is going and every queued event reached the extensions. */
  async idle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.runDone;
      await this.eventChain;
      if (!this.streaming) return;
      await sleep(5);
    }
  }

  // ----- what the host shows

  private show(saw: Saw): void {
    this.seen.push(saw);
    this.emit("saw", saw);
  }

  private reportError(extensionPath: string, event: string, error: unknown): void {
    const record = { extensionPath, event, error: errorText(error) };
    this.errors.push(record);
    this.show({ saw: "extension_error", ...record });
  }

  // ----- the extension API (`pi`)

  private api(extension: LoadedExtension): Json {
    const host = this;
    const action = <T>(body: () => T): T => {
      if (!host.runtimeReady) throw new Error(NOT_INITIALIZED);
      return body();
    };
    return {
      on(event: string, handler: Handler) {
        const list = extension.handlers.get(event) ?? [];
        list.push(handler);
        extension.handlers.set(event, list);
      },
      registerTool(tool: Json) {
        const before = host.runtimeReady ? host.activeNames() : undefined;
        extension.tools.set(tool.name, tool);
        host.activeTools?.add(tool.name); // a tool registered later is active at once (§6)
        if (before) host.noteToolChange(before);
      },
      registerCommand(name: string, options: Json) {
        extension.commands.set(name, options);
      },
      registerShortcut() {},
      registerFlag() {},
      getFlag() {
        return undefined;
      },
      registerMessageRenderer() {},
      registerProvider() {},
      unregisterProvider() {},
      events: new EventEmitter(),
      sendUserMessage(content: unknown, options?: Json) {
        action(() => host.sendUserMessage(content, options));
      },
      sendMessage() {
        action(() => undefined);
      },
      appendEntry(customType: string, data?: unknown) {
        action(() => host.appendEntry({ type: "custom", customType, data }));
      },
      setSessionName(name: string) {
        action(() => host.rename(name));
      },
      getSessionName() {
        return action(() => host.sessionName);
      },
      setLabel() {
        action(() => undefined);
      },
      getActiveTools() {
        return action(() => host.allTools().map((t) => t.name).filter((name) => host.isActive(name)));
      },
      getAllTools() {
        return action(() => host.allTools().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })));
      },
      setActiveTools(names: string[]) {
        action(() => host.setActive(names));
      },
      getCommands() {
        return action(() => host.slashCommands());
      },
      async setModel(target: Json) {
        if (!host.runtimeReady) throw new Error(NOT_INITIALIZED);
        if (!host.hasKey(target?.provider)) return false; // pi: false when no API key (§2)
        return host.selectModel(target.provider, target.id);
      },
      getThinkingLevel() {
        return action(() => host.thinkingLevel);
      },
      setThinkingLevel(level: string) {
        action(() => {
          // pi clamps to what the model supports.
          host.thinkingLevel = host.model?.reasoning === false ? "off" : level;
        });
      },
      async exec() {
        return { stdout: "", stderr: "exec is not part of the fake pi host", code: 1, killed: false };
      },
    };
  }

  /** The tools offered to the model; undefined: all of them (a new registration is active). */
  activeTools: Set<string> | undefined;

  isActive(name: string): boolean {
    return this.activeTools === undefined || this.activeTools.has(name);
  }

  /** pi's setActiveTools: unknown names are ignored. */
  setActive(names: string[]): void {
    const before = this.activeNames();
    const known = new Set(this.allTools().map((t) => t.name));
    this.activeTools = new Set(names.filter((name) => known.has(name)));
    this.noteToolChange(before);
  }

  private activeNames(): string[] {
    return this.allTools().map((t) => t.name).filter((name) => this.isActive(name));
  }

  /**
   * setActiveTools and a runtime registerTool rebuild the system prompt and the tool list (AS
   * 722–737, 2171–2225): recorded, with whether a run was going on (trap 14: that run keeps its
   * own copy, and the next request misses the prompt cache).
   */
  private noteToolChange(before: string[]): void {
    const after = this.activeNames();
    if (after.length === before.length && after.every((name, index) => name === before[index])) return;
    this.toolChanges.push({ during: this.streaming ? "run" : "idle", active: after });
  }

  private allTools(): Json[] {
    const tools: Json[] = BUILTIN_TOOLS.map((name) => builtinTool(name, this.toolSink));
    tools.push(...this.extraTools, this.workTool());
    const names = new Set(tools.map((t) => t.name));
    for (const extension of this.extensions) {
      for (const tool of extension.tools.values()) {
        if (names.has(tool.name)) continue; // the first registration wins
        names.add(tool.name);
        tools.push(tool);
      }
    }
    return tools;
  }

  /** A built-in test tool that reports progress: `work: STEPS x MS` prompts call it. */
  private workTool(): Json {
    return {
      name: "work",
      description: "Does STEPS steps of MS milliseconds, reporting each.",
      parameters: { type: "object", properties: { steps: { type: "number" }, stepMs: { type: "number" } } },
      async execute(_id: string, params: Json, signal: AbortSignal | undefined, onUpdate: (update: Json) => void) {
        let output = "";
        for (let step = 1; step <= params.steps; step++) {
          if (signal?.aborted) throw new Error("aborted");
          await sleep(params.stepMs);
          output += `step ${step}\n`;
          onUpdate?.({ content: [{ type: "text", text: output }], details: { step } });
        }
        return { content: [{ type: "text", text: output }], details: { steps: params.steps } };
      },
    };
  }

  // ----- ctx and ctx.ui

  private context(): Json {
    const host = this;
    return {
      ui: this.ui(),
      hasUI: this.hasUI,
      cwd: this.cwd,
      sessionManager: this.sessionManager(),
      modelRegistry: {
        getAll: () => MODELS,
        getAvailable: () => MODELS.filter((m) => host.hasKey(m.provider)),
        find: (provider: string, id: string) => MODELS.find((m) => m.provider === provider && m.id === id),
        // §11 trap 6: what prompt() checks, async as pi's; undefined for no key or an expired login.
        getApiKey: async (target: Json) => (host.hasKey(target?.provider) ? `fake-key-${target.provider}` : undefined),
        getApiKeyForProvider: async (provider: string) => (host.hasKey(provider) ? `fake-key-${provider}` : undefined),
        isUsingOAuth: (target: Json) => ["oauth", "expired"].includes(host.credentials.get(target?.provider) ?? ""),
        refresh: () => undefined,
        getError: () => undefined,
      },
      get model() {
        return host.model;
      },
      isIdle: () => !host.streaming,
      // AgentSession.abort (AS 1280–1284): a retry's back-off is cancelled too (abortRetry).
      abort: () => {
        host.retryWait?.abort();
        host.runAbort?.abort();
      },
      // pi counts the session's copies of the queues (AS 1259), which /resume clears (trap 2).
      hasPendingMessages: () => [...host.steering, ...host.followUps].some((m) => !host.copiesCleared.has(m)),
      shutdown: () => void host.shutdown(),
      getContextUsage: () => ({ tokens: null, contextWindow: host.model?.contextWindow ?? 0, percent: null }),
      getSystemPrompt: () => SYSTEM_PROMPT,
      compact: (options: Json = {}) => void host.compact(options),
    };
  }

  private sessionManager(): Json {
    const host = this;
    return {
      getCwd: () => host.cwd,
      getSessionDir: () => path.dirname(host.sessionFile),
      getSessionId: () => host.sessionId,
      getSessionFile: () => host.sessionFile,
      getSessionName: () => host.sessionName,
      getEntries: () => host.entries.slice(),
      getBranch: () => host.branch(),
      getLeafId: () => host.leafId,
      getLeafEntry: () => host.entries.find((e) => e.id === host.leafId),
      getEntry: (id: string) => host.entries.find((e) => e.id === id),
      getHeader: () => ({ type: "session", version: 3, id: host.sessionId, cwd: host.cwd }),
    };
  }

  private ui(): Json {
    const host = this;
    const dialogs = host.hasUI;
    return {
      select(title: string, options: string[], opts: Json = {}) {
        if (!dialogs) return Promise.resolve(undefined);
        return host.openDialog({ method: "select", title, options }, opts);
      },
      async confirm(title: string, message: string, opts: Json = {}) {
        if (!dialogs) return false;
        const choice = await host.openDialog({ method: "confirm", title: `${title}\n${message}`, options: ["Yes", "No"] }, opts);
        return choice === "Yes";
      },
      input(title: string, placeholder?: string, opts: Json = {}) {
        if (!dialogs) return Promise.resolve(undefined);
        return host.openDialog({ method: "input", title, placeholder }, opts);
      },
      // pi's editor takes no options: no signal, no timeout.
      editor(title: string, prefill?: string) {
        if (!dialogs) return Promise.resolve(undefined);
        return host.openDialog({ method: "editor", title, prefill }, {});
      },
      custom() {
        return Promise.resolve(undefined);
      },
      notify(message: string, type?: string) {
        host.show({ saw: "notify", message, type: type ?? "info" });
      },
      setStatus(key: string, text: string | undefined) {
        if (text === undefined) host.statuses.delete(key);
        else host.statuses.set(key, text);
        host.show({ saw: "status", key, text: text ?? null });
      },
      setWidget(key: string, lines: unknown) {
        host.show({ saw: "widget", key, lines: Array.isArray(lines) ? lines : null });
      },
      setTitle(title: string) {
        host.show({ saw: "title", title });
      },
      setWorkingMessage() {},
      setFooter() {},
      setHeader() {},
      setEditorText() {},
      getEditorText: () => "",
      pasteToEditor() {},
      setEditorComponent() {},
      onTerminalInput: () => () => {},
      getToolsExpanded: () => false,
      setToolsExpanded() {},
      theme: { fg: (_color: string, text: string) => text, bg: (_color: string, text: string) => text, bold: (text: string) => text },
    };
  }

  /**
   * One dialog on screen at a time: a second one replaces the first on screen, and the first
   * promise stays pending until its own signal or timeout ends it. A signal already aborted
   * resolves at once without showing anything.
   */
  private openDialog(spec: Json, opts: Json): Promise<string | undefined> {
    const signal: AbortSignal | undefined = opts?.signal;
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const dialog: Dialog = { method: spec.method, title: spec.title, options: spec.options, closed: false, resolve };
      if (this.visibleDialog && !this.visibleDialog.closed) {
        this.show({ saw: "dialog_orphaned", title: this.visibleDialog.title });
      }
      this.visibleDialog = dialog;
      const shown: Saw = { saw: "dialog", method: spec.method, title: spec.title };
      if (spec.options) shown.options = spec.options;
      this.show(shown);
      signal?.addEventListener("abort", () => this.closeDialog(dialog, undefined, "abort"), { once: true });
      if (typeof opts?.timeout === "number" && opts.timeout > 0) {
        // Cleared when the dialog closes otherwise, as pi's countdown is.
        dialog.timer = setTimeout(() => this.closeDialog(dialog, undefined, "timeout"), opts.timeout);
      }
    });
  }

  private closeDialog(dialog: Dialog, value: string | undefined, by: string): void {
    if (dialog.closed) return;
    dialog.closed = true;
    if (dialog.timer) clearTimeout(dialog.timer);
    if (this.visibleDialog === dialog) this.visibleDialog = undefined;
    this.show({ saw: "dialog_closed", by, title: dialog.title });
    dialog.resolve(value);
  }

  // ----- events

  /**
   * Dispatches to every extension's handlers in load and registration order, each awaited; a
   * throw is reported as an extension error and dispatch goes on. Returns the handlers' results.
   */
  private async dispatch(type: string, payload: Json): Promise<unknown[]> {
    const results: unknown[] = [];
    const event = { type, ...payload };
    for (const extension of this.extensions) {
      for (const handler of extension.handlers.get(type) ?? []) {
        try {
          results.push(await handler(event, this.context()));
        } catch (error) {
          this.reportError(extension.path, type, error);
        }
      }
    }
    return results;
  }

  /** Agent events go through one queue: the agent loop does not wait for the handlers. */
  private queueEvent(type: string, payload: Json, after?: () => void): void {
    if (this.unsubscribed) return; // nobody listens (traps 1, 2, 17)
    this.eventChain = this.eventChain.then(async () => {
      await this.dispatch(type, payload);
      after?.();
    });
  }

  // ----- prompts

  private sendUserMessage(content: unknown, options?: Json): void {
    const { text, images } = flattenContent(content);
    this.sentUserMessages.push({ content, options, streaming: this.streaming });
    // Fire and forget; a failure becomes an extension error, never the caller's.
    this.prompt(text, { source: "extension", images, streamingBehavior: options?.deliverAs }).catch((error) =>
      this.reportError("<runtime>", "send_user_message", error),
    );
  }

  /**
   * AgentSession.prompt: the `input` event (its first handler runs before this returns), then
   * the busy check, then the pre-run phase during which pi is still idle: a second prompt that
   * passes the busy check then collides when its run would start.
   */
  private async prompt(text: string, opts: { source: string; images: Json[]; streamingBehavior?: string; expand?: boolean }): Promise<void> {
    // Typed text runs an extension command first, even while streaming (AS 870–876); an
    // extension's sendUserMessage never does (spec §11 trap 8).
    if (opts.expand && text.startsWith("/") && (await this.runExtensionCommand(text))) return;
    let current = { text, images: opts.images };
    if (this.handlerCount("input") > 0) {
      // §5.3: transforms chain (each handler sees the text the ones before it made), and the
      // first `handled` ends the dispatch and drops the prompt.
      for (const extension of this.extensions) {
        for (const handler of extension.handlers.get("input") ?? []) {
          let result: Json | undefined;
          try {
            result = (await handler({ type: "input", text: current.text, images: current.images, source: opts.source }, this.context())) as Json | undefined;
          } catch (error) {
            this.reportError(extension.path, "input", error);
            continue;
          }
          if (result?.action === "handled") return;
          if (result?.action === "transform") current = { text: result.text, images: result.images ?? current.images };
        }
      }
    }
    if (opts.expand) current = { text: this.expandSlash(current.text), images: current.images };
    const message = { text: current.text, images: current.images, source: opts.source };
    if (this.streaming) {
      if (opts.streamingBehavior === "steer") this.steering.push(message);
      else if (opts.streamingBehavior === "followUp") this.followUps.push(message);
      else throw new Error(BUSY_NO_BEHAVIOR);
      return;
    }
    // §11 trap 6: the pre-run checks' failures, in pi's words (AS 921–945); `input` has fired,
    // agent_start never comes. A sendUserMessage's failure becomes an extension error.
    const providersDoc = path.join(this.packageDir, "docs", "providers.md");
    if (!this.model) {
      throw new Error(`No model selected.\n\nUse /login or set an API key environment variable. See ${providersDoc}\n\nThen use /model to select a model.`);
    }
    if (!this.hasKey(this.model.provider)) {
      if (this.credentials.has(this.model.provider)) {
        throw new Error(
          `Authentication failed for "${this.model.provider}". Credentials may have expired or network is unavailable. Run '/login ${this.model.provider}' to re-authenticate.`,
        );
      }
      throw new Error(`No API key found for ${this.model.provider}.\n\nUse /login or set an API key environment variable. See ${providersDoc}`);
    }
    await sleep(this.preRunDelayMs);
    // §11 trap 5: the pre-run phase can run a whole compaction before agent_start (AS 947–951):
    // when the last answer (an aborted one too) is over the threshold, or for `precompact:`
    // prompts and the preRunCompaction option. pi stays idle all along.
    const lastAnswer = this.contextMessages.findLast((m) => m.role === "assistant");
    if (this.preRunCompaction || /^precompact:/.test(current.text) || (lastAnswer && this.overThreshold(lastAnswer))) {
      await this.compactNow(undefined, true).catch(() => undefined); // auto_compaction_end goes to no extension
    }
    await this.dispatch("before_agent_start", { prompt: current.text, images: current.images, systemPrompt: SYSTEM_PROMPT });
    if (this.streaming) throw new Error(BUSY_COLLISION);
    this.streaming = true;
    this.runDone = this.run(message);
    await this.runDone;
  }

  // ----- slash commands, templates and skills (spec §2 getCommands, §5.3, §11 trap 8)

  /**
   * pi's getCommands() (AS 2070–2101): extension commands (not under a built-in's name) with
   * their extension's path, then prompt templates (`<agentDir>/prompts/*.md`,
   * `<cwd>/.pi/prompts/*.md`), then skills (`<agentDir>/skills/NAME/SKILL.md`,
   * `<cwd>/.pi/skills/NAME/SKILL.md`, named by their frontmatter's `name` or their folder,
   * left out without a `description`), each with its file's path.
   */
  slashCommands(): Json[] {
    const commands: Json[] = [];
    for (const extension of this.extensions) {
      for (const [name, options] of extension.commands) {
        if (BUILTIN_SLASH_COMMANDS.includes(name)) continue;
        commands.push({ name, description: options?.description, source: "extension", path: extension.path });
      }
    }
    const places: [string, string][] = [
      [this.agentDir, "user"],
      [path.join(this.cwd, ".pi"), "project"],
    ];
    for (const [root, location] of places) {
      for (const file of listFiles(path.join(root, "prompts")).filter((f) => f.endsWith(".md"))) {
        commands.push({ name: path.basename(file, ".md"), description: "", source: "prompt", location, path: file });
      }
    }
    for (const [root, location] of places) {
      for (const folder of listFiles(path.join(root, "skills"))) {
        const file = path.join(folder, "SKILL.md");
        if (!fs.existsSync(file)) continue;
        const meta = frontmatterOf(fs.readFileSync(file, "utf8"));
        if (!meta.description) continue;
        commands.push({ name: `skill:${meta.name || path.basename(folder)}`, description: meta.description, source: "skill", location, path: file });
      }
    }
    return commands;
  }

  private isExtensionCommand(text: string): boolean {
    const name = /^\/(\S+)/.exec(text)?.[1];
    return name !== undefined && !BUILTIN_SLASH_COMMANDS.includes(name) && this.extensions.some((extension) => extension.commands.has(name));
  }

  /** `_tryExecuteExtensionCommand` (AS 1009–1036): the handler gets the args and a command ctx. */
  private async runExtensionCommand(text: string): Promise<boolean> {
    const space = text.indexOf(" ");
    const name = space === -1 ? text.slice(1) : text.slice(1, space);
    const args = space === -1 ? "" : text.slice(space + 1);
    const found = this.extensions.find((extension) => extension.commands.has(name) && !BUILTIN_SLASH_COMMANDS.includes(name));
    if (!found) return false;
    this.show({ saw: "command", name, args });
    try {
      await found.commands.get(name)!.handler(args, this.commandContext());
    } catch (error) {
      this.reportError(`command:${name}`, "command", error);
    }
    return true;
  }

  /** ExtensionCommandContext (spec §3): ctx and the session controls. */
  private commandContext(): Json {
    return {
      ...this.context(),
      waitForIdle: () => this.idle(),
      newSession: async () => ({ cancelled: !(await this.newSession()) }),
      fork: async () => ({ cancelled: !(await this.fork()) }),
      navigateTree: async (targetId: string) => ({ cancelled: !(await this.tree(targetId)) }),
      switchSession: async (sessionPath: string) => ({ cancelled: !(await this.resume(sessionPath)) }),
      reload: async () => void (await this.reload()),
    };
  }

  /**
   * `_expandSkillCommand` then `expandPromptTemplate` (AS 896–901, core/prompt-templates.ts):
   * the fake's own reading, kept apart from the extension's.
   */
  private expandSlash(text: string): string {
    if (!text.startsWith("/")) return text;
    const space = text.indexOf(" ");
    const name = space === -1 ? text.slice(1) : text.slice(1, space);
    const rest = space === -1 ? "" : text.slice(space + 1);
    const found = this.slashCommands().find((c) => c.name === name && c.source !== "extension");
    if (!found) return text;
    const body = frontmatterOf(fs.readFileSync(found.path, "utf8")).body;
    if (found.source === "skill") {
      const block = `<skill name="${name.slice(6)}" location="${found.path}">\nReferences are relative to ${path.dirname(found.path)}.\n\n${body.trim()}\n</skill>`;
      return rest.trim() ? `${block}\n\n${rest.trim()}` : block;
    }
    return fillTemplate(body, splitTemplateArgs(rest));
  }

  private async abortAndWait(): Promise<void> {
    this.runAbort?.abort();
    await this.idle();
  }

  /**
   * `AgentSession.compact()` (spec §11 trap 1, AS 1606–1714): unsubscribes, aborts the run (its
   * last message_end, turn_end and agent_end reach nobody), then checks, `session_before_compact`,
   * the summary (an LLM call), `session_compact`, and subscribes again. Reached by `ctx.compact()`
   * and the TUI's `/compact`, which works mid-run (`compactFromTerminal`).
   */
  private async compact(options: Json): Promise<void> {
    try {
      options.onComplete?.(await this.compactNow(options.customInstructions));
    } catch (error) {
      options.onError?.(error);
    }
  }

  /** `auto`: pi's own compaction after an overflow (AS 1824 ff.), which neither unsubscribes nor aborts. */
  private async compactNow(customInstructions?: string, auto = false): Promise<Json> {
    if (!auto) this.unsubscribed = true;
    this.isCompacting = true;
    const reason = auto ? "auto" : "manual";
    let outcome = "failed";
    this.show({ saw: "compaction", phase: "start", reason });
    try {
      if (!auto) await this.abortAndWait();
      if (!auto) this.retryWait?.abort();
      if (!this.model) throw new Error("No model selected");
      const messages = this.entries.filter((e) => e.type === "message");
      if (messages.length < 2) throw new Error("Nothing to compact (session too small)");
      const results = await this.dispatch("session_before_compact", {
        preparation: { firstKeptEntryId: messages.at(-1)!.id, tokensBefore: 1234 },
        branchEntries: this.entries.slice(),
        customInstructions,
        signal: new AbortController().signal,
      });
      if (results.some((r: any) => r?.cancel === true)) throw new Error("Compaction cancelled");
      // An extension may bring its own summary (§8.2): no LLM call then.
      const given = (results as Json[]).find((r) => r?.compaction)?.compaction;
      // The summary's LLM call; pi shows "Compacting…" in the terminal meanwhile (spec §11 trap 7).
      this.show({ saw: "compacting", auto });
      if (!given) await sleep(this.compactionMs);
      const result = given ?? { summary: "The fake host's summary.", firstKeptEntryId: messages.at(-1)!.id, tokensBefore: 1234 };
      this.appendEntry({ type: "compaction", ...result, fromHook: Boolean(given) });
      // AS 1685–1689: the agent's context becomes the summary plus the kept messages; a run that
      // started meanwhile, unseen, loses what it had added (§11 trap 7).
      this.rebuildContext();
      await this.dispatch("session_compact", { compactionEntry: this.entries.at(-1), fromExtension: Boolean(given) });
      outcome = "done";
      return result;
    } catch (error) {
      if (errorText(error) === "Compaction cancelled") outcome = "cancelled";
      throw error;
    } finally {
      this.isCompacting = false;
      if (!auto) this.unsubscribed = false;
      this.show({ saw: "compaction", phase: "end", reason, outcome });
      // §11 trap 7: what the person typed meanwhile is sent now (IM 2055–2065, 2689–2699), after
      // session_compact. §5.3: only the first goes through prompt() (with `input`); the TUI hands
      // the rest to steer() (typed with Enter), which fires no `input` and expands as RPC steer
      // does (trap 8), so they join the first one's run.
      const [first, ...rest] = this.heldInput.splice(0);
      if (first !== undefined) this.type(first);
      for (const text of rest) this.steering.push({ text: this.expandSlash(text), images: [], source: "interactive" });
    }
  }

  /** The TUI's `/compact` (matched before the streaming branch: it works mid-run, IM 2005–2009). */
  async compactFromTerminal(customInstructions?: string): Promise<void> {
    try {
      await this.compactNow(customInstructions);
      this.show({ saw: "compacted" });
    } catch (error) {
      this.show({ saw: "error", message: `Compaction failed: ${errorText(error)}` });
    }
  }

  /** `/new`, `/resume`: the listener is off while the run is aborted (trap 2); a retry's back-off ends too. */
  private async abortSilently(): Promise<void> {
    this.unsubscribed = true;
    try {
      this.retryWait?.abort();
      await this.abortAndWait();
    } finally {
      this.unsubscribed = false;
    }
  }

  // ----- what pi does after agent_end (spec §11 trap 4)

  /**
   * pi's agent_end processing, after the extensions' handlers (AS 499–510): a retryable error is
   * retried after `baseDelayMs·2^(n-1)` (2311–2400), else a context overflow is compacted and
   * continued 100 ms later (1742–1790, 1928–1939). Retry settings as pi reads them
   * (settings-manager.ts 651–671): `<agentDir>/settings.json`, then `<cwd>/.pi/settings.json`.
   */
  private async afterAgentEnd(last: Json | undefined): Promise<void> {
    if (!last || this.shutDown) return;
    const settings = piSettings(this.cwd, this.agentDir);
    if (this.retryBaseDelayMs !== undefined) settings.retry.baseDelayMs = this.retryBaseDelayMs;
    const contextWindow = this.model?.contextWindow ?? 0;
    if (last.stopReason === "error" && last.errorMessage && !hostContextOverflow(last, contextWindow) && HOST_RETRYABLE.test(last.errorMessage)) {
      if (settings.retry.enabled) {
        this.retryAttempt++;
        if (this.retryAttempt <= settings.retry.maxRetries) {
          const wait = new AbortController();
          this.retryWait = wait;
          const delayMs = settings.retry.baseDelayMs * 2 ** (this.retryAttempt - 1);
          this.show({ saw: "retrying", attempt: this.retryAttempt, delayMs, errorMessage: last.errorMessage });
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delayMs);
            wait.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
          });
          this.retryWait = undefined;
          if (wait.signal.aborted) {
            this.retryAttempt = 0;
            this.show({ saw: "retry_cancelled" });
            return;
          }
          this.dropFailedAnswer();
          this.continueRun();
          return;
        }
        this.retryAttempt = 0;
      }
    }
    const sameModel = this.model && last.provider === this.model.provider && last.model === this.model.id;
    if (settings.compactionEnabled && last.stopReason !== "aborted" && sameModel && hostContextOverflow(last, contextWindow) && !this.overflowTried) {
      this.overflowTried = true;
      this.show({ saw: "overflow_compaction" });
      try {
        this.dropFailedAnswer();
        await this.compactNow(undefined, true);
        this.dropFailedAnswer();
      } catch (error) {
        this.show({ saw: "error", message: `Context overflow recovery failed: ${errorText(error)}` });
        return;
      }
      setTimeout(() => this.continueRun(), 100);
      return;
    }
    // §11 trap 4: a threshold compaction (AS 1793–1818) after a big answer (`full:` prompts); it
    // continues only when messages are queued (1940–1945).
    if (settings.compactionEnabled && last.stopReason !== "aborted" && last.stopReason !== "error" && this.overThreshold(last)) {
      try {
        await this.compactNow(undefined, true);
      } catch {
        return;
      }
      if (this.steering.length + this.followUps.length > 0) setTimeout(() => this.continueRun(), 100);
    }
  }

  /** shouldCompact (compaction.ts 212–215) on an answer's usage (calculateContextTokens). */
  private overThreshold(answer: Json): boolean {
    const usage = answer.usage ?? {};
    const tokens = usage.totalTokens || (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
    return tokens > (this.model?.contextWindow ?? 0) - RESERVE_TOKENS;
  }

  /** `agent.continue()`: a run with no user message; a second start fails without a word (trap 7). */
  private continueRun(): void {
    if (this.streaming || this.shutDown) return;
    // agent.ts 434–456: from an assistant message only queued messages can continue; else it
    // throws, and pi's .catch(() => {}) swallows it (§11 trap 7).
    let first: QueuedMessage | undefined;
    if (this.contextMessages.at(-1)?.role === "assistant") {
      first = this.steering.length > 0 ? this.steering.shift() : this.followUps.shift();
      if (!first) return;
    } else if (this.contextMessages.length === 0) {
      return;
    }
    this.streaming = true;
    this.runDone = this.run(first);
  }

  /**
   * The agent's context (pi's `agent.state.messages`, what RPC get_state counts as messageCount):
   * every message a run emitted, whether anyone listened or not; rebuilt from the session at a
   * compaction, /resume and /fork (session-manager.ts buildSessionContext), emptied by /new.
   */
  readonly contextMessages: Json[] = [];

  get messageCount(): number {
    return this.contextMessages.length;
  }

  private rebuildContext(): void {
    this.contextMessages.splice(0, this.contextMessages.length, ...buildContext(this.branch()));
  }

  /** pi drops a failed answer from the context before it retries or continues (AS 2370–2373, 1760–1763). */
  private dropFailedAnswer(): void {
    const last = this.contextMessages.at(-1);
    if (last?.role === "assistant" && last.stopReason === "error") this.contextMessages.pop();
  }

  // ----- the simulated agent

  /**
   * One run: turns until the model stops, steering taken after each turn, follow-ups when it
   * would stop. The events' order and shapes are pi's (pi-extension-api.md §8.1).
   */
  private async run(first: QueuedMessage | undefined): Promise<void> {
    const abort = new AbortController();
    this.runAbort = abort;
    const runMessages: Json[] = [];
    let pending: QueuedMessage[] = first ? [first] : [];
    // agent-loop.ts runLoop: a steering poll before the first LLM call (one at a time), so a steer
    // the agent kept across /resume arrives right after the next prompt (§11 trap 2).
    if (first && this.steering.length > 0) pending.push(this.steering.shift()!);
    let lastText = "";
    let turnIndex = 0;
    let planText = first?.text ?? this.lastPromptText; // a continuation answers the same prompt
    let lastAssistant: Json | undefined;
    let thrown: Json | undefined;
    if (first) {
      this.lastPromptText = first.text;
      const fail = /^fail:\s*(\d+)\s*x\s*(.+)$/s.exec(first.text);
      this.failing = fail ? { left: Number(fail[1]), message: fail[2] } : undefined;
      // §11 trap 4: `flaky: N TEXT` fails N times with Anthropic's retryable 529 overloaded_error;
      // `overflow: TEXT` once with a context overflow; `fail: MESSAGE` once with that error.
      const flaky = /^flaky:\s*(\d+)\s/.exec(first.text);
      if (flaky) this.failing = { left: Number(flaky[1]), message: OVERLOADED };
      if (/^overflow:/.test(first.text)) this.failing = { left: 1, message: TOO_LONG };
      const once = /^fail:\s*(.+)$/s.exec(first.text);
      if (!fail && once) this.failing = { left: 1, message: once[1] };
    }
    this.runTools.push(this.activeNames()); // the run's own copy (agent.ts 522–526)
    // §11 trap 14: the tool objects themselves are copied at the start; setActiveTools or a
    // registerTool later in the run does not change what this run can call.
    const runToolList = this.allTools().filter((t) => this.isActive(t.name));
    this.queueEvent("agent_start", {});
    try {
      while (true) {
        this.queueEvent("turn_start", { turnIndex, timestamp: Date.now() });
        for (const queued of pending) {
          const user = userMessage(queued.text, queued.images);
          runMessages.push(user);
          this.contextMessages.push(user);
          this.queueEvent("message_start", { message: user }, () =>
            this.show({ saw: "user_message", text: queued.text, source: queued.source, images: imageSights(queued.images) }),
          );
          this.queueEvent("message_end", { message: user }, () => this.persist(user));
          planText = queued.text;
          this.overflowTried = false; // AS 433
        }
        pending = [];
        const toolResults: Json[] = [];
        const assistant = this.failing && this.failing.left > 0 ? this.failedAnswer() : await this.streamAssistant(this.plan(planText, runMessages), abort.signal);
        lastAssistant = assistant;
        if (assistant.stopReason !== "error") {
          this.overflowTried = false;
          this.retryAttempt = 0; // AS 478–495: an answer ends a retry
        }
        runMessages.push(assistant);
        this.contextMessages.push(assistant);
        lastText = textOf(assistant) || lastText;
        if (assistant.stopReason === "toolUse") {
          const calls = assistant.content.filter((b: Json) => b.type === "toolCall");
          const batch = await this.executeBatch(calls, runToolList, abort.signal);
          for (const result of batch.results) {
            toolResults.push(result);
            runMessages.push(result);
            this.contextMessages.push(result);
          }
          this.queueEvent("turn_end", { turnIndex, message: assistant, toolResults });
          turnIndex++;
          // §5.1, pi-rpc.md §5 (steering mode, default one-at-a-time): one queued steer per poll.
          pending = batch.steering.length > 0 ? batch.steering : this.steering.splice(0, 1);
          planText = "";
          continue;
        }
        this.queueEvent("turn_end", { turnIndex, message: assistant, toolResults });
        turnIndex++;
        if (assistant.stopReason === "aborted" || assistant.stopReason === "error") break;
        // §5.1, pi-rpc.md §5: one queued steer per turn, the rest wait for the next poll.
        if (this.steering.length > 0) pending = this.steering.splice(0, 1);
        else if (this.followUps.length > 0) pending = [this.followUps.shift()!];
        else break;
      }
    } catch (error) {
      if (!(error instanceof LoopThrow)) throw error;
      // §8.1: the loop threw; the agent keeps the synthetic message (appendMessage), nobody
      // persists it (no message_end), and pi's retry looks only at message_end's (§11 trap 4).
      thrown = loopFailure(error, this.model, abort.signal.aborted);
      this.contextMessages.push(thrown);
    } finally {
      this.streaming = false; // before agent_end reaches the extensions (trap 3)
      this.runAbort = undefined;
      const text = lastText;
      const listened = !this.unsubscribed;
      this.queueEvent("agent_end", { messages: thrown ? [thrown] : runMessages }, () => this.show({ saw: "run_end", text }));
      // pi decides on a retry or an overflow compaction after the extensions had agent_end.
      if (listened) void this.eventChain.then(() => this.afterAgentEnd(lastAssistant)).catch((error) => this.show({ saw: "error", message: errorText(error) }));
    }
  }

  /** `fail: N x ERROR`: the provider's error, as an assistant message with stopReason "error". */
  private failedAnswer(): Json {
    this.failing!.left--;
    const message = assistantMessage([], "error", this.model);
    message.errorMessage = this.failing!.message;
    if (/prompt is too long/.test(message.errorMessage)) message.usage.input = (this.model?.contextWindow ?? 200000) + 1;
    this.queueEvent("message_start", { message: { ...message } });
    this.queueEvent("message_end", { message }, () => this.persist(message));
    return message;
  }

  /**
   * The fake model: `ask: Q | A | B`, `ask multiline: Q`, `run: COMMAND` (bash), `write: PATH`,
   * `work: N x MS`, `slow: TEXT`, else an echo.
   */
  private plan(prompt: string, messages: Json[]): Plan {
    const last = messages.at(-1);
    const trailing = messages.slice(messages.findLastIndex((m) => m.role !== "toolResult") + 1);
    if (trailing.length > 1) {
      // A batch's answer: each call's last line (or its error), in source order.
      const lines = trailing.map((m) => (m.isError ? `failed: ${textOf(m)}` : textOf(m).trim().split("\n").at(-1)));
      return { text: `Done: ${lines.join(" | ")}` };
    }
    if (last?.role === "toolResult") {
      const text = textOf(last);
      if (last.isError) return { text: last.toolName === "ask_user" ? `The question failed: ${text}` : `The tool failed: ${text}` };
      const by = last.details?.answeredBy;
      return { text: by ? `Answer: ${text} (answered by ${by})` : `Done: ${text.trim().split("\n").at(-1)}` };
    }
    const ask = /^ask( multiline)?:\s*(.*)$/s.exec(prompt);
    if (ask) {
      const [question, ...options] = ask[2].split("|").map((part) => part.trim());
      const args: Json = { question };
      if (options.length > 0) args.options = options;
      if (ask[1]) args.multiline = true;
      return { toolCall: { name: "ask_user", arguments: args } };
    }
    // `batch: TOOL {JSON} ;; TOOL {JSON}`: one assistant message with several tool calls.
    const batch = /^batch:\s*(.+)$/s.exec(prompt);
    if (batch) {
      const toolCalls = batch[1].split(";;").map((part) => {
        const one = /^\s*(\S+)\s*(\{.*\})?\s*$/s.exec(part);
        return { name: one?.[1] ?? part.trim(), arguments: one?.[2] ? JSON.parse(one[2]) : {} };
      });
      return { toolCalls };
    }
    const call = /^call:\s*(\S+)\s*(\{.*\})?$/s.exec(prompt);
    if (call) return { toolCall: { name: call[1], arguments: call[2] ? JSON.parse(call[2]) : {} } };
    const run = /^run:\s*(.+)$/s.exec(prompt);
    if (run) return { toolCall: { name: "bash", arguments: { command: run[1] } } };
    const write = /^write:\s*(\S+)$/.exec(prompt);
    if (write) return { toolCall: { name: "write", arguments: { path: write[1], content: "written by the fake model\n" } } };
    const thrown = /^throw:\s*(.+)$/s.exec(prompt);
    if (thrown) return { text: "Let me see", throws: thrown[1] };
    const work = /^work:\s*(\d+)\s*x\s*(\d+)$/.exec(prompt);
    if (work) return { toolCall: { name: "work", arguments: { steps: Number(work[1]), stepMs: Number(work[2]) } } };
    return { text: `Echo: ${prompt}` };
  }

  /** message_start, a message_update per delta (with the whole partial, as pi sends), message_end. */
  private async streamAssistant(plan: Plan, signal: AbortSignal): Promise<Json> {
    const content: Json[] = [];
    const partial = () => assistantMessage(structuredClone(content), "stop", this.model);
    const update = (assistantMessageEvent: Json) => {
      const message = partial();
      this.queueEvent("message_update", { message, assistantMessageEvent: { ...assistantMessageEvent, partial: message } });
    };
    this.queueEvent("message_start", { message: partial() });
    const slow = plan.text?.startsWith("Echo: slow:") ?? false;
    const calls = plan.toolCalls ?? (plan.toolCall ? [plan.toolCall] : []);
    let stopReason = calls.length > 0 ? "toolUse" : "stop";
    if (signal.aborted) stopReason = "aborted";
    if (plan.text !== undefined) {
      content.push({ type: "text", text: "" });
      update({ type: "text_start", contentIndex: 0 });
      const pieces = plan.text.match(/\S+\s*/g) ?? [plan.text];
      // `gappy: TEXT` (§11 trap 18): the last word comes with no text_delta, only in text_end and
      // message_end, as a provider that finishes a block on its own `done` event sends it
      // (openai-responses-shared.ts 399–440); the deltas do not rebuild the answer.
      const gappy = plan.text.startsWith("Echo: gappy:");
      for (const [at, piece] of pieces.entries()) {
        await sleep(slow ? 100 : this.streamDelayMs);
        if (signal.aborted) {
          stopReason = "aborted";
          break;
        }
        content[0].text += piece;
        if (gappy && at === pieces.length - 1) continue;
        update({ type: "text_delta", contentIndex: 0, delta: piece });
      }
      // `throw:`: the loop throws mid-answer; its message_start is never ended (§8.1).
      if (plan.throws !== undefined) throw new LoopThrow(plan.throws);
      if (stopReason !== "aborted") update({ type: "text_end", contentIndex: 0, content: content[0].text });
    }
    for (const planned of stopReason === "aborted" ? [] : calls) {
      const index = content.length;
      const toolCall = { type: "toolCall", id: `toolu_${randomUUID().replace(/-/g, "").slice(0, 20)}`, name: planned.name, arguments: {} };
      content.push(toolCall);
      update({ type: "toolcall_start", contentIndex: index });
      const json = JSON.stringify(planned.arguments);
      for (let at = 0; at < json.length; at += 16) {
        await sleep(this.streamDelayMs);
        update({ type: "toolcall_delta", contentIndex: index, delta: json.slice(at, at + 16) });
      }
      toolCall.arguments = planned.arguments;
      update({ type: "toolcall_end", contentIndex: index, toolCall: structuredClone(toolCall) });
      if (signal.aborted) {
        stopReason = "aborted";
        break;
      }
    }
    const final = assistantMessage(content, stopReason, this.model);
    // `full: TEXT`: an answer whose context nearly fills the window (a threshold compaction follows).
    if (plan.text?.startsWith("Echo: full:")) final.usage.totalTokens = (this.model?.contextWindow ?? 200000) - 1000;
    this.queueEvent("message_end", { message: final }, () => this.persist(final));
    return final;
  }

  /**
   * pi's parallel tool execution (§6, §11 trap 11; agent-loop.ts 413–485): for each call in
   * source order, tool_execution_start, the tool_call preflight (awaited, after the event queue
   * drains), then a steering poll. A steer found at any poll answers every call already approved
   * and every later one with "Skipped due to queued user message." without running it; else the
   * approved calls execute together after the last preflight, their results emitted in source
   * order. A blocked or unknown call is answered at once, at its preflight.
   */
  private async executeBatch(calls: Json[], tools: Json[], signal: AbortSignal): Promise<{ results: Json[]; steering: QueuedMessage[] }> {
    const results: Json[] = [];
    const approved: { call: Json; tool: Json }[] = [];
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index];
      this.queueEvent("tool_execution_start", { toolCallId: call.id, toolName: call.name, args: call.arguments });
      const preflight = await this.preflight(call, tools);
      if (preflight.blocked !== undefined) results.push(this.toolOutcome(call, errorResult(preflight.blocked), true));
      else approved.push({ call, tool: preflight.tool! });
      if (this.steering.length > 0) {
        // §11 trap 11: the poll dequeues the steer for the next turn (one at a time).
        const steering = [this.steering.shift()!];
        for (const { call: skipped } of approved) results.push(this.toolOutcome(skipped, errorResult(SKIPPED), true));
        for (const later of calls.slice(index + 1)) {
          this.queueEvent("tool_execution_start", { toolCallId: later.id, toolName: later.name, args: later.arguments });
          results.push(this.toolOutcome(later, errorResult(SKIPPED), true));
        }
        return { results, steering };
      }
    }
    // A steer that arrives while these run waits for all of them and skips none.
    const running = approved.map(({ call, tool }) => this.executeOne(call, tool, signal));
    for (let index = 0; index < approved.length; index++) {
      const executed = await running[index];
      results.push(await this.finalizeTool(approved[index].call, executed));
    }
    return { results, steering: [] };
  }

  /**
   * Validation and the tool_call preflight. §11 trap 12: the handlers get no abort signal, and an
   * abort meanwhile does not end them; a call approved after the abort still runs.
   */
  private async preflight(call: Json, tools: Json[]): Promise<{ tool?: Json; blocked?: string }> {
    const tool = tools.find((t) => t.name === call.name);
    if (!tool || typeof tool.execute !== "function") return { blocked: `Tool ${call.name} not found` };
    await this.eventChain; // pi waits for the event queue to drain (§8.2)
    try {
      for (const outcome of (await this.dispatchStrict("tool_call", { toolCallId: call.id, toolName: call.name, input: call.arguments })) as Json[]) {
        if (outcome?.block) return { blocked: outcome.reason ?? "Tool execution was blocked" };
      }
    } catch (error) {
      return { blocked: errorText(error) };
    }
    return { tool };
  }

  private async executeOne(call: Json, tool: Json, signal: AbortSignal): Promise<{ result: Json; isError: boolean }> {
    this.executedTools.push({ tool: call.name, toolCallId: call.id, args: call.arguments, aborted: signal.aborted });
    try {
      const onUpdate = (partialResult: Json) =>
        this.queueEvent("tool_execution_update", { toolCallId: call.id, toolName: call.name, args: call.arguments, partialResult });
      // §6: a tool returns `(TextContent|ImageContent)[]`; tool_execution_update/_end, the toolResult
      // message and turn_end carry that content as it is (§8.1).
      const returned = await tool.execute(call.id, call.arguments, signal, onUpdate, this.context());
      return { result: { content: returned?.content ?? [], details: returned?.details }, isError: false };
    } catch (error) {
      return { result: errorResult(errorText(error)), isError: true };
    }
  }

  /**
   * tool_result (§8.2): only for tools that executed; a failed tool's details are undefined and
   * its patches ignored; for the rest content/details patches chain and an isError patch is dropped.
   */
  private async finalizeTool(call: Json, executed: { result: Json; isError: boolean }): Promise<Json> {
    let { result } = executed;
    const { isError } = executed;
    const event: Json = { toolCallId: call.id, toolName: call.name, input: call.arguments, content: result.content, details: isError ? undefined : result.details, isError };
    for (const patch of (await this.dispatch("tool_result", event)) as Json[]) {
      if (isError || !patch) continue;
      result = { content: patch.content ?? result.content, details: patch.details ?? result.details };
      event.content = result.content;
      event.details = result.details;
    }
    return this.toolOutcome(call, result, isError);
  }

  /** tool_execution_end and the toolResult message. */
  private toolOutcome(call: Json, result: Json, isError: boolean): Json {
    const { id: toolCallId, name: toolName } = call;
    this.queueEvent("tool_execution_end", { toolCallId, toolName, result, isError });
    const message = { role: "toolResult", toolCallId, toolName, content: result.content, details: result.details, isError, timestamp: Date.now() };
    this.queueEvent("message_start", { message });
    this.queueEvent("message_end", { message }, () => this.persist(message));
    return message;
  }

  /** tool_call handlers: a throw is not an extension error, it blocks the tool. */
  private async dispatchStrict(type: string, payload: Json): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const extension of this.extensions) {
      for (const handler of extension.handlers.get(type) ?? []) results.push(await handler({ type, ...payload }, this.context()));
    }
    return results;
  }

  // ----- the session file

  private sessionFileFor(id: string): string {
    const folder = `--${this.cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    return path.join(this.agentDir, "sessions", folder, `${stamp}_${id}.jsonl`);
  }

  private switchTo(id: string, entries: Json[], file?: string): void {
    this.sessionId = id;
    this.sessionFile = file ?? this.sessionFileFor(id);
    this.entries = entries;
    this.leafId = entries.at(-1)?.id ?? null;
    this.sessionName = undefined;
    this.fileWritten = false;
    if (entries.some((e) => e.message?.role === "assistant")) this.writeFile();
  }

  private appendEntry(entry: Json): void {
    const full = { ...entry, id: randomUUID().slice(0, 8), parentId: this.leafId, timestamp: new Date().toISOString() };
    this.entries.push(full);
    this.leafId = full.id;
    if (this.fileWritten) fs.appendFileSync(this.sessionFile, `${JSON.stringify(full)}\n`);
  }

  /** Messages are saved after the message_end handlers ran; the file exists from the first answer. */
  private persist(message: Json): void {
    this.appendEntry({ type: "message", message });
    if (!this.fileWritten && message.role === "assistant") this.writeFile();
  }

  /** The entries from the root to the leaf (session-manager.ts getBranch). */
  private branch(): Json[] {
    const byId = new Map(this.entries.map((entry) => [entry.id, entry]));
    const path: Json[] = [];
    for (let entry = this.leafId ? byId.get(this.leafId) : undefined; entry; entry = entry.parentId ? byId.get(entry.parentId) : undefined) path.unshift(entry);
    return path;
  }

  private writeFile(): void {
    fs.mkdirSync(path.dirname(this.sessionFile), { recursive: true });
    const header = { type: "session", version: 3, id: this.sessionId, timestamp: new Date().toISOString(), cwd: this.cwd };
    fs.writeFileSync(this.sessionFile, [header, ...this.entries].map((line) => `${JSON.stringify(line)}\n`).join(""));
    this.fileWritten = true;
  }
}

// -------------------------------------------------------------------------------------------------
// The host as a process, scripted through stdin

interface ScriptOptions {
  extensions: string[];
  cwd?: string;
  sessionId?: string;
  piVersion?: string | null;
  compactionMs?: number;
  retryBaseDelayMs?: number;
  preRunDelayMs?: number;
}

function parseArguments(argv: string[]): ScriptOptions {
  const options: ScriptOptions = { extensions: [] };
  for (let index = 0; index < argv.length; index++) {
    const value = argv[index + 1];
    switch (argv[index]) {
      case "--extension":
        options.extensions.push(value);
        index++;
        break;
      case "--cwd":
        options.cwd = value;
        index++;
        break;
      case "--session-id":
        options.sessionId = value;
        index++;
        break;
      case "--pi-version":
        options.piVersion = value === "none" ? null : value;
        index++;
        break;
      case "--compaction-ms":
        options.compactionMs = Number(value);
        index++;
        break;
      case "--retry-base-delay-ms":
        options.retryBaseDelayMs = Number(value);
        index++;
        break;
      case "--pre-run-delay-ms":
        options.preRunDelayMs = Number(value);
        index++;
        break;
      default:
        throw new Error(`unknown argument ${argv[index]}`);
    }
  }
  if (options.extensions.length === 0) throw new Error("usage: host.ts --extension PATH [--cwd DIR] [--session-id ID] [--pi-version V]");
  return options;
}

async function runScripted(): Promise<void> {
  const write = (saw: Saw) => process.stdout.write(`${JSON.stringify(saw)}\n`);
  let options: ScriptOptions;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${errorText(error)}\n`);
    process.exit(2);
  }
  // pi installs no handler of its own: an uncaught throw ends pi. Say what it was, then die.
  const fatal = (error: unknown) => {
    write({ saw: "extension_error", extensionPath: "<uncaught>", event: "uncaught", error: errorText(error) });
    process.exit(70);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);

  const host = await PiHost.create({ cwd: options.cwd, sessionId: options.sessionId, piVersion: options.piVersion, compactionMs: options.compactionMs, retryBaseDelayMs: options.retryBaseDelayMs, preRunDelayMs: options.preRunDelayMs });
  host.on("saw", write);
  for (const file of options.extensions) await host.load(file);
  await host.start();

  let quitting = false;
  const quit = async () => {
    if (quitting) return;
    quitting = true;
    await host.shutdown();
    process.exit(0);
  };
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    let command: Json;
    try {
      command = JSON.parse(line);
    } catch {
      write({ saw: "error", message: `not JSON: ${line.slice(0, 120)}` });
      return;
    }
    void handleScriptCommand(host, command, write, quit);
  });
  lines.on("close", () => void quit()); // stdin closed: as /quit
}

async function handleScriptCommand(host: PiHost, command: Json, write: (saw: Saw) => void, quit: () => Promise<void>): Promise<void> {
  switch (command.do) {
    case "type":
      if (String(command.text ?? "").trim() === "/quit") await quit(); // the TUI's /quit
      else host.type(String(command.text ?? ""));
      break;
    case "answer":
      host.answer(String(command.value ?? ""));
      break;
    case "escape":
      host.escape();
      break;
    case "new":
      await host.newSession();
      break;
    case "fork":
      await host.fork();
      break;
    case "name":
      host.rename(String(command.name ?? ""));
      break;
    case "thinking":
      host.cycleThinking();
      break;
    case "model":
      await host.selectModel(String(command.provider), String(command.id));
      break;
    case "quit":
      await quit();
      break;
    case "compact":
      await host.compactFromTerminal(command.instructions);
      break;
    case "reload":
      await host.reload();
      break;
    case "nomodel":
      host.removeModel();
      break;
    case "logout":
      host.logout(String(command.provider));
      break;
    case "expire":
      host.expireLogin(String(command.provider));
      break;
    case "login":
      host.login(String(command.provider), command.oauth ? "oauth" : "key");
      break;
    case "resume":
      await host.resume(String(command.session ?? ""), command.model ? { model: command.model } : {});
      break;
    case "tree":
      await host.tree(command.entryId);
      break;
    case "crash":
      process.exit(137); // no session_shutdown, as when pi is killed
      break;
    default:
      write({ saw: "error", message: `unknown command: ${JSON.stringify(command.do)}` });
  }
}

const invokedAsScript = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedAsScript) {
  runScripted().catch((error) => {
    process.stderr.write(`host: ${errorText(error)}\n`);
    process.exit(1);
  });
}

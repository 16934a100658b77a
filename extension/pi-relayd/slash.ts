/**
 * Slash commands in a chat's prompt to a terminal session. pi's RPC `prompt` (what a spawned
 * session gets) runs extension commands and expands `/skill:name` and prompt templates;
 * `pi.sendUserMessage`, which carries a chat's prompt into a terminal's pi, does none of it
 * (spec §11 trap 8; `AgentSession.prompt`, agent-session.ts 865–901 in pi 0.58.3). So the
 * extension does what it can itself, from `pi.getCommands()` (spec §2), before the prompt is
 * queued:
 *
 * - `/skill:NAME args` and `/TEMPLATE args` are expanded as pi expands them;
 * - another extension's command (or ours) cannot be run from an extension: refused, nothing
 *   reaches the model;
 * - pi's built-in TUI commands (`/new`, `/tree`, `/login`, …) exist only in the TUI: refused too
 *   (in RPC mode pi would hand their text to the model, which is never what the chat meant);
 * - any other text, a leading `/` included (`/etc/hosts is odd`), goes as it is.
 *
 * The relay's own chat commands (/stop, /compact, /model, /sessions, …) never get here: the
 * daemon takes them first (ChatCommand.parse).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, type Log } from "./callbacks.ts";

/** The chat's prompt as pi should get it, or why it is refused. */
export type SlashOutcome = { text: string } | { refusal: string };

/** pi's built-in TUI commands (`core/slash-commands.ts` BUILTIN_SLASH_COMMANDS, pi 0.58.3). */
const BUILTIN_COMMANDS = new Set([
  "settings", "model", "scoped-models", "export", "share", "copy", "name", "session", "changelog",
  "hotkeys", "fork", "tree", "login", "logout", "new", "compact", "resume", "reload", "quit",
]);

/** A chat command that does what the built-in does, where the relay has one. */
const CHAT_EQUIVALENT: Record<string, string> = { compact: "/compact", model: "/model provider/id" };

interface SlashCommand {
  name: string;
  source: string;
  path?: string;
}

/**
 * What a chat's `message` becomes (prompt, steer and follow-up alike: pi's RPC `steer` and
 * `follow_up` expand too and refuse extension commands, agent-session.ts 1075–1106).
 * Undefined: not a slash command pi knows; the text goes unchanged.
 */
export function chatSlash(pi: { getCommands(): unknown }, text: string, log: Log): SlashOutcome | undefined {
  if (!text.startsWith("/")) return undefined;
  // pi splits at the first space only (`_tryExecuteExtensionCommand`, `expandPromptTemplate`).
  const space = text.indexOf(" ");
  const name = space === -1 ? text.slice(1) : text.slice(1, space);
  if (name === "") return undefined;
  let commands: SlashCommand[];
  try {
    const listed = pi.getCommands();
    commands = Array.isArray(listed) ? listed.filter((c: any) => typeof c?.name === "string") : [];
  } catch (error) {
    log(`getCommands failed: ${describe(error)}; the prompt goes as it is`);
    return undefined;
  }
  // pi runs an extension command before anything else (agent-session.ts 870–876).
  const extension = commands.find((c) => c.source === "extension" && c.name === name);
  if (extension) {
    return { refusal: `/${name} is a terminal command (extension ${extensionName(extension.path)}): type it in the terminal` };
  }
  if (BUILTIN_COMMANDS.has(name)) {
    const equivalent = CHAT_EQUIVALENT[name];
    return {
      refusal: `/${name} is a pi terminal command: type it in the terminal` + (equivalent ? ` (or use ${equivalent} in the chat)` : ""),
    };
  }
  if (name.startsWith("skill:")) {
    const skill = commands.find((c) => c.source === "skill" && c.name === name);
    if (!skill?.path) return undefined; // an unknown skill passes through, as in pi
    const expanded = expandSkill(name.slice("skill:".length), skill.path, space === -1 ? "" : text.slice(space + 1).trim(), log);
    return expanded === undefined ? undefined : { text: expanded };
  }
  const template = commands.find((c) => c.source === "prompt" && c.name === name);
  if (!template?.path) return undefined;
  const body = readBody(template.path, log);
  if (body === undefined) return undefined;
  return { text: substituteArgs(body, parseCommandArgs(space === -1 ? "" : text.slice(space + 1))) };
}

/**
 * The extension's name as a person knows it: its file's name, or its folder's for an
 * `index.ts` (pi gives the command's extension path, agent-session.ts 2070–2079).
 */
function extensionName(extensionPath: string | undefined): string {
  if (!extensionPath) return "unknown";
  const base = path.basename(extensionPath).replace(/\.(ts|js|mjs|cjs)$/, "");
  return base === "index" ? path.basename(path.dirname(extensionPath)) : base;
}

/**
 * `_expandSkillCommand` (agent-session.ts 1042–1067): the skill file without its frontmatter,
 * trimmed, in a `<skill>` block naming the file and its folder, the arguments after a blank
 * line. Undefined when the file cannot be read (pi then sends the text as it was).
 */
function expandSkill(name: string, filePath: string, args: string, log: Log): string | undefined {
  const body = readBody(filePath, log);
  if (body === undefined) return undefined;
  const block = `<skill name="${name}" location="${filePath}">\nReferences are relative to ${path.dirname(filePath)}.\n\n${body.trim()}\n</skill>`;
  return args ? `${block}\n\n${args}` : block;
}

/**
 * A file's text without its frontmatter, as pi's `parseFrontmatter` gives the body
 * (utils/frontmatter.ts): newlines made LF; with a `---` block closed by `\n---`, what follows
 * it, trimmed; otherwise the whole text.
 */
function readBody(filePath: string, log: Log): string | undefined {
  let content: string;
  try {
    content = fs.readFileSync(filePath, "utf8");
  } catch (error) {
    log(`cannot read ${filePath} to expand it: ${describe(error)}; the prompt goes as it is`);
    return undefined;
  }
  const normalized = content.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
  if (!normalized.startsWith("---")) return normalized;
  const end = normalized.indexOf("\n---", 3);
  if (end === -1) return normalized;
  return normalized.slice(end + 4).trim();
}

/** pi's `parseCommandArgs` (core/prompt-templates.ts 22–53): words, with '…' and "…" quoting. */
export function parseCommandArgs(argsString: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (const char of argsString) {
    if (quote) {
      if (char === quote) quote = null;
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
 * pi's `substituteArgs` (core/prompt-templates.ts 66–100): `$1`… first, then `${@:N}` and
 * `${@:N:L}`, then `$ARGUMENTS` and `$@`; values are not substituted again.
 */
export function substituteArgs(content: string, args: string[]): string {
  let result = content.replace(/\$(\d+)/g, (_, num: string) => args[parseInt(num, 10) - 1] ?? "");
  result = result.replace(/\$\{@:(\d+)(?::(\d+))?\}/g, (_, startText: string, lengthText: string | undefined) => {
    const start = Math.max(0, parseInt(startText, 10) - 1);
    if (lengthText) return args.slice(start, start + parseInt(lengthText, 10)).join(" ");
    return args.slice(start).join(" ");
  });
  const all = args.join(" ");
  // Replacement strings, as pi has them: a `$&` or `$$` typed in the arguments is read as
  // String.replace reads it there too, so a chat gets what a spawned session gets.
  result = result.replace(/\$ARGUMENTS/g, all);
  return result.replace(/\$@/g, all);
}

/**
 * The path a built-in tool of pi opens for a call's `path` argument. pi normalises it inside the
 * tool, after the `tool_call` hook saw the model's string (shared/specs/pi-extension-api.md §11
 * trap 13), so a gate that matched the raw string would let `@.env` or `~/.ssh/id_rsa` past a
 * rule on the file they open. These are the steps of pi's `core/tools/path-utils.ts` (v0.58.3,
 * lines 5–94), written again here: the extension has no dependency on pi's code.
 */
import { accessSync, constants, lstatSync, readlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Json } from "./callbacks.ts";

/** path-utils.ts 5: the unicode spaces pi turns into plain spaces. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;
const NARROW_NO_BREAK_SPACE = "\u202F";

/**
 * pi's built-in tools that take a path, each with its argument and what an absent one means:
 * read.ts 63, write.ts 49 and edit.ts 69 take a required `path`; grep.ts 114, find.ts 80 and
 * ls.ts 70 an optional `path` that is the cwd when missing or empty (`path || "."`).
 */
const PATH_TOOLS: Record<string, { parameter: string; absent?: string }> = {
  read: { parameter: "path" },
  write: { parameter: "path" },
  edit: { parameter: "path" },
  grep: { parameter: "path", absent: "." },
  find: { parameter: "path", absent: "." },
  ls: { parameter: "path", absent: "." },
};

/**
 * pi's own tools, whose arguments are known: bash takes a command, the others a path. A rule's
 * condition on an argument such a tool does not take is no question for it (a rule on `paths`
 * for `[bash, read]` holds for read alone), while an extension's tool without the argument
 * cannot be decided, and is asked about (gates.ts).
 */
export function isBuiltinTool(toolName: string): boolean {
  return toolName === "bash" || toolName in PATH_TOOLS;
}

/** path-utils.ts 35–48: one leading `@` goes, unicode spaces become spaces, `~` and `~/` are home. */
export function expandPath(given: string, home: string = os.homedir()): string {
  const stripped = given.startsWith("@") ? given.slice(1) : given;
  const normalized = stripped.replace(UNICODE_SPACES, " ");
  if (normalized === "~") return home;
  if (normalized.startsWith("~/")) return home + normalized.slice(1);
  return normalized;
}

/** path-utils.ts 54–60: an absolute path stays as it is (`..` and all); a relative one is taken from the cwd. */
export function resolveToCwd(given: string, cwd: string, home: string = os.homedir()): string {
  const expanded = expandPath(given, home);
  return path.isAbsolute(expanded) ? expanded : path.resolve(cwd, expanded);
}

/**
 * path-utils.ts 62–94: what `read` tries, in its order, when the path it resolved does not exist:
 * a U+202F before AM/PM, the NFD form, a U+2019 apostrophe, NFD with U+2019. The first is the
 * resolved path itself.
 */
export function readCandidates(resolved: string): string[] {
  const nfd = resolved.normalize("NFD");
  const variants = [
    resolved,
    resolved.replace(/ (AM|PM)\./g, `${NARROW_NO_BREAK_SPACE}$1.`),
    nfd,
    resolved.replace(/'/g, "\u2019"),
    nfd.replace(/'/g, "\u2019"),
  ];
  return [...new Set(variants)];
}

function fileExists(file: string): boolean {
  try {
    accessSync(file, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** path-utils.ts 62–94: the file `read` opens: the first candidate that exists, else the resolved path. */
export function resolveReadPath(given: string, cwd: string, home: string = os.homedir(), exists: (file: string) => boolean = fileExists): string {
  const candidates = readCandidates(resolveToCwd(given, cwd, home));
  return candidates.find((candidate) => exists(candidate)) ?? candidates[0];
}

/** A call's paths as the gate sees them. */
export interface ToolPaths {
  /** The path the tool opens now, as pi hands it to the file system. */
  opens: string;
  /**
   * Every path it might open: for `read`, all its variants (a variant that does not exist yet may
   * by the time the tool runs), else just `opens`. A gate matches if any of them matches.
   */
  candidates: string[];
}

/**
 * The paths a call may open: pi's normalisation for its built-in tools; for another tool, a
 * `path` or `file_path` argument taken from the cwd with `~` expanded (nothing else is known of
 * what it does). Undefined when the call names no path.
 */
export function toolPaths(toolName: string, input: Json, cwd: string, home: string = os.homedir()): ToolPaths | undefined {
  const builtin = PATH_TOOLS[toolName];
  if (builtin) {
    const value = input?.[builtin.parameter];
    // A value pi's argument validation let through as another type is taken as its text.
    const given = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
    const effective = given === undefined || given === "" ? builtin.absent : given;
    if (effective === undefined) return undefined;
    if (toolName === "read") {
      return { opens: resolveReadPath(effective, cwd, home), candidates: readCandidates(resolveToCwd(effective, cwd, home)) };
    }
    const opens = resolveToCwd(effective, cwd, home);
    return { opens, candidates: [opens] };
  }
  const target = typeof input?.path === "string" ? input.path : typeof input?.file_path === "string" ? input.file_path : undefined;
  if (target === undefined) return undefined;
  const expanded = target === "~" ? home : target.startsWith("~/") ? path.join(home, target.slice(2)) : target;
  const opens = path.resolve(cwd, expanded);
  return { opens, candidates: [opens] };
}

/**
 * A path with its `..` and `.` steps and doubled slashes folded as text. pi resolves no symlinks,
 * and a relative path reaches the tool folded so (`path.resolve`); an absolute one reaches the
 * file system as the model wrote it (see `physical`).
 */
export function lexical(file: string): string {
  return path.resolve(file);
}

/** How many symlinks a path may pass through before the kernel gives up (Linux's limit). */
const MAX_LINKS = 40;

/**
 * The file the kernel reaches for a path: symlinks followed where they stand, and a `..` taken
 * after them, as the kernel takes it. `cwd/link/../x` with `link -> /etc/nginx/conf.d` is
 * `/etc/nginx/x`, and `cwd/link/file` is `/etc/nginx/conf.d/file`, though both read as inside
 * `cwd`; a link whose target does not exist yet leads there too (a write creates it). A step that
 * does not exist is taken as a folder with no links in it: the kernel refuses the path unless a
 * tool makes that folder first, and either way the rest is then read as the kernel would read it
 * (the spec says nothing of which tools make folders, so this only ever adds a match to the path
 * as written). Undefined when the path passes more links than the kernel follows.
 */
export function physical(file: string): string | undefined {
  let pending = (path.isAbsolute(file) ? file : path.resolve(file)).split("/");
  let reached = "/";
  let links = 0;
  while (pending.length > 0) {
    const step = pending.shift() as string;
    if (step === "" || step === ".") continue;
    if (step === "..") {
      reached = path.dirname(reached);
      continue;
    }
    const next = path.join(reached, step);
    let target: string | undefined;
    try {
      if (lstatSync(next).isSymbolicLink()) target = readlinkSync(next);
    } catch {
      // Missing or unreadable: taken as it is written.
    }
    if (target === undefined) {
      reached = next;
      continue;
    }
    if (++links > MAX_LINKS) return undefined;
    // The link's text goes on from the folder it is in, or from the root.
    pending = [...target.split("/"), ...pending];
    if (path.isAbsolute(target)) reached = "/";
  }
  return reached;
}

// Gates match the path pi will open (spec §11 trap 13): pi strips one leading `@`, folds unicode
// spaces, expands `~` and resolves against the cwd inside its tools, after tool_call; `read` also
// tries macOS's variants. The fake host's built-ins resolve as pi's path-utils.ts does and record
// the path they opened; the gate must decide on exactly that path.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { matchingRule, type Gates } from "../pi-relayd/index.ts";
import { FakeDaemon, makeHome, startHost } from "./support.ts";

const TOOLS = ["read", "write", "edit", "grep", "find", "ls"];
const NARROW = "\u202F";

function rules(): Gates {
  return {
    timeoutSeconds: 300,
    rules: [
      { name: "secrets", tools: TOOLS, paths: [".env*"] },
      { name: "ssh", tools: TOOLS, paths: ["~/.ssh", "~/.ssh/**"] },
      { name: "private", tools: TOOLS, paths: ["./secret dir", "./secret dir/**"] },
      { name: "outside", tools: ["write", "edit"], outsideCwd: true },
      // A name only one of read's variants has: read gates it whichever it opens (fail closed).
      { name: "narrow", tools: ["read"], paths: [`*${NARROW}*`] },
    ],
  };
}

/** A home folder of its own (pi's `~` is os.homedir(), which reads $HOME), with ~/.ssh/id_rsa. */
function fakeHome(t: TestContext): string {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "prd-home-")));
  fs.mkdirSync(path.join(home, ".ssh"));
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "key\n");
  const before = process.env.HOME;
  process.env.HOME = home;
  t.after(() => {
    process.env.HOME = before;
    fs.rmSync(home, { recursive: true, force: true });
  });
  return home;
}

/**
 * A session folder where read's variants exist: the screenshot only with U+202F before AM, café
 * only in NFD, l'été only with U+2019; and .env and "secret dir".
 */
function sessionFolder(t: TestContext): string {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "prd-cwd-")));
  fs.writeFileSync(path.join(cwd, ".env"), "TOKEN=1\n");
  fs.mkdirSync(path.join(cwd, "secret dir"));
  fs.writeFileSync(path.join(cwd, "secret dir", "notes.txt"), "x\n");
  fs.writeFileSync(path.join(cwd, `Shot 2024-01-01 at 10.00.00${NARROW}AM.png`), "png");
  fs.writeFileSync(path.join(cwd, "café.txt".normalize("NFD")), "nfd");
  fs.writeFileSync(path.join(cwd, "l\u2019été.txt"), "curly");
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  return cwd;
}

/** mulberry32: a small seeded generator, so a failing case comes back with its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const UNICODE_SPACES = ["\u00A0", "\u2000", "\u2005", "\u200A", "\u202F", "\u205F", "\u3000"];
const SEGMENTS = [
  ".env", ".env.local", "secret dir", "notes.txt", "..", ".", ".ssh", "id_rsa", "src",
  "Shot 2024-01-01 at 10.00.00 AM.png", "café.txt", "l'été.txt",
];

interface Case {
  tool: string;
  /** The model's `path` argument; undefined: none given (grep, find, ls). */
  given: string | undefined;
}

/** Paths with `@`, `~`, `..`, unicode spaces and read's variants, in every combination the seed finds. */
function generate(seed: number, count: number, cwd: string): Case[] {
  const next = random(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const cases: Case[] = [];
  while (cases.length < count) {
    const tool = pick(TOOLS);
    if (["grep", "find", "ls"].includes(tool) && next() < 0.1) {
      cases.push({ tool, given: undefined });
      continue;
    }
    const root = pick(["", "./", "~", "~/", `${cwd}/`, `../${path.basename(cwd)}/`, "../", "/etc/"]);
    const parts: string[] = [];
    if (root !== "~") for (let n = Math.floor(next() * 4); n > 0; n--) parts.push(pick(SEGMENTS));
    let given = root + parts.join("/");
    if (given === "") given = ".";
    // Any plain space may come as one of the spaces pi folds.
    given = given.replace(/ /g, (space) => (next() < 0.5 ? pick(UNICODE_SPACES) : space));
    const at = next();
    if (at < 0.4) given = `@${given}`;
    else if (at < 0.45) given = `@@${given}`;
    cases.push({ tool, given });
  }
  return cases;
}

/**
 * Which rules the test itself (not the extension) finds for the path the tool opened. grep's,
 * find's and ls's path is a root they reach below (`below`): a rule on anything under it holds,
 * and a name glob (`.env*`) may match a file anywhere below any root.
 */
function rulesFor(tool: string, opened: string, cwd: string, home: string, below = false): string[] {
  const file = path.resolve(opened); // the file system folds `..`; pi resolves no symlinks
  const within = (inner: string, outer: string) => outer === "/" || inner === outer || inner.startsWith(`${outer}/`);
  const inside = (root: string) => within(file, root) || (below && within(root, file));
  const found: string[] = [];
  if (path.basename(file).startsWith(".env") || below) found.push("secrets");
  if (inside(path.join(home, ".ssh"))) found.push("ssh");
  if (inside(path.join(cwd, "secret dir"))) found.push("private");
  if (["write", "edit"].includes(tool) && !inside(cwd)) found.push("outside");
  if (tool === "read" && path.basename(file).includes(NARROW)) found.push("narrow");
  return found;
}

async function attached(t: TestContext, cwd: string, gates: Gates = rules(), allowed = true) {
  const relaydHome = makeHome(t);
  const asked: any[] = [];
  const daemon = await FakeDaemon.start(t, relaydHome, {
    approvals: gates,
    approve: (params) => {
      asked.push(params);
      return allowed ? { allowed: true, outcome: "approved_once", by: "alice" } : { allowed: false, outcome: "denied", by: "alice", reason: "alice denied it" };
    },
  });
  const host = await startHost(t, { cwd, streamDelayMs: 0, preRunDelayMs: 0 });
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { host, asked };
}

/** Runs one call through the fake model; returns the path the tool opened and the rule asked about. */
async function call(host: any, asked: any[], tool: string, given: string | undefined, extra: Record<string, string> = {}, denied = false) {
  const before = asked.length;
  const openedBefore = host.opened.length;
  const args: Record<string, string> = tool === "write" ? { content: "x" } : tool === "edit" ? { oldText: "a", newText: "b" } : {};
  if (["grep", "find"].includes(tool)) args.pattern = "x";
  if (given !== undefined) args.path = given;
  Object.assign(args, extra);
  const runs = host.seen.filter((s: any) => s.saw === "run_end").length;
  host.type(`call: ${tool} ${JSON.stringify(args)}`);
  await host.waitFor(() => host.seen.filter((s: any) => s.saw === "run_end").length > runs);
  const rule = asked.length > before ? (asked.at(-1).rule as string) : undefined;
  if (denied && rule !== undefined) {
    assert.equal(host.opened.length, openedBefore, `${tool} ${JSON.stringify(given)} was denied, yet opened something`);
    return { opened: undefined, below: false, rule };
  }
  // The first path the tool opened: its file, or the root it searches (the files grep read follow).
  assert.ok(host.opened.length > openedBefore, `${tool} ${JSON.stringify(given)} opened nothing`);
  const first = host.opened[openedBefore];
  return { opened: first.path as string, below: first.below === true, rule };
}

test("named cases: @.env, @~/.ssh/id_rsa, @/etc/cron.d/x, @../x, a no-break space in a gated folder", async (t) => {
  const home = fakeHome(t);
  const cwd = sessionFolder(t);
  const { host, asked } = await attached(t, cwd);
  const named: [string, string, string, string][] = [
    ["read", "@.env", path.join(cwd, ".env"), "secrets"],
    ["read", "@~/.ssh/id_rsa", `${home}/.ssh/id_rsa`, "ssh"],
    ["write", "@/etc/cron.d/x", "/etc/cron.d/x", "outside"],
    ["write", "@../x", path.join(path.dirname(cwd), "x"), "outside"],
    ["read", "secret\u00A0dir/notes.txt", path.join(cwd, "secret dir", "notes.txt"), "private"],
    // (ls, grep and find are gated by `.env*` first: such a file may be below any folder.)
    ["write", "@secret\u3000dir/new.txt", path.join(cwd, "secret dir", "new.txt"), "private"],
    ["read", "Shot 2024-01-01 at 10.00.00 AM.png", path.join(cwd, `Shot 2024-01-01 at 10.00.00${NARROW}AM.png`), "narrow"],
  ];
  for (const [tool, given, opens, rule] of named) {
    const result = await call(host, asked, tool, given);
    assert.equal(result.opened, opens, `${tool} ${given} opens ${opens}`);
    assert.equal(result.rule, rule, `${tool} ${given} (opens ${opens}) is gated by ${rule}`);
  }
  assert.deepEqual(host.errors, []);
});

test("generated paths: the gate decides on exactly the path the fake tool opens", async (t) => {
  const home = fakeHome(t);
  const cwd = sessionFolder(t);
  const { host, asked } = await attached(t, cwd);
  const seed = Number(process.env.GATES_SEED ?? 2611);
  const cases = generate(seed, 150, cwd);
  const problems: string[] = [];
  for (const { tool, given } of cases) {
    const { opened: file, below, rule } = await call(host, asked, tool, given);
    const opened = file as string;
    const expected = rulesFor(tool, opened, cwd, home, below);
    // The extension's own matcher on the path opened, as a second opinion on the rule's name.
    const onOpened = matchingRule(rules(), tool, { path: opened }, cwd, home)?.name;
    const what = `seed ${seed}: ${tool} ${JSON.stringify(given)} opened ${JSON.stringify(opened)}`;
    if (expected.length > 0 && rule === undefined) problems.push(`${what}: not gated, but ${expected.join(", ")} match it`);
    if (expected.length > 0 && rule !== undefined && !expected.includes(rule)) problems.push(`${what}: gated by ${rule}, expected one of ${expected}`);
    if (expected.length === 0 && rule !== undefined && !(tool === "read" && rule === "narrow")) {
      problems.push(`${what}: gated by ${rule}, which the opened path does not match`);
    }
    if (expected.length > 0 && onOpened === undefined) problems.push(`${what}: matchingRule misses the opened path`);
  }
  assert.deepEqual(problems, []);
  assert.ok(asked.length > 20 && asked.length < cases.length, `a fair share gated (${asked.length} of ${cases.length})`);
});

test("a symlink in the session folder: the gate decides on the file the kernel reaches, not the path as written", async (t) => {
  const home = fakeHome(t);
  const cwd = sessionFolder(t);
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "prd-outside-")));
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.mkdirSync(path.join(outside, "conf.d"));
  fs.symlinkSync(path.join(outside, "conf.d"), path.join(cwd, "link"));
  fs.symlinkSync(path.join(home, ".ssh"), path.join(cwd, "keys"));
  fs.mkdirSync(path.join(cwd, "src"));
  fs.symlinkSync(path.join(cwd, "src"), path.join(cwd, "inner"));
  const named: [string, string, string | undefined][] = [
    // pi hands an absolute path on as written: the kernel takes `..` after following `link`.
    ["write", `${cwd}/link/../nginx.conf`, "outside"],
    ["write", "link/site.conf", "outside"],
    ["edit", `${cwd}/link/../../x`, "outside"],
    ["read", "keys/id_rsa", "ssh"],
    // A link that stays inside is inside.
    ["write", "inner/main.ts", undefined],
    ["write", `${cwd}/inner/../notes.md`, undefined],
    // A link to what does not exist yet: the write creates it where the link points.
    ["write", "job", "outside"],
    // A folder the write makes first, then `..` and a link.
    ["write", `${cwd}/missing/../link/x`, "outside"],
  ];
  fs.symlinkSync(path.join(outside, "cron.d", "job"), path.join(cwd, "job"));
  for (const [tool, given, rule] of named) {
    assert.equal(matchingRule(rules(), tool, { path: given }, cwd, home)?.name, rule, `${tool} ${given}`);
  }
  // The session folder itself reached through a link: what is inside it stays inside.
  const alias = path.join(outside, "alias");
  fs.symlinkSync(cwd, alias);
  assert.equal(matchingRule(rules(), "write", { path: "src/a.ts" }, alias, home)?.name, undefined);
  assert.equal(matchingRule(rules(), "write", { path: `${alias}/link/x` }, alias, home)?.name, "outside");
  // A home reached through a link itself: `~/.ssh/**` holds on the file the kernel names.
  const linkedHome = path.join(outside, "home");
  fs.symlinkSync(home, linkedHome);
  assert.equal(matchingRule(rules(), "read", { path: "keys/id_rsa" }, cwd, linkedHome)?.name, "ssh");
  // More links than the kernel follows: the folder's outside is assumed.
  fs.symlinkSync(path.join(cwd, "loop"), path.join(cwd, "loop"));
  assert.equal(matchingRule(rules(), "write", { path: "loop/x" }, cwd, home)?.name, "outside");
});

test("grep, find and ls search below their path: a rule on a file anywhere below it gates the call (trap 13)", async (t) => {
  // pi started in the home folder, as it often is: the fake's tools really search it, so a call
  // let through would hand the key's text to the model.
  const home = fakeHome(t);
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "-----BEGIN PRIVATE KEY-----\n");
  fs.mkdirSync(path.join(home, "src"));
  fs.writeFileSync(path.join(home, "src", "main.ts"), "PRIVATE = 1\n");
  const key = path.join(home, ".ssh", "id_rsa");
  const gates: Gates = { timeoutSeconds: 300, rules: [{ name: "ssh", tools: ["read", "grep", "find", "ls"], paths: ["~/.ssh/**"] }] };
  const { host, asked } = await attached(t, home, gates, false);
  const gated: [string, string | undefined, Record<string, string>][] = [
    ["grep", "~/.ssh", { pattern: "PRIVATE" }],
    ["grep", "@~/.ssh/", { pattern: "PRIVATE" }],
    ["grep", "~", { pattern: "PRIVATE" }],
    ["grep", "/", { pattern: "PRIVATE" }],
    ["grep", undefined, { pattern: "PRIVATE" }], // pi's default: the cwd, here the home folder
    ["grep", ".", { pattern: "PRIVATE", glob: "*.ts" }], // a glob argument filters, it is not checked
    ["find", "~/.ssh", { pattern: "*" }],
    ["find", undefined, { pattern: "id_*" }],
    ["ls", "~/.ssh", {}],
    ["ls", home, {}],
  ];
  for (const [tool, given, extra] of gated) {
    const { rule } = await call(host, asked, tool, given, extra, true);
    assert.equal(rule, "ssh", `${tool} ${JSON.stringify(given)} ${JSON.stringify(extra)} is gated`);
    assert.equal(host.reached(key), false, `${tool} ${JSON.stringify(given)} was denied: nothing below ~/.ssh reached`);
  }
  assert.equal(JSON.stringify(host.contextMessages).includes("BEGIN PRIVATE KEY"), false, "the key's text never reached the model");
  // A root beside the rule's folder, or below one it names nothing under, runs at once.
  const { rule } = await call(host, asked, "grep", "src", { pattern: "PRIVATE" });
  assert.equal(rule, undefined, "grep in ~/src is not gated");
  assert.equal(host.reached(path.join(home, "src", "main.ts")), true);
  assert.equal(host.reached(key), false);
  assert.deepEqual(host.errors, []);
});

test("search roots in matchingRule: a glob's literal part under the root, or the root under it, gates; a name glob gates every root", () => {
  const home = "/home/u";
  const cwd = "/home/u/proj";
  const gates = (paths: string[]): Gates => ({ timeoutSeconds: 300, rules: [{ name: "r", tools: ["grep", "find", "ls"], paths }] });
  const cases: [string[], string, string | undefined, boolean][] = [
    [["~/.ssh/**"], "grep", "~/.ssh", true],
    [["~/.ssh/**"], "grep", "~/.ssh/keys/old", true],
    [["~/.ssh/**"], "find", "/home", true],
    [["~/.ssh/**"], "ls", "/", true],
    [["~/.ssh/**"], "grep", undefined, false], // the cwd ~/proj holds nothing of ~/.ssh
    [["~/.ssh/**"], "grep", "~/.sshx", false],
    [["~/.ssh/**"], "grep", "~/proj/.ssh", false],
    [["~/.ssh/**"], "ls", "..", true], // ~ itself
    [["secrets/**"], "grep", undefined, true], // ~/proj/secrets is below the cwd
    [["secrets/**"], "find", "src", false],
    [["~/.aws/credentials"], "grep", "~", true], // a glob with no wildcard is its own literal
    [["~/.aws/credentials"], "grep", "~/.aws", true],
    [["~/.env*"], "grep", "~", true], // a literal part that ends mid-name
    [["~/.env*"], "grep", "~/.envoy", true], // unsure: gated
    [["~/.env*"], "grep", "~/proj", false],
    [["/**/id_rsa"], "grep", "/tmp", true],
    [[".env*"], "grep", "src", true], // a name glob: such a file may be anywhere below
    [["*.pem"], "ls", "/tmp", true],
  ];
  for (const [paths, tool, given, expected] of cases) {
    const input = given === undefined ? { pattern: "x" } : { pattern: "x", path: given };
    const rule = matchingRule(gates(paths), tool, input, cwd, home)?.name;
    assert.equal(rule !== undefined, expected, `${tool} ${JSON.stringify(given)} with ${JSON.stringify(paths)}`);
  }
  // read, write and edit open the one file they name, as before.
  assert.equal(matchingRule(gates(["~/.ssh/**"]), "grep", { pattern: "x", path: "~/.ssh" }, cwd, home)?.name, "r");
  const readOnly: Gates = { timeoutSeconds: 300, rules: [{ name: "r", tools: ["read"], paths: ["~/.ssh/**"] }] };
  assert.equal(matchingRule(readOnly, "read", { path: "~/.ssh" }, cwd, home)?.name, undefined);
  assert.equal(matchingRule(readOnly, "read", { path: "~" }, cwd, home)?.name, undefined);
});

// The fake pi host's slash commands, templates, skills and compaction paths against pi 0.58.3
// (spec §2 getCommands, §3, §11 traps 5, 8 and the RPC messageCount), with a tiny throwaway extension.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { PiHost, type HostOptions } from "../../Tests/Fakes/pi-extension-host/host.ts";

declare global {
  var cmdProbe: any[];
}

async function started(t: TestContext, body: string, options: HostOptions = {}): Promise<PiHost> {
  globalThis.cmdProbe = [];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-ext-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "probe.ts");
  fs.writeFileSync(file, `export default function (pi: any): void {\n(globalThis as any).cmdPi = pi;\n${body}\n}\n`);
  const host = await PiHost.create({ extensions: [file], ...options });
  t.after(() => host.shutdown());
  await host.start();
  return host;
}

const TEMPLATES = { review: "---\ndescription: Review\n---\nReview $1 then ${@:2}; all: $ARGUMENTS" };
const SKILLS = { lint: "---\nname: lint\ndescription: Lints things\n---\nRun the linter." };

test("getCommands: extensions first, then templates and skills with their paths (§2)", async (t) => {
  const host = await started(t, `pi.registerCommand("hello", { description: "says hello", handler: async () => {} });`, { prompts: TEMPLATES, skills: SKILLS });
  const commands = (globalThis as any).cmdPi.getCommands();
  assert.deepEqual(commands.map((c: any) => [c.name, c.source]), [["hello", "extension"], ["review", "prompt"], ["skill:lint", "skill"]]);
  assert.equal(commands[1].path, path.join(host.agentDir, "prompts", "review.md"));
  assert.equal(commands[2].path, path.join(host.agentDir, "skills", "lint", "SKILL.md"));
});

test("typed /template and /skill: expand as pi does; sendUserMessage's text stays as it is (trap 8)", async (t) => {
  const host = await started(t, "", { prompts: TEMPLATES, skills: SKILLS });
  host.type(`/review "src/a b.ts" x y`);
  const first = await host.waitFor((s) => s.saw === "user_message");
  assert.equal(first.text, "Review src/a b.ts then x y; all: src/a b.ts x y");
  await host.waitFor((s) => s.saw === "run_end");
  host.type("/skill:lint now");
  const skill = await host.waitFor((s) => s.saw === "user_message" && s !== first);
  const file = path.join(host.agentDir, "skills", "lint", "SKILL.md");
  assert.equal(skill.text, `<skill name="lint" location="${file}">\nReferences are relative to ${path.dirname(file)}.\n\nRun the linter.\n</skill>\n\nnow`);
  await host.waitFor((s) => s.saw === "run_end" && s.text.startsWith("Echo: <skill"));
  (globalThis as any).cmdPi.sendUserMessage("/review a b");
  await host.waitFor((s) => s.saw === "user_message" && s.text === "/review a b");
});

test("a typed /name runs the extension's command with a command ctx; sendUserMessage('/name') does not (trap 8)", async (t) => {
  const host = await started(
    t,
    `pi.registerCommand("hop", { handler: async (args: string, ctx: any) => {
       globalThis.cmdProbe.push(args, ["waitForIdle", "newSession", "fork", "navigateTree", "switchSession", "reload"].every((k) => typeof ctx[k] === "function"));
       globalThis.cmdProbe.push(await ctx.navigateTree(null));
     } });`,
  );
  host.type("/hop over there");
  await host.waitFor((s) => s.saw === "session" && s.reason === "tree");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(cmdProbe, ["over there", true, { cancelled: false }]);
  (globalThis as any).cmdPi.sendUserMessage("/hop again");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: /hop again");
  assert.equal(cmdProbe.length, 3);
});

test("compaction: the context becomes summary + kept messages (RPC messageCount); getEntries keeps everything", async (t) => {
  const host = await started(t, "");
  host.type("one");
  await host.waitFor((s) => s.saw === "run_end");
  host.type("two");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: two");
  await host.idle();
  assert.equal(host.messageCount, 4);
  await host.compactFromTerminal();
  assert.deepEqual(host.contextMessages.map((m) => m.role), ["compactionSummary", "assistant"]);
  assert.equal(host.messageCount, 2);
  const manager = host.toolContext().sessionManager;
  assert.equal(manager.getEntries().filter((e: any) => e.type === "message").length, 4);
  assert.equal(manager.getBranch().at(-1).type, "compaction");
});

test("precompact: the pre-run phase compacts before agent_start, pi idle; full: compacts after agent_end (traps 4, 5)", async (t) => {
  const host = await started(t, `for (const n of ["session_compact", "agent_start", "agent_end", "before_agent_start"]) pi.on(n, (_e: any, ctx: any) => { globalThis.cmdProbe.push(n + ":" + ctx.isIdle()); });`);
  host.type("one");
  await host.waitFor((s) => s.saw === "run_end");
  await host.idle();
  cmdProbe.length = 0;
  host.type("precompact: two");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: precompact: two");
  await host.idle();
  assert.deepEqual(cmdProbe, ["session_compact:true", "before_agent_start:true", "agent_start:false", "agent_end:true"]);
  cmdProbe.length = 0;
  const before = host.seen.length;
  host.type("full: three");
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end" && s.outcome === "done" && host.seen.indexOf(s) >= before);
  assert.deepEqual(cmdProbe.slice(-2), ["agent_end:true", "session_compact:true"]);
});

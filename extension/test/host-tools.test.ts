// The fake pi host's tools against pi 0.58.3 (spec §6, §11 traps 11, 12, 13, 14), checked with
// tiny throwaway extensions, not the real one.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { PiHost, type HostOptions } from "../../Tests/Fakes/pi-extension-host/host.ts";

declare global {
  var toolProbe: any[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function started(t: TestContext, body: string, options: HostOptions = {}): Promise<PiHost> {
  globalThis.toolProbe = [];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-ext-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "probe.ts");
  fs.writeFileSync(file, `export default function (pi: any): void {\n(globalThis as any).toolPi = pi;\n${body}\n}\n`);
  const host = await PiHost.create({ extensions: [file], ...options });
  t.after(() => host.shutdown());
  await host.start();
  return host;
}

const BATCH = 'batch: work {"steps":2,"stepMs":100} ;; work {"steps":2,"stepMs":100} ;; ls {}';

test("a batch: preflights one by one, approved calls run together, results in source order (§6)", async (t) => {
  const host = await started(
    t,
    `pi.on("tool_execution_start", (e: any) => { globalThis.toolProbe.push("start " + e.toolName); });
     pi.on("tool_call", (e: any) => { globalThis.toolProbe.push("call " + e.toolName); });
     pi.on("tool_execution_end", (e: any) => { globalThis.toolProbe.push("end " + e.toolName + (e.isError ? "!" : "")); });`,
  );
  const began = Date.now();
  host.type(BATCH);
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.ok(Date.now() - began < 700, "the two works ran together");
  assert.equal(end.text, "Done: step 2 | step 2 | (empty directory)");
  assert.deepEqual(toolProbe, ["start work", "call work", "start work", "call work", "start ls", "call ls", "end work", "end work", "end ls"]);
});

test("a steer at a preflight poll skips the approved calls and the later ones, unrun (trap 11)", async (t) => {
  const host = await started(
    t,
    `pi.on("tool_call", async (e: any) => { globalThis.toolProbe.push("call " + e.toolName); if (globalThis.toolProbe.length === 2) { pi.sendUserMessage("wait", { deliverAs: "steer" }); await new Promise((r) => setTimeout(r, 30)); } });`,
  );
  host.type(BATCH);
  await host.waitFor((s) => s.saw === "run_end");
  assert.deepEqual(toolProbe, ["call work", "call work"], "the third call was never preflighted");
  assert.equal(host.executedTools.length, 0, "nothing ran");
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(users, [BATCH, "wait"]);
  const results = host.contextMessages.filter((m) => m.role === "toolResult");
  assert.deepEqual(results.map((m) => m.content[0].text), Array(3).fill("Skipped due to queued user message."));
});

test("a blocked call is answered at its preflight; tool_result patches only what executed", async (t) => {
  const host = await started(
    t,
    `pi.on("tool_call", (e: any) => (e.toolName === "bash" ? { block: true, reason: "no shell" } : undefined));
     pi.on("tool_result", (e: any) => { globalThis.toolProbe.push(e.toolName); return { content: [{ type: "text", text: "patched" }], isError: true }; });`,
  );
  host.type('batch: bash {"command":"ls"} ;; ls {}');
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Done: failed: no shell | patched");
  assert.deepEqual(toolProbe, ["ls"]);
  assert.equal(host.contextMessages.find((m) => m.toolName === "ls")?.isError, false, "the isError patch is dropped");
});

test("ctx.abort() while a tool_call handler waits: the run lives on and the approved call still runs (trap 12)", async (t) => {
  const host = await started(
    t,
    `pi.on("tool_call", async (e: any, ctx: any) => { globalThis.toolProbe.push("signal:" + ("signal" in e)); ctx.abort(); await new Promise((r) => setTimeout(r, 100)); globalThis.toolProbe.push("idle:" + ctx.isIdle()); });`,
  );
  host.type("run: make deploy");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.deepEqual(toolProbe, ["signal:false", "idle:false"]);
  assert.deepEqual(host.executedTools.map((e) => [e.tool, e.aborted]), [["bash", true]]);
  assert.equal(end.text, "", "the next LLM call is aborted");
});

test("a run keeps the tools it started with; changes are counted (trap 14)", async (t) => {
  const host = await started(
    t,
    `pi.on("tool_call", () => { pi.setActiveTools(["read"]); });`,
  );
  host.type('batch: ls {} ;; bash {"command":"x"}');
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Done: (empty directory) | ran x", "bash stays callable in this run");
  assert.deepEqual(host.toolChanges.map((c) => c.during), ["run"]);
  host.type("run: y");
  const next = await host.waitFor((s) => s.saw === "run_end" && s !== end);
  assert.equal(next.text, "The tool failed: Tool bash not found");
  assert.deepEqual(host.runTools.at(-1), ["read"]);
});

test("pi's path steps in the built-ins; they really read, list, find, grep and write in the session folder (trap 13)", async (t) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-cwd-"));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  fs.writeFileSync(path.join(cwd, ".env"), "SECRET=1\n");
  fs.mkdirSync(path.join(cwd, "my docs"));
  fs.writeFileSync(path.join(cwd, "my docs", "Screenshot 2024-01-01 at 10.00.00\u202FAM.png"), "png");
  const host = await started(t, "", { cwd });
  const run = async (prompt: string) => {
    const count = host.seen.filter((s) => s.saw === "run_end").length;
    host.type(prompt);
    await host.waitFor(() => host.seen.filter((s) => s.saw === "run_end").length > count);
    return host.seen.filter((s) => s.saw === "run_end").at(-1)!.text;
  };
  assert.equal(await run('call: read {"path":"@.env"}'), "Done: SECRET=1");
  assert.equal(host.contextMessages.at(-2).content[0].text, "SECRET=1\n");
  assert.equal(await run('call: ls {"path":"my\u00A0docs"}'), "Done: Screenshot 2024-01-01 at 10.00.00\u202FAM.png");
  await run('call: read {"path":"my docs/Screenshot 2024-01-01 at 10.00.00 AM.png"}');
  assert.equal(await run('call: find {"pattern":"*.png"}'), "Done: my docs/Screenshot 2024-01-01 at 10.00.00\u202FAM.png");
  assert.equal(await run('call: grep {"pattern":"SECRET"}'), "Done: .env:1: SECRET=1");
  await run('call: write {"path":"@out/new.txt","content":"hi"}');
  assert.equal(fs.readFileSync(path.join(cwd, "out", "new.txt"), "utf8"), "hi");
  await run('call: edit {"path":"out/new.txt","oldText":"hi","newText":"ho"}');
  assert.equal(fs.readFileSync(path.join(cwd, "out", "new.txt"), "utf8"), "ho");
  await run('call: write {"path":"~/pi-host-never-written.txt","content":"x"}');
  assert.equal(fs.existsSync(path.join(os.homedir(), "pi-host-never-written.txt")), false, "nothing outside the session folder");
  assert.deepEqual(host.openedPaths, [
    path.join(cwd, ".env"),
    path.join(cwd, "my docs"),
    path.join(cwd, "my docs", "Screenshot 2024-01-01 at 10.00.00\u202FAM.png"),
    cwd,
    cwd,
    // grep reads every file below its root (pi-rpc.md §3: `path` is where it searches).
    path.join(cwd, ".env"),
    path.join(cwd, "my docs", "Screenshot 2024-01-01 at 10.00.00\u202FAM.png"),
    path.join(cwd, "out", "new.txt"),
    path.join(cwd, "out", "new.txt"),
    path.join(os.homedir(), "pi-host-never-written.txt"),
  ]);
  assert.deepEqual(host.opened.filter((o) => o.below).map((o) => o.tool), ["ls", "find", "grep"], "a search's or listing's root reaches below it");
  assert.equal(host.reached(path.join(cwd, "my docs", "anything")), true);
  assert.equal(host.reached(path.join(os.homedir(), "elsewhere")), false);
  assert.equal(host.seen.filter((s) => s.saw === "tool_opened").length, 10);
  await sleep(10);
});

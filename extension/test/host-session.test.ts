// The fake pi host's session lifecycle against pi 0.58.3 (spec §11 traps 1, 2, 3, 7, 15, 16, 17),
// checked with tiny throwaway extensions, not the real one.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { PiHost, type HostOptions } from "../../Tests/Fakes/pi-extension-host/host.ts";

declare global {
  var hostProbe: string[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An extension that logs every event it gets into globalThis.hostProbe (`body` adds more). */
function recorder(t: TestContext, body = ""): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-ext-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "recorder.ts");
  const events = [
    "session_start", "session_shutdown", "session_switch", "session_fork", "session_tree", "session_before_compact",
    "session_compact", "resources_discover", "agent_start", "agent_end", "turn_end", "model_select", "input",
  ];
  fs.writeFileSync(
    file,
    `export default function (pi: any): void {
  for (const name of ${JSON.stringify(events)}) pi.on(name, (e: any) => { globalThis.hostProbe.push(name + (e.reason ? ":" + e.reason : "") + (e.source && name === "model_select" ? ":" + e.source : "")); });
  ${body}
}
`,
  );
  return file;
}

async function started(t: TestContext, body = "", options: HostOptions = {}): Promise<PiHost> {
  globalThis.hostProbe = [];
  const host = await PiHost.create({ extensions: [recorder(t, body)], ...options });
  t.after(() => host.shutdown());
  await host.start();
  return host;
}

const SLOW = "slow: " + Array(40).fill("word").join(" ");

test("/compact mid-run: unsubscribed first, the run ends with no agent_end, pi idle throughout", async (t) => {
  const host = await started(t, "", { compactionMs: 200 });
  host.type("first");
  await host.waitFor((s) => s.saw === "run_end");
  host.type(SLOW);
  await host.waitFor((s) => s.saw === "user_message" && s.text === SLOW);
  await sleep(150);
  hostProbe.length = 0;
  host.type("/compact");
  await host.waitFor((s) => s.saw === "compacting");
  assert.equal(host.isStreaming, false, "idle during the compaction (trap 5)");
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end");
  await sleep(50);
  assert.deepEqual(hostProbe, ["session_before_compact", "session_compact"], "no turn_end or agent_end for the aborted run (trap 1)");
  assert.equal(host.seen.filter((s) => s.saw === "run_end").length, 1);
});

test("typed text during a compaction is held and sent after it (trap 7)", async (t) => {
  const host = await started(t, "", { compactionMs: 200 });
  host.type("first");
  await host.waitFor((s) => s.saw === "run_end");
  host.type("/compact");
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "start");
  host.type("after it");
  await host.waitFor((s) => s.saw === "held");
  const end = host.seen.findIndex((s) => s.saw === "compaction" && s.phase === "end");
  assert.equal(end, -1);
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: after it");
  assert.ok(host.seen.findIndex((s) => s.saw === "user_message" && s.text === "after it") > host.seen.findIndex((s) => s.saw === "compaction" && s.phase === "end"));
});

test("of the texts typed during a compaction only the first goes through prompt(); the rest are steered into its run without input (§5.3)", async (t) => {
  const host = await started(t, "", { compactionMs: 200 });
  host.type("first");
  await host.waitFor((s) => s.saw === "run_end");
  host.type("/compact");
  await host.waitFor((s) => s.saw === "compacting");
  host.type("one");
  host.type("two");
  hostProbe.length = 0;
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: two");
  assert.deepEqual(hostProbe.filter((name) => name === "input"), ["input"], "one input event, the first's");
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(users.slice(-2), ["one", "two"], "both in one run, the first first");
  assert.equal(hostProbe.filter((name) => name === "agent_start").length, 1);
  assert.deepEqual(host.seen.filter((s) => s.saw === "error"), []);
});

test("/new mid-run: no agent_end, and the agent's queued steer is dropped without a word (trap 2)", async (t) => {
  const host = await started(t, `pi.on("agent_start", () => { pi.sendUserMessage("queued steer", { deliverAs: "steer" }); });`);
  host.type(SLOW);
  await host.waitFor((s) => s.saw === "user_message" && s.text === SLOW);
  await sleep(100);
  assert.equal(host.toolContext().hasPendingMessages(), true);
  await host.newSession();
  await sleep(100);
  assert.equal(hostProbe.includes("agent_end"), false);
  assert.equal(host.toolContext().hasPendingMessages(), false);
  assert.equal(host.seen.some((s) => s.saw === "user_message" && s.text === "queued steer"), false);
});

test("/resume mid-run: no agent_end; the agent keeps its queue for the resumed session's next run; the model is restored after session_switch (traps 2, 15)", async (t) => {
  const host = await started(t, `(globalThis as any).hostPi = pi;`);
  // An earlier session answered by gpt-5, saved on disk.
  await host.selectModel("openai", "gpt-5");
  host.type("in the old session");
  await host.waitFor((s) => s.saw === "run_end");
  const oldId = host.sessionId;
  await host.newSession();
  await host.selectModel("anthropic", "claude-sonnet-4-5");
  host.type(SLOW);
  await host.waitFor((s) => s.saw === "user_message" && s.text === SLOW);
  (globalThis as any).hostPi.sendUserMessage("carried steer", { deliverAs: "steer" });
  await sleep(100);
  hostProbe.length = 0;
  await host.resume(oldId);
  assert.equal(host.sessionId, oldId);
  assert.deepEqual(hostProbe, ["session_switch:resume", "model_select:restore"]);
  assert.equal(host.model?.id, "gpt-5");
  assert.equal(host.toolContext().hasPendingMessages(), false, "the session's copies are cleared");
  host.type("next");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: carried steer");
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(users.slice(-2), ["next", "carried steer"]);
});

test("/fork and /tree mid-run do not abort: the run's events go on across them (trap 3)", async (t) => {
  const host = await started(t);
  host.type("first");
  await host.waitFor((s) => s.saw === "run_end");
  host.type(SLOW);
  await host.waitFor((s) => s.saw === "user_message" && s.text === SLOW);
  await host.fork();
  await host.tree();
  const end = await host.waitFor((s) => s.saw === "run_end" && s.text.startsWith("Echo: slow"), 10000);
  assert.equal(end.text, `Echo: ${SLOW}`);
  const order = hostProbe.filter((e) => ["session_fork", "session_tree", "agent_end"].includes(e));
  assert.deepEqual(order, ["agent_end", "session_fork", "session_tree", "agent_end"]);
});

test("/reload: refused mid-run; else the dialog is hidden unresolved, shutdown, fresh import, session_start, resources_discover (trap 16)", async (t) => {
  const host = await started(
    t,
    `globalThis.hostProbe.push("factory");
     pi.registerCommand("ask", { handler: async (_a: any, ctx: any) => { const c = new AbortController(); globalThis.hostCancel = c; ctx.ui.select("pick", ["a"], { signal: c.signal, timeout: 300 }).then((v: any) => globalThis.hostProbe.push("dialog:" + v)); } });`,
  );
  host.type(SLOW);
  await host.waitFor((s) => s.saw === "user_message" && s.text === SLOW);
  assert.equal(await host.reload(), false);
  await host.waitFor((s) => s.saw === "warning" && /Wait for the current response/.test(s.message));
  host.escape();
  await host.waitFor((s) => s.saw === "run_end");
  host.type("/ask");
  await host.waitFor((s) => s.saw === "dialog" && s.title === "pick");
  hostProbe.length = 0;
  assert.equal(await host.reload(), true); // a command's ctx.reload(): the editor is hidden by the dialog
  await host.waitFor((s) => s.saw === "session" && s.reason === "reload");
  assert.deepEqual(hostProbe, ["session_shutdown", "factory", "session_start", "resources_discover:reload"]);
  assert.ok(host.seen.some((s) => s.saw === "dialog_hidden" && s.title === "pick"));
  await sleep(400);
  assert.equal(hostProbe.some((e) => e.startsWith("dialog:")), false, "hidden, not resolved; its countdown stopped");
  (globalThis as any).hostCancel.abort();
  await sleep(10);
  assert.ok(hostProbe.includes("dialog:undefined"), "only its signal ends it");
});

test("/quit mid-run: session_shutdown awaited, and the run never gets agent_end (trap 17)", async (t) => {
  const host = await started(t, `pi.on("session_shutdown", async () => { await new Promise((r) => setTimeout(r, 50)); globalThis.hostProbe.push("shutdown done"); });`);
  host.type(SLOW);
  await host.waitFor((s) => s.saw === "user_message" && s.text === SLOW);
  hostProbe.length = 0;
  await host.shutdown();
  await sleep(300);
  assert.deepEqual(hostProbe, ["session_shutdown", "shutdown done"]);
});

test("a sendUserMessage during a manual compaction runs unseen and unsaved, then the compaction replaces the context (trap 7)", async (t) => {
  const host = await started(t, `(globalThis as any).hostPi = pi;`, { compactionMs: 300 });
  host.type("first");
  await host.waitFor((s) => s.saw === "run_end");
  await host.idle();
  hostProbe.length = 0;
  void host.compactFromTerminal();
  await host.waitFor((s) => s.saw === "compacting");
  (globalThis as any).hostPi.sendUserMessage("sneaky");
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end");
  await host.idle();
  assert.deepEqual(hostProbe, ["session_before_compact", "input", "session_compact"], "the run's events reached nobody");
  assert.equal(host.seen.some((s) => s.saw === "user_message" && s.text === "sneaky"), false);
  const manager = host.toolContext().sessionManager;
  assert.equal(JSON.stringify(manager.getEntries()).includes("sneaky"), false, "not persisted");
  assert.equal(JSON.stringify(host.contextMessages).includes("sneaky"), false, "gone from the context");
});

test("ctx.abort() in the pre-run phase does nothing: the run starts anyway (trap 10)", async (t) => {
  const host = await started(t, `pi.on("before_agent_start", (_e: any, ctx: any) => { ctx.abort(); });`, { preRunDelayMs: 100 });
  host.type("still runs");
  await sleep(30);
  host.toolContext().abort();
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Echo: still runs");
});

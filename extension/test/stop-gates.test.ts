// Stopping really stops: the daemon's `abort` (a chat's /stop, `pi-relayd abort`) while an
// approval is pending denies the call at once and closes the terminal's dialog (a tool_call
// handler gets no abort signal: spec §11 trap 12); it drops the chat prompts queued in the
// extension; and a prompt still in pi's pre-run phase, where ctx.abort() does nothing (trap 10),
// is aborted at its agent_start, before any tool call runs.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import type { Gates } from "../pi-relayd/index.ts";
import { PiHost } from "../../Tests/Fakes/pi-extension-host/host.ts";
import { EXTENSION, FakeDaemon, makeHome, sleep, slowKeyLookup, startHost } from "./support.ts";

const gates: Gates = { timeoutSeconds: 300, rules: [{ name: "rm-rf", tools: ["bash"], command: "rm\\s+-(rf|fr)\\b" }] };

/** The terminal's `rm -rf build` waiting for an approval nobody gives. */
async function pendingApproval(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: gates, approve: () => new Promise(() => {}) });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("run: rm -rf build");
  await host.waitFor((s) => s.saw === "dialog");
  await daemon.waitFor((m) => m.method === "approval");
  return { daemon, host };
}

test("abort during a pending approval: the call is denied at once and the terminal's dialog closes", async (t) => {
  const { daemon, host } = await pendingApproval(t);
  const asked = daemon.connections.find((c) => c.socket && c !== daemon.attached && !c.attachParams);
  const started = Date.now();
  daemon.send({ type: "abort", id: "stop-1" });
  await host.waitFor((s) => s.saw === "dialog_closed", 2000, "the terminal's dialog to close");
  const end = await host.waitFor((s) => s.saw === "run_end", 2000, "the run to end");
  const response = await daemon.response("stop-1", 2000);
  assert.equal(response.success, true);
  assert.ok(Date.now() - started < 1500, `stopped in ${Date.now() - started} ms`);
  assert.equal(host.seen.find((s) => s.saw === "dialog_closed")?.by, "abort");
  assert.doesNotMatch(end.text, /Done: ran rm -rf build/, "the command never ran");
  // The approval's own connection to the daemon is let go: the daemon closes its chat card.
  if (asked) {
    await sleep(100);
    assert.equal(asked.ended, true);
  }
  assert.deepEqual(host.errors, []);
});

test("abort during the first of two gated calls in one message: the second is not asked for, and the run ends", async (t) => {
  // pi checks no abort between one call's tool_call hook and the next one's (spec §11 trap 12):
  // after a stop, the rest of the stopped run's batch still comes to the hook, and would be asked
  // for (and run, if someone approved it) after the user stopped the run.
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: gates, approve: () => new Promise(() => {}) });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type('batch: bash {"command":"rm -rf a"} ;; bash {"command":"rm -rf b"} ;; bash {"command":"echo after"}');
  await host.waitFor((s) => s.saw === "dialog");
  await daemon.waitFor((m) => m.method === "approval");
  daemon.send({ type: "abort", id: "stop-batch" });
  assert.equal((await daemon.response("stop-batch", 8000)).success, true);
  await host.waitFor((s) => s.saw === "run_end", 3000, "the run to end");
  await sleep(300);
  const asked = daemon.lines((m) => m.method === "approval").map((m) => m.params.input.command);
  assert.deepEqual(asked, ["rm -rf a"], "nobody is asked about a call of the stopped run");
  assert.equal(host.isStreaming, false, "the run is over");
  assert.doesNotMatch(host.seen.filter((s) => s.saw === "run_end").map((s) => s.text).join("\n"), /ran echo after/, "no call of the stopped run ran");
  // The next prompt's calls are judged as usual.
  host.type("run: echo next");
  const next = await host.waitFor((s) => s.saw === "run_end" && /next/.test(s.text), 5000, "the next run");
  assert.match(next.text, /ran echo next/);
  assert.deepEqual(host.errors, []);
});

test("compact during a pending approval: pi aborts the run first, so the call is denied and the dialog closes", async (t) => {
  // AgentSession.compact() aborts a running agent first (spec §6 compact(), §11 trap 1), and a
  // tool_call handler waiting for a person gets no abort (trap 12): left waiting, the gate would
  // hold the compaction, and a call approved afterwards would still reach the tool.
  const { daemon, host } = await pendingApproval(t);
  daemon.send({ type: "compact", id: "compact-1" });
  await host.waitFor((s) => s.saw === "dialog_closed", 2000, "the terminal's dialog to close");
  await daemon.response("compact-1", 5000);
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end", 5000, "the compaction to end");
  await sleep(200);
  assert.equal(host.seen.some((s) => s.saw === "run_end" && /Done: ran rm -rf build/.test(s.text)), false, "the command never ran");
  assert.deepEqual(host.errors, []);
});

test("abort while pi is still starting a chat prompt: queued prompts are dropped, the run stops at its start", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: gates });
  const host = await startHost(t, { preRunDelayMs: 400 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "prompt", id: "p1", message: "run: ls" });
  daemon.send({ type: "prompt", id: "p2", message: "second", streamingBehavior: "followUp" });
  daemon.send({ type: "prompt", id: "p3", message: "third", streamingBehavior: "followUp" });
  await daemon.response("p3");
  await sleep(50); // pi is in its pre-run phase now: idle, no agent_start yet
  daemon.send({ type: "abort", id: "stop-2" });
  const response = await daemon.response("stop-2");
  assert.equal(response.success, true);
  await daemon.waitFor((m) => m.type === "agent_end", 3000, "the run to end");
  await sleep(300);
  const lines = daemon.lines(() => true);
  assert.equal(lines.some((m) => m.type === "tool_execution_start"), false, "no tool call ran");
  assert.equal(host.seen.some((s) => s.saw === "run_end" && /Done: ran ls/.test(s.text)), false);
  const last = lines.filter((m) => m.type === "message_end" && m.message?.role === "assistant").at(-1);
  assert.equal(last?.message.stopReason, "aborted", "the chat sees the run stopped");
  const delivered = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(delivered, ["run: ls"], "the queued chat prompts were dropped");
  assert.deepEqual(host.errors, []);
});

test("abort while a chat's steer waits in pi's queue: the chat hears it runs with the next prompt", async (t) => {
  // pi's abort keeps its steer and follow-up queues, and its next run starts with them (agent.ts
  // 377-379; spec §11 trap 2 for the queues' life); no extension API empties them, so the chat
  // that was answered "steered" is told where its words will go.
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("slow: one two three four five six seven eight");
  await daemon.waitFor((m) => m.type === "message_update");
  daemon.send({ type: "steer", id: "s", message: "also delete the build folder" });
  assert.equal((await daemon.response("s")).success, true);
  await sleep(50);
  daemon.send({ type: "abort", id: "stop" });
  assert.equal((await daemon.response("stop", 8000)).success, true);
  const told = await daemon.waitFor((m) => m.type === "prompts_delivered", 2000, "the steer's news");
  assert.deepEqual(told, { type: "prompts_delivered", reason: "stop", texts: ["also delete the build folder"] });
  assert.deepEqual(host.errors, []);
});


test("abort right after a prompt whose key lookup is slow: the prompt does not run after the stop", async (t) => {
  // The API-key check before a chat prompt is accepted awaits the registry's getApiKey (async;
  // it refreshes an OAuth token: spec §3 modelRegistry, §11 trap 6), which can take a while.
  // A /stop that comes meanwhile must still stop that prompt: ctx.abort() reaches no prompt not
  // yet started (trap 10), so sent after the stop, it would run.
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await PiHost.create({ extensions: [EXTENSION] });
  t.after(() => host.shutdown());
  slowKeyLookup(host, 400);
  await host.start();
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "prompt", id: "late-prompt", message: "hello" });
  daemon.send({ type: "abort", id: "stop-3" });
  const stopped = await daemon.response("stop-3", 3000);
  assert.equal(stopped.success, true);
  assert.equal(stopped.data.promptsDropped, 1, "counted as dropped by the stop");
  const prompt = await daemon.response("late-prompt", 3000);
  await sleep(1000);
  assert.equal(host.seen.some((s) => s.saw === "user_message"), false, "the prompt never reached pi's conversation");
  assert.equal(daemon.lines((m) => m.type === "agent_start").length, 0, "no run");
  assert.equal(prompt.success, false, "the chat hears its prompt was not run");
  assert.match(prompt.error, /stopped/);
  assert.deepEqual(host.errors, []);
});

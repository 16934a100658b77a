// A stop while a chat prompt's pre-run phase compacts (spec §11 trap 5: pi's prompt() may run a
// whole compaction before agent_start, and stays idle all along; trap 10: ctx.abort() does
// nothing then). The stop stays armed for as long as the compaction takes, and the prompt is
// aborted when it starts; once the compaction is done, the prompt's own pre-run limit applies
// again, so a prompt that never starts (trap 6) does not leave a stop armed for a later one.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Gatekeeper } from "../pi-relayd/gates.ts";
import { RunStop } from "../pi-relayd/stop.ts";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

function setup() {
  const gatekeeper = { cancelAll: () => 0, runStarted: () => {} } as unknown as Gatekeeper;
  const stop = new RunStop(gatekeeper, () => 0, () => {}, { preRunMs: 100, compactingMs: 5000 });
  const ctx = { aborts: 0, isIdle: () => true, abort() { this.aborts++; } };
  return { stop, ctx };
}

test("a stop during a long pre-run compaction aborts the prompt when it starts", async () => {
  const { stop, ctx } = setup();
  stop.onInput(true);
  stop.onCompaction(true);
  await sleep(250); // longer than the pre-run limit: the compaction's LLM call
  const answered = stop.stop(ctx as any);
  assert.equal(answered.abortAtStart, true, "the prompt still in its pre-run phase is the one the stop meant");
  await sleep(250);
  stop.onCompaction(false);
  await sleep(20);
  stop.onAgentStart(ctx as any);
  assert.equal(ctx.aborts, 2, "aborted at its agent_start");
});

test("after the compaction a stop armed for a prompt that never starts lapses with the pre-run limit", async () => {
  const { stop, ctx } = setup();
  stop.onInput(true);
  stop.onCompaction(true);
  stop.stop(ctx as any);
  stop.onCompaction(false);
  await sleep(250);
  stop.onAgentStart(ctx as any);
  assert.equal(ctx.aborts, 1, "a later run is not aborted");
});

test("a compaction that is no prompt's (its input long past, never started) arms nothing", async () => {
  const { stop, ctx } = setup();
  stop.onInput(true); // a prompt that failed to start (trap 6): no agent_start, no agent_end
  await sleep(150);
  stop.onCompaction(true); // the terminal's /compact, later
  await sleep(150);
  assert.equal(stop.stop(ctx as any).abortAtStart, false);
  stop.onCompaction(false);
  assert.equal(stop.stop(ctx as any).abortAtStart, false, "nor after it");
  stop.onAgentStart(ctx as any);
  assert.equal(ctx.aborts, 2, "the next run is not aborted");
});

test("through the fake pi: a chat prompt whose pre-run compacts for longer than 30 s is stopped at its start", async (t) => {
  // The fake host runs the compaction inside prompt(), between `input` and `agent_start`, with
  // session_before_compact and session_compact (trap 5; host.ts, `preRunCompaction`).
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { preRunCompaction: true, compactionMs: 31_000 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("hello"); // something to compact
  await host.waitFor((s) => s.saw === "run_end", 5000);
  daemon.send({ type: "prompt", id: "p1", message: "run: ls" });
  await host.waitFor((s) => s.saw === "compacting", 5000, "the pre-run compaction");
  await sleep(30_500);
  daemon.send({ type: "abort", id: "stop" });
  assert.equal((await daemon.response("stop", 5000)).data?.abortAtStart, true, "the stop is for the prompt still starting");
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end", 5000, "the compaction to end");
  await daemon.waitFor((m) => m.type === "agent_end", 5000, "the run to end");
  await sleep(200);
  assert.equal(daemon.lines((m) => m.type === "tool_execution_start").length, 0, "no tool call ran");
  assert.deepEqual(host.errors, []);
});

test("a switch with no prompt starting disarms a stop, so a later prompt in the new session runs", async () => {
  const { stop, ctx } = setup();
  stop.onInput(true);
  stop.onCompaction(true);
  assert.equal(stop.stop(ctx as any).abortAtStart, true);
  stop.sessionSwitched(false); // its compaction failed, and nothing is starting at the /new
  stop.onAgentStart(ctx as any);
  assert.equal(ctx.aborts, 1, "the next run is not aborted");
  stop.onInput(true);
  assert.equal(stop.stop(ctx as any).abortAtStart, true);
  stop.sessionSwitched(true); // the prompt still starting runs in the new session
  stop.onAgentStart(ctx as any);
  assert.equal(ctx.aborts, 3, "it is aborted at its start");
});

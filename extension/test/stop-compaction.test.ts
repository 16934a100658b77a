// A stop while a chat prompt's pre-run phase compacts (spec §11 trap 5: pi's prompt() may run a
// whole compaction before agent_start, and stays idle all along; trap 10: ctx.abort() does
// nothing then). The stop stays armed for as long as the compaction takes, and the prompt is
// aborted when it starts; once the compaction is done, the prompt's own pre-run limit applies
// again, so a prompt that never starts (trap 6) does not leave a stop armed for a later one.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Gatekeeper } from "../pi-relayd/gates.ts";
import { RunStop } from "../pi-relayd/stop.ts";
import { sleep } from "./support.ts";

function setup() {
  const gatekeeper = { cancelAll: () => 0 } as unknown as Gatekeeper;
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

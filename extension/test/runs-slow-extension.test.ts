// A run is not ended while its events are held up behind another extension's slow handler. pi
// awaits each handler in turn and its agent loop does not wait for them (spec §8 "Dispatch",
// §9 quirks 2 and 3), so pi can look idle (`isIdle()`, §11 trap 5) while the rest of a run,
// its agent_end included, is still on its way. The idle check that ends runs pi ended silently
// (§11 trap 1) must not take that for one.
import assert from "node:assert/strict";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { EXTENSION, FakeDaemon, makeHome, startHost } from "./support.ts";

type Json = Record<string, any>;

const SLOW_EXTENSION = path.resolve(import.meta.dirname, "fixtures", "slow-handler.ts");

async function attachedBehindSlowExtension(t: TestContext, slow: Json) {
  (globalThis as any).slowHandler = slow;
  t.after(() => delete (globalThis as any).slowHandler);
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  // Loaded before ours: its handler runs first, and ours waits with every later event.
  const host = await startHost(t, { extensions: [SLOW_EXTENSION, EXTENSION] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

function assertOneEndNotAborted(daemon: FakeDaemon): void {
  const types = daemon.lines(() => true).map((m) => m.type);
  assert.equal(types.filter((type) => type === "agent_end").length, 1, `one end: ${JSON.stringify(types.filter((x) => x !== "message_update"))}`);
  assert.equal(daemon.lines((m) => m.message?.stopReason === "aborted").length, 0, "not ended as aborted");
  const runEvents = types.filter((type) => /^(agent|turn|message|tool_execution)_/.test(type));
  assert.equal(runEvents.at(-1), "agent_end", "nothing of the run after its end");
}

test("another extension's slow agent_end handler: the run ends when its agent_end comes, not as aborted before", async (t) => {
  const { daemon, host } = await attachedBehindSlowExtension(t, { event: "agent_end", ms: 7000 });
  const started = Date.now();
  host.type("hello");
  await host.waitFor((s) => s.saw === "run_end", 12_000, "pi's run end, after the slow handler");
  await daemon.waitFor((m) => m.type === "agent_end", 2000);
  assert.ok(daemon.received.find((r) => r.message.type === "agent_end")!.at - started >= 6500, "not before pi's agent_end");
  assertOneEndNotAborted(daemon);
  assert.deepEqual(host.errors, []);
});

test("another extension's slow message_update handler mid-answer: the answer's rest and its end come through, not an aborted end", async (t) => {
  const { daemon, host } = await attachedBehindSlowExtension(t, { event: "message_update", ms: 9000 });
  const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
  host.type(`slow: ${words}`);
  await host.waitFor((s) => s.saw === "run_end", 15_000, "pi's run end, after the slow handler");
  await daemon.waitFor((m) => m.type === "agent_end", 2000);
  assertOneEndNotAborted(daemon);
  const answer = daemon.lines((m) => m.type === "message_end" && m.message?.role === "assistant").at(-1);
  assert.equal(answer?.message?.content?.[0]?.text, `Echo: slow: ${words}`);
  assert.deepEqual(host.errors, []);
});

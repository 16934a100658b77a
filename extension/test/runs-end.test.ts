// Every run ends in the chat (issue "Terminal sessions behave exactly as real pi does", runs
// point 8): pi's compact(), /new and /resume unsubscribe before they abort, so the aborted run
// sends no agent_end (spec §11 traps 1, 2), nor does a pi that quits mid-run (trap 17). The
// extension ends such a run itself, as aborted, in pi's shapes.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PiHost } from "../../Tests/Fakes/pi-extension-host/host.ts";
import { FakeDaemon, makeHome, startHost, waitUntil, type DaemonConnection } from "./support.ts";

type Json = Record<string, any>;

const SLOW = `slow: ${Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ")}`;

async function attached(t: any, options: Json = {}): Promise<{ daemon: FakeDaemon; host: PiHost }> {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, options);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

/** Starts a slow run and waits until its answer streams. */
async function midRun(daemon: FakeDaemon, host: PiHost): Promise<void> {
  const isDelta = (m: Json) => m.type === "message_update" && m.assistantMessageEvent?.type === "text_delta";
  const before = daemon.lines(isDelta).length;
  host.type(SLOW);
  await daemon.waitFor(isDelta, 5000, "the answer streaming", before + 1);
}

/** The lines one connection got, in order. */
function linesOn(daemon: FakeDaemon, connection: DaemonConnection): Json[] {
  return daemon.received.filter((r) => r.connection === connection).map((r) => r.message);
}

/** The aborted end in pi's shapes: the open message's message_end (aborted), turn_end, agent_end. */
function assertAbortedEnd(lines: Json[]): void {
  const starts = lines.filter((m) => m.type === "agent_start").length;
  const ends = lines.filter((m) => m.type === "agent_end").length;
  assert.equal(ends, starts, `every agent_start has its agent_end: ${JSON.stringify(lines.map((m) => m.type))}`);
  const last = lines.filter((m) => m.type === "message_end").at(-1);
  assert.equal(last?.message?.stopReason, "aborted");
  assert.equal(last?.message?.role, "assistant");
  const from = lines.map((m) => m.type).lastIndexOf("agent_start");
  const streamed = lines
    .slice(from)
    .filter((m) => m.type === "message_update" && m.assistantMessageEvent?.type === "text_delta")
    .map((m) => m.assistantMessageEvent.delta)
    .join("");
  assert.ok(streamed.startsWith("Echo: "));
  assert.equal(last.message.content?.[0]?.text, streamed, "the text streamed so far stays the answer");
  const types = lines.map((m) => m.type);
  assert.deepEqual(types.slice(types.lastIndexOf("message_end")), ["message_end", "turn_end", "agent_end"]);
}

test("a terminal /compact mid-run ends the run as aborted at session_before_compact (trap 1)", async (t) => {
  const { daemon, host } = await attached(t);
  host.type("first");
  await daemon.waitFor((m) => m.type === "agent_end");
  await midRun(daemon, host);
  const compacting = Date.now();
  const compacted = host.compactFromTerminal();
  await daemon.waitFor((m) => m.type === "agent_end", 3000, "the compacted run's end", 2);
  assert.ok(Date.now() - compacting < 1000, "at once, not after a timeout");
  await compacted;
  assert.ok(host.seen.some((s) => s.saw === "compacted"), "pi compacted");
  assert.equal(host.seen.filter((s) => s.saw === "run_end").length, 1, "pi itself ended only the first run (the fake shows the trap)");
  assertAbortedEnd(daemon.lines(() => true));
  assert.deepEqual(host.errors, []);
});

test("a /compact that fails before session_before_compact still ends the run within 5 s", async (t) => {
  const { daemon, host } = await attached(t);
  await midRun(daemon, host);
  void host.compactFromTerminal(); // one message so far: "Nothing to compact", no extension event
  await host.waitFor((s) => s.saw === "error" && /Nothing to compact/.test(s.message), 3000);
  const failed = Date.now();
  await daemon.waitFor((m) => m.type === "agent_end", 6000, "the run's end");
  assert.ok(Date.now() - failed <= 5500, `ended ${Date.now() - failed} ms after pi went idle`);
  assertAbortedEnd(daemon.lines(() => true));
});

test("a run pi ended silently is closed before the next run starts, even within the idle check's 5 s", async (t) => {
  // The /compact above fails with no extension event (trap 1); a prompt typed at once starts a
  // run before the idle check ends the old one, and the daemon read start, start, end as one run.
  const { daemon, host } = await attached(t);
  await midRun(daemon, host);
  void host.compactFromTerminal();
  await host.waitFor((s) => s.saw === "error" && /Nothing to compact/.test(s.message), 3000);
  host.type("next prompt");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: next prompt", 5000, "the next prompt's answer");
  await daemon.waitFor((m) => m.type === "agent_end", 3000, "the next run's end", 2);
  const runs = daemon.lines((m) => m.type === "agent_start" || m.type === "agent_end").map((m) => m.type);
  assert.deepEqual(runs, ["agent_start", "agent_end", "agent_start", "agent_end"]);
  const lines = daemon.lines(() => true);
  assertAbortedEnd(lines.slice(0, lines.findLastIndex((m) => m.type === "agent_start")));
});

for (const reason of ["new", "resume"] as const) {
  test(`/${reason} mid-run ends the run as aborted in the session it belonged to (trap 2)`, async (t) => {
    const { daemon, host } = await attached(t);
    await midRun(daemon, host);
    const old = daemon.attached;
    if (reason === "new") await host.newSession();
    else await host.resume("0f0e0d0c-0b0a-4908-8706-050403020100");
    await waitUntil(() => daemon.attaches.length === 2, 5000, "the new session's attach");
    assertAbortedEnd(linesOn(daemon, old));
    const fresh = linesOn(daemon, daemon.attached);
    assert.equal(fresh.some((m) => m.type === "agent_end" || m.type === "agent_start"), false, "nothing of the old run in the new session");
    assert.deepEqual(host.errors, []);
  });
}

test("/quit mid-run: the daemon hears the run end as aborted before the connection closes (trap 17)", async (t) => {
  const { daemon, host } = await attached(t);
  await midRun(daemon, host);
  const connection = daemon.attached;
  await host.shutdown();
  await waitUntil(() => connection.ended, 3000, "the connection to close");
  assertAbortedEnd(linesOn(daemon, connection));
});

test("a run pi ends itself is not ended twice", async (t) => {
  const { daemon, host } = await attached(t);
  host.type("hello");
  await daemon.waitFor((m) => m.type === "agent_end");
  await host.compactFromTerminal();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(daemon.lines((m) => m.type === "agent_end").length, 1);
  assert.equal(daemon.lines((m) => m.message?.stopReason === "aborted").length, 0);
});

test("pi's agent loop throws mid-answer: the daemon hears its error in agent_end, and the run is over (§8.1)", async (t) => {
  // pi tells extensions only agent_end, with one synthetic error message; the answer that was
  // streaming keeps its message_start without a message_end.
  const { daemon, host } = await attached(t);
  host.type("throw: the provider stream broke");
  const end = await daemon.waitFor((m) => m.type === "agent_end", 3000, "the run's end");
  assert.deepEqual(end.messages, [{ role: "assistant", stopReason: "error", errorMessage: "the provider stream broke" }]);
  const types = daemon.lines(() => true).map((m) => m.type).filter((type) => type !== "message_update");
  assert.deepEqual(types.slice(types.indexOf("agent_start")), ["agent_start", "turn_start", "message_start", "message_end", "message_start", "agent_end"]);
  // Nothing of it is left open: the next prompt is a run of its own, and no end comes for the old one.
  host.type("next prompt");
  await daemon.waitFor((m) => m.type === "agent_end", 3000, "the next run's end", 2);
  const runs = daemon.lines((m) => m.type === "agent_start" || m.type === "agent_end").map((m) => m.type);
  assert.deepEqual(runs, ["agent_start", "agent_end", "agent_start", "agent_end"]);
  assert.equal(daemon.lines((m) => m.type === "agent_end").at(-1).messages, undefined, "a run that did not fail says nothing more");
  assert.equal(daemon.lines((m) => m.message?.stopReason === "aborted").length, 0, "not ended again as aborted");
  assert.deepEqual(host.errors, []);
});

test("a threshold compaction after a run: the run ends once, at pi's agent_end, and no end is made up while pi compacts (trap 4)", async (t) => {
  // pi compacts over the threshold in its own agent_end processing, after the extensions' handlers
  // (spec §11 trap 4), idle all along (trap 5): the run is over for the chat by then, as pi's RPC
  // mode says (agent_end before auto_compaction_start), and nothing of it may end again.
  const { daemon, host } = await attached(t, { compactionMs: 6000 });
  host.type("full: a long answer");
  await daemon.waitFor((m) => m.type === "agent_end", 3000, "the run's end");
  await host.waitFor((s) => s.saw === "compacting" && s.auto === true, 3000, "pi's threshold compaction");
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end", 8000, "the compaction's end");
  const types = daemon.lines((m) => /^(agent|turn|message)_/.test(m.type)).map((m) => m.type);
  assert.equal(types.filter((type) => type === "agent_end").length, 1);
  assert.equal(types.at(-1), "agent_end");
  assert.equal(daemon.lines((m) => m.message?.stopReason === "aborted").length, 0);
  assert.deepEqual(host.errors, []);
});

// Relay tools do not change mid-run (spec §11 trap 14) and get_state's messageCount is RPC's
// (issue "Terminal sessions behave exactly as real pi does", runs points 11 and 12).
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

test("a chat coming and going mid-run changes no tool: the relay tools are registered once and stay", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  const atStart = host.toolChanges.length; // the registrations at session_start, before any run
  host.type(`slow: ${"word ".repeat(20)}`);
  await daemon.waitFor((m) => m.type === "message_update");
  daemon.send({ type: "relay_status", watchers: ["discord"] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord");
  daemon.send({ type: "relay_status", watchers: [] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached" && host.seen.some((x) => x.text === "relay: watching on discord"));
  await host.idle();
  assert.deepEqual(host.toolChanges.filter((change) => change.during === "run"), [], "no tool-set or system-prompt change during the run");
  daemon.send({ type: "relay_status", watchers: ["discord"] });
  await sleep(100);
  daemon.send({ type: "relay_status", watchers: [] });
  await sleep(100);
  assert.deepEqual(host.toolChanges.slice(atStart), [], "nor between runs: nothing to re-bill in the prompt cache");
  for (const name of ["relay_notify", "relay_send_file", "spawn_session"]) {
    assert.ok(host.runTools[0].includes(name), `${name} is offered from the first run on`);
  }
  host.type('call: relay_notify {"text":"hello"}');
  const end = await host.waitFor((s) => s.saw === "run_end" && String(s.text).startsWith("The tool failed"));
  assert.equal(end.text, "The tool failed: no chat is watching this session");
  assert.equal(daemon.lines((m) => m.method === "relay-notify").length, 0, "the daemon is not asked");
});

test("get_state: messageCount is the agent's context after a compaction, as pi's RPC counts it", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  for (const prompt of ["one", "two", "three"]) {
    host.type(prompt);
    await host.waitFor((s) => s.saw === "run_end" && s.text === `Echo: ${prompt}`);
  }
  await host.idle();
  daemon.send({ type: "get_state", id: "s1" });
  assert.equal((await daemon.response("s1")).data.messageCount, 6);
  await host.compactFromTerminal(); // the fake keeps the last message: the summary and one kept
  daemon.send({ type: "get_state", id: "s2" });
  assert.equal((await daemon.response("s2")).data.messageCount, 2, "the compaction summary and the kept message");
  host.type("four");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: four");
  await host.idle();
  daemon.send({ type: "get_state", id: "s3" });
  assert.equal((await daemon.response("s3")).data.messageCount, 4);
});

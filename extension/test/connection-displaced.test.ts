// Two terminal pis on one pi session (the same session opened again in a second terminal, e.g.
// with /resume): the daemon lets the newer attach replace the older link (docs/EXTENSION.md, end
// of "The registration protocol"). The older pi must not take the session back at once, or the
// two would take it from each other for ever. Each pi is a process of its own (its own pid, its
// own claim of the extension), as in two terminals.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test, type TestContext } from "node:test";
import { FakeDaemon, makeHome, ScriptedHost, sleep, waitUntil, type DaemonOptions } from "./support.ts";

const DISPLACED = /^relay: another pi \(pid \d+\) relays this session/;

async function twoPisOnOneSession(t: TestContext, options: DaemonOptions = {}) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { watchers: ["discord"], ...options });
  const sessionId = randomUUID();
  const first = new ScriptedHost(t, ["--session-id", sessionId]);
  await daemon.waitFor((m) => m.method === "attach" && m.params.pid === first.child.pid, 5000, "the first pi's attach");
  await first.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord", "the first pi attached");
  const second = new ScriptedHost(t, ["--session-id", sessionId]);
  await daemon.waitFor((m) => m.method === "attach" && m.params.pid === second.child.pid, 5000, "the second pi's attach");
  return { daemon, first, second };
}

function statuses(host: ScriptedHost): string[] {
  return host.seen.filter((s) => s.saw === "status" && s.key === "pi-relayd").map((s) => s.text);
}

test("two pis on one session: the newer keeps it, the older stops taking it back and says so once", async (t) => {
  const { daemon, first, second } = await twoPisOnOneSession(t);
  await sleep(3000);
  // Before the fix each pi took the session back 250 ms after losing it: about 12 attaches each.
  assert.ok(daemon.attaches.length <= 3, `${daemon.attaches.length} attaches in 3 s: ${daemon.attaches.map((a) => a.pid).join(" ")}`);
  assert.equal(daemon.attached.attachParams!.pid, second.child.pid, "the newer pi relays the session");
  assert.equal(statuses(first).filter((text) => DISPLACED.test(text)).length, 1, `the first pi's footer: ${statuses(first).join(" | ")}`);
  assert.match(statuses(first).at(-1)!, DISPLACED);
  assert.ok(statuses(first).at(-1)!.includes(String(second.child.pid)), "it names the pi that relays the session");
  assert.equal(statuses(second).at(-1), "relay: watching on discord");

  // `/relay status` says so, and (an extension command: no `input` event) takes nothing back.
  first.do({ do: "type", text: "/relay status" });
  const shown = await first.waitFor((s) => s.saw === "notify" && String(s.message).startsWith("relay: "), "the status");
  assert.match(shown.message, new RegExp(`^relay: displaced: pi ${second.child.pid} relays this session`));
  await sleep(300);
  assert.ok(daemon.attaches.length <= 3);
  assert.equal(daemon.attached.attachParams!.pid, second.child.pid);
  for (const host of [first, second]) assert.equal(host.seen.filter((s) => s.saw === "extension_error").length, 0);
});

test("a prompt typed in the displaced pi takes the session back, and the other pi stops in turn", async (t) => {
  const { daemon, first, second } = await twoPisOnOneSession(t);
  await first.waitFor((s) => s.saw === "status" && DISPLACED.test(s.text), "the first pi displaced");

  first.do({ do: "type", text: "mine now" });
  await daemon.waitFor((m) => m.method === "attach" && m.params.pid === first.child.pid, 3000, "the first pi attached again", 2);
  // The typed prompt and its run reach the chats on the new link.
  const echo = await daemon.waitFor((m) => m.type === "terminal_input" && m.text === "mine now", 3000, "the typed prompt");
  const on = daemon.received.find((r) => r.message === echo)!.connection;
  assert.equal(on.attachParams!.pid, first.child.pid);
  await daemon.waitFor((m) => m.type === "agent_end", 3000, "the run's end");
  await second.waitFor((s) => s.saw === "status" && DISPLACED.test(s.text), "the second pi displaced");

  const attaches = daemon.attaches.length;
  await sleep(1500);
  assert.equal(daemon.attaches.length, attaches, "nobody takes it back");
  assert.equal(daemon.attached.attachParams!.pid, first.child.pid);
});

test("a prompt typed while the daemon is still asked who holds the session takes it back", async (t) => {
  // The daemon takes its time over `sessions`: the prompt comes before the answer.
  const { daemon, first, second } = await twoPisOnOneSession(t, { sessionsDelayMs: 1500 });
  await daemon.waitFor((m) => m.method === "sessions", 3000, "the first pi asking who holds the session");
  first.do({ do: "type", text: "still mine" });
  await daemon.waitFor((m) => m.method === "attach" && m.params.pid === first.child.pid, 1000, "the first pi attached again", 2);
  await daemon.waitFor((m) => m.type === "terminal_input" && m.text === "still mine", 3000, "the typed prompt");
  await second.waitFor((s) => s.saw === "status" && DISPLACED.test(s.text), "the second pi displaced", 4000);
  await sleep(500);
  assert.equal(daemon.attached.attachParams!.pid, first.child.pid);
  assert.equal(statuses(first).some((text) => DISPLACED.test(text)), false, `the first pi's footer: ${statuses(first).join(" | ")}`);
});

test("the pi that took the session over quits: the displaced one attaches again", async (t) => {
  const { daemon, first, second } = await twoPisOnOneSession(t);
  await first.waitFor((s) => s.saw === "status" && DISPLACED.test(s.text), "the first pi displaced");

  second.do({ do: "quit" });
  assert.equal(await second.exited(), 0);
  await daemon.waitFor((m) => m.method === "attach" && m.params.pid === first.child.pid, 6000, "the first pi attached again", 2);
  await waitUntil(() => statuses(first).at(-1) === "relay: watching on discord", 2000, "the first pi's footer");
  assert.equal(daemon.attached.attachParams!.pid, first.child.pid);
});

test("a displaced pi that starts a new session leaves the chats with the pi relaying the old one", async (t) => {
  const { daemon, first, second } = await twoPisOnOneSession(t);
  await first.waitFor((s) => s.saw === "status" && DISPLACED.test(s.text), "the first pi displaced");

  first.do({ do: "new" });
  const fresh = await first.waitFor((s) => s.saw === "session" && s.reason === "new", "the new session");
  const attach = await daemon.waitFor((m) => m.method === "attach" && m.params.piSessionID === fresh.sessionId, 3000, "the new session's attach");
  // previousPiSessionID would move the old session's chats (docs/EXTENSION.md §1) away from the
  // pi that relays it now.
  assert.equal("previousPiSessionID" in attach.params, false);
  await first.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord", "the first pi attached");
  assert.equal(daemon.connections.filter((c) => c.attachParams && !c.ended && !c.replaced).length, 2, "both pis relay a session each");
  assert.equal(statuses(second).at(-1), "relay: watching on discord");
});

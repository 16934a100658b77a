// The connection to the daemon: the attach, the footer, retries, re-attaches and bad input.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { EXTENSION_VERSION } from "../pi-relayd/index.ts";
import { FakeDaemon, makeHome, sleep, startHost, waitUntil } from "./support.ts";

test("the attach line says who pi is, and the footer follows the daemon's relay_status", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { watchers: ["discord"] });
  const host = await startHost(t, { piVersion: "0.58.3" });

  const attach = await daemon.waitFor((m) => m.method === "attach");
  assert.equal(attach.id, "attach");
  const params = attach.params;
  assert.equal(params.piSessionID, host.sessionId);
  assert.equal(params.sessionFile, host.sessionFile);
  assert.equal(params.cwd, host.cwd);
  assert.equal(params.name, null);
  assert.equal(params.model, "anthropic/claude-sonnet-4-5");
  assert.equal(params.thinkingLevel, "medium");
  assert.equal(params.pid, process.pid);
  assert.equal(params.piVersion, "0.58.3");
  assert.equal(params.extensionVersion, EXTENSION_VERSION);
  assert.equal(params.interactive, true);
  assert.equal("previousPiSessionID" in params, false);

  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord");
  daemon.send({ type: "relay_status", watchers: [] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "relay_status", watchers: ["discord", "telegram"] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord, telegram");
  assert.deepEqual(host.errors, []);
});

test("no pi version to be found: the attach says null and goes ahead", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  await startHost(t, { piVersion: null });
  const attach = await daemon.waitFor((m) => m.method === "attach");
  assert.equal(attach.params.piVersion, null);
});

test("no daemon: quiet retries, then it attaches within a second of the socket appearing", async (t) => {
  const home = makeHome(t);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline", 2000);
  // Past the third retry (250 + 500 + 1000 ms): the next comes at 3.75 s, so only the folder
  // watch can explain an attach soon after the socket appears.
  await sleep(2000);
  const offlineSights = host.seen.filter((s) => s.saw === "status").length;
  assert.equal(offlineSights, 1, "the footer says offline once, not at every retry");

  const daemon = new FakeDaemon(home);
  t.after(() => daemon.stop());
  const appeared = Date.now();
  await daemon.listen();
  await daemon.waitFor((m) => m.method === "attach", 2000);
  assert.ok(Date.now() - appeared < 1000, `attached ${Date.now() - appeared} ms after the socket appeared`);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  assert.deepEqual(host.errors, []);
});

test("no daemon folder at all: retries until it exists, then attaches", async (t) => {
  const home = makeHome(t);
  const daemonHome = path.join(home, "later");
  process.env.PI_RELAYD_HOME = daemonHome;
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline", 2000);
  fs.mkdirSync(daemonHome);
  const daemon = await FakeDaemon.start(t, daemonHome);
  await daemon.waitFor((m) => m.method === "attach", 6000);
  assert.deepEqual(host.errors, []);
});

test("the daemon closes the connection: offline, then attached again under the same pi session", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");

  daemon.dropConnections();
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  await daemon.waitFor((m) => m.method === "attach", 2000, "a second attach", 2);
  const [first, second] = daemon.attaches;
  assert.equal(second.piSessionID, first.piSessionID);
  assert.equal("previousPiSessionID" in second, false);
  assert.deepEqual(host.errors, []);
});

test("the daemon restarts (socket removed and made anew): attached again", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await daemon.stop();
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  await sleep(300);
  const restarted = await FakeDaemon.start(t, home);
  const attach = await restarted.waitFor((m) => m.method === "attach", 2000);
  assert.equal(attach.params.piSessionID, host.sessionId);
});

test("garbage from the daemon and a broken socket never reach pi", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  daemon.send("this is not json\n");
  daemon.send("[1,2,3]\n");
  daemon.send("\n\r\n");
  daemon.send('{"type":"prompt","id":"p1","message":42}\n');
  daemon.send('{"id":"x"}\n');
  daemon.send('{"type":"extension_ui_response","id":"nobody-asked","value":"yes"}\n');
  daemon.send('{"type":"relay_status","watchers":"discord"}\n');
  daemon.send('{"type":"get_state","id":"half');
  const response = await daemon.response("p1");
  assert.equal(response.success, false);
  assert.match(response.error, /message/);
  daemon.attached.socket.destroy(); // mid-line
  await daemon.waitFor((m) => m.method === "attach", 2000, "a second attach", 2);
  await sleep(100);
  assert.deepEqual(host.errors, []);
});

test("a daemon that refuses the attach: the footer says why and it does not retry", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { refuse: { code: "not_authorized", message: "only the daemon's user" } });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: refused (only the daemon's user)");
  await sleep(1200);
  assert.equal(daemon.attaches.length, 1);
});

test("a daemon that says the pi is too old: the footer asks for a newer pi", async (t) => {
  const home = makeHome(t);
  await FakeDaemon.start(t, home, { refuse: { code: "unsupported", message: "pi too old" } });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: pi 0.58.1 or newer needed");
});

test("/new attaches the new pi session, naming the one it replaces", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  const first = (await daemon.waitFor((m) => m.method === "attach")).params;
  const firstConnection = daemon.attached;
  await host.newSession();
  const second = (await daemon.waitFor((m) => m.method === "attach", 2000, "the new session's attach", 2)).params;
  assert.notEqual(second.piSessionID, first.piSessionID);
  assert.equal(second.piSessionID, host.sessionId);
  assert.equal(second.previousPiSessionID, first.piSessionID);
  assert.equal(second.sessionFile, host.sessionFile);
  await waitUntil(() => firstConnection.ended, 2000, "the old connection to end");

  // A reconnect of the new session no longer names the old one.
  daemon.dropConnections();
  const third = (await daemon.waitFor((m) => m.method === "attach", 2000, "a re-attach", 3)).params;
  assert.equal(third.piSessionID, second.piSessionID);
  assert.equal("previousPiSessionID" in third, false);

  // /fork too.
  await host.fork();
  const fourth = (await daemon.waitFor((m) => m.method === "attach", 2000, "the fork's attach", 4)).params;
  assert.equal(fourth.previousPiSessionID, second.piSessionID);
  assert.deepEqual(host.errors, []);
});

test("session_shutdown closes the connection at once", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  const connection = daemon.attached;
  const started = Date.now();
  await host.shutdown();
  assert.ok(Date.now() - started < 500, "session_shutdown does not wait for the network");
  await waitUntil(() => connection.ended, 1000, "the connection to end");
  await sleep(600);
  assert.equal(daemon.attaches.length, 1, "no reconnect after shutdown");
});

test("the extension logs to PI_RELAYD_HOME/logs/extension.log", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  const log = path.join(home, "logs", "extension.log");
  await waitUntil(() => fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("attached"), 2000, "the log line");
});

test("a daemon folder others may write to is not connected to", async (t) => {
  const home = makeHome(t);
  fs.chmodSync(home, 0o777);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === `relay: refused (others may write to ${home})`);
  await sleep(600);
  assert.equal(daemon.connections.length, 0);
  fs.chmodSync(home, 0o700); // put right: attached at the next retry
  await daemon.waitFor((m) => m.method === "attach", 6000);
});

test("a socket owned by another user is not connected to", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  try {
    fs.lchownSync(daemon.socketPath, 65534, 65534);
  } catch {
    t.skip("only root can give the socket to another user");
    return;
  }
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === `relay: refused (${daemon.socketPath} is not yours)`);
  assert.equal(daemon.connections.length, 0);
});

test("attached again in the middle of a run: the daemon hears agent_start before the rest of it", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  host.type("slow: " + Array.from({ length: 20 }, (_, index) => `word${index}`).join(" "));
  await daemon.waitFor((m) => m.type === "message_update");
  daemon.dropConnections();
  await daemon.waitFor((m) => m.method === "attach", 3000, "the re-attach", 2);
  await daemon.waitFor((m) => m.type === "agent_end", 5000, "the run's end");
  const after = daemon.lines(() => true);
  const reattach = after.findIndex((m, index) => m.method === "attach" && index > after.findIndex((n) => n.method === "attach"));
  const next = after.slice(reattach + 1).filter((m) => m.type !== undefined && m.type !== "session_info");
  assert.equal(next[0]?.type, "agent_start", `first after the re-attach: ${JSON.stringify(next.slice(0, 3))}`);
  assert.ok(next.some((m) => m.type === "message_update"), "the rest of the run follows");
  assert.deepEqual(host.errors, []);
});

test("attached while idle: no agent_start is made up", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  daemon.dropConnections();
  await daemon.waitFor((m) => m.method === "attach", 3000, "the re-attach", 2);
  await sleep(300);
  assert.equal(daemon.lines((m) => m.type === "agent_start").length, 0);
});

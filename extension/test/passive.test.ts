// When the extension must do nothing, or only part: RPC children, two loaded copies, old pis.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PiHost } from "../../Tests/Fakes/pi-extension-host/host.ts";
import { isOlderVersion } from "../pi-relayd/index.ts";
import { EXTENSION, FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

test("passive in pi's RPC mode: no handler, no tool, no connection", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { args: ["--mode", "rpc", "--no-session"] });
  await sleep(500);
  assert.equal(host.handlerCount(), 0);
  assert.equal(daemon.connections.length, 0);
  assert.equal(host.status("pi-relayd"), undefined);
  assert.deepEqual(host.errors, []);
});

test("passive in pi-relayd's own children (PI_RELAYD_CHILD)", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  process.env.PI_RELAYD_CHILD = "1";
  t.after(() => {
    delete process.env.PI_RELAYD_CHILD;
  });
  const host = await startHost(t);
  await sleep(500);
  assert.equal(host.handlerCount(), 0);
  assert.equal(daemon.connections.length, 0);
});

test("loaded twice: one copy relays; after its session_shutdown the next load takes over", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const single = await PiHost.create({ extensions: [EXTENSION] });
  const handlersOfOne = single.handlerCount();
  await single.shutdown();
  assert.ok(handlersOfOne > 0);

  const twice = await PiHost.create({ extensions: [EXTENSION, EXTENSION] });
  t.after(() => twice.shutdown());
  await twice.start();
  assert.equal(twice.handlerCount(), handlersOfOne, "the second copy registered nothing");
  await daemon.waitFor((m) => m.method === "attach");
  await sleep(300);
  assert.equal(daemon.attaches.length, 1);
  await twice.shutdown();

  // As /reload does: session_shutdown, then the file is imported anew.
  const reloaded = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach", 2000, "the reloaded copy's attach", 2);
  assert.equal(reloaded.handlerCount(), handlersOfOne);
});

test("a pi older than 0.58.1: error footer, no attach", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { piVersion: "0.57.9" });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: pi 0.58.1 or newer needed");
  await sleep(600);
  assert.equal(daemon.connections.length, 0);
});

test("print mode (no UI): nothing is attached", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  await startHost(t, { hasUI: false });
  await sleep(500);
  assert.equal(daemon.connections.length, 0);
});

test("versions compare by number", () => {
  assert.equal(isOlderVersion("0.58.0", "0.58.1"), true);
  assert.equal(isOlderVersion("0.58.1", "0.58.1"), false);
  assert.equal(isOlderVersion("0.58.10", "0.58.9"), false);
  assert.equal(isOlderVersion("0.59.0-beta.1", "0.58.1"), false);
  assert.equal(isOlderVersion("1.0", "0.58.1"), false);
  assert.equal(isOlderVersion("v0.57.3", "0.58.1"), true);
  assert.equal(isOlderVersion("banana", "0.58.1"), null);
});

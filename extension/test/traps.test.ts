// The spec's traps that no scenario shows on its own: a callback pi does not protect throws, and
// a daemon that stops reading while pi streams.
import assert from "node:assert/strict";
import { test } from "node:test";
import { later, safely } from "../pi-relayd/index.ts";
import { FakeDaemon, makeHome, startHost, waitUntil } from "./support.ts";

test("a timer or promise callback that throws is logged, never thrown into pi", async (t) => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  t.after(() => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
  });
  const logged: string[] = [];
  const log = (line: string) => logged.push(line);

  later(log, "a throwing timer", 1, () => {
    throw new Error("boom");
  });
  later(log, "a rejecting timer", 1, async () => {
    throw new Error("later boom");
  });
  safely(log, "a rejected promise", () => Promise.reject(new Error("rejected")));
  safely(
    () => {
      throw new Error("the log itself fails");
    },
    "a callback whose log fails too",
    () => {
      throw new Error("inner");
    },
  );
  // Each callback has run once all three are logged; one more turn of the event loop lets
  // anything that escaped them reach the process's handlers.
  await waitUntil(() => logged.length === 3, 5000, "the three failures to be logged");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(uncaught, []);
  assert.deepEqual(logged.sort(), [
    "a rejected promise failed: rejected",
    "a rejecting timer failed: later boom",
    "a throwing timer failed: boom",
  ]);
});

test("a daemon that stops reading never holds pi up, and gets everything once it reads again", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { streamDelayMs: 0 });
  await daemon.waitFor((m) => m.method === "attach");
  daemon.attached.socket.pause();
  // About 3 MB of deltas and as much again in message_end: far more than a socket buffer.
  const word = "x".repeat(10000);
  const started = Date.now();
  host.type(Array.from({ length: 300 }, () => word).join(" "));
  await host.waitFor((s) => s.saw === "run_end", 20000);
  const took = Date.now() - started;
  assert.equal(daemon.lines((m) => m.type === "agent_end").length, 0, "the daemon read nothing meanwhile");
  daemon.attached.socket.resume();
  await daemon.waitFor((m) => m.type === "agent_end", 10000, "the run's end, once read");
  const deltas = daemon.lines((m) => m.type === "message_update" && m.assistantMessageEvent?.type === "text_delta");
  const end = host.seen.find((sight) => sight.saw === "run_end");
  assert.equal(deltas.map((m) => m.assistantMessageEvent.delta).join(""), end?.text, "every delta arrived, in order");
  assert.ok(took < 15000, `the run took ${took} ms with the daemon not reading`);
  assert.deepEqual(host.errors, []);
});

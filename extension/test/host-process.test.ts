// The fake pi host as a process, scripted on stdin as the Swift integration tests drive it
// (Tests/Fakes/pi-extension-host/README.md), with the real extension and a fake daemon.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { FakeDaemon, makeHome, ScriptedHost, waitUntil } from "./support.ts";

test("scripted: type, answer a chat's question in the terminal, /new, quit", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { watchers: ["discord"] });
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-cwd-"));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  const sessionId = randomUUID();
  const host = new ScriptedHost(t, ["--cwd", cwd, "--session-id", sessionId, "--pi-version", "0.58.3"]);

  const started = await host.waitFor((s) => s.saw === "session" && s.reason === "start", "the session");
  assert.equal(started.sessionId, sessionId);
  const attach = await daemon.waitFor((m) => m.method === "attach");
  assert.equal(attach.params.piSessionID, sessionId);
  assert.equal(attach.params.cwd, cwd);
  assert.equal(attach.params.piVersion, "0.58.3");
  assert.equal(attach.params.pid, host.child.pid);
  await host.waitFor((s) => s.saw === "status" && s.key === "pi-relayd" && s.text === "relay: watching on discord", "the footer");

  host.do({ do: "type", text: "hello from the desk" });
  await host.waitFor((s) => s.saw === "user_message" && s.source === "interactive", "the typed prompt");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: hello from the desk", "the answer");
  await daemon.waitFor((m) => m.type === "terminal_input" && m.text === "hello from the desk");

  daemon.send({ type: "prompt", id: "p", message: "ask: Deploy? | yes | no", streamingBehavior: "followUp" });
  const dialog = await host.waitFor((s) => s.saw === "dialog", "the question");
  assert.deepEqual(dialog, { saw: "dialog", method: "select", title: "Deploy?", options: ["yes", "no"] });
  host.do({ do: "answer", value: "no" });
  await host.waitFor((s) => s.saw === "dialog_closed" && s.by === "answer", "the dialog closing");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Answer: no (answered by terminal)", "the answer");
  await daemon.waitFor((m) => m.type === "extension_ui_closed" && m.by === "terminal");

  host.do({ do: "new" });
  const fresh = await host.waitFor((s) => s.saw === "session" && s.reason === "new", "the new session");
  const second = await daemon.waitFor((m) => m.method === "attach", 3000, "the new attach", 2);
  assert.equal(second.params.piSessionID, fresh.sessionId);
  assert.equal(second.params.previousPiSessionID, sessionId);

  host.do({ do: "quit" });
  assert.equal(await host.exited(), 0);
  await host.waitFor((s) => s.saw === "shutdown", "the shutdown");
  await waitUntil(() => daemon.connections.every((c) => c.ended), 2000, "the connection to end");
  assert.deepEqual(host.stdoutLines.filter((line) => !line.startsWith('{"saw":')), [], "stdout holds sights only");
  assert.equal(host.stderr, "");
  assert.equal(host.seen.filter((s) => s.saw === "extension_error").length, 0);
});

test("scripted: a crash says no goodbye; an old pi shows the error footer", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = new ScriptedHost(t, []);
  await daemon.waitFor((m) => m.method === "attach");
  host.do({ do: "crash" });
  assert.notEqual(await host.exited(), 0);
  assert.equal(host.seen.some((s) => s.saw === "shutdown"), false);
  await waitUntil(() => daemon.connections.every((c) => c.ended), 2000, "the daemon to see EOF");

  const old = new ScriptedHost(t, ["--pi-version", "0.50.0"]);
  await old.waitFor((s) => s.saw === "status" && s.text === "relay: pi 0.58.1 or newer needed", "the error footer");
  old.child.stdin!.end(); // end of input: as quit
  assert.equal(await old.exited(), 0);
  assert.equal(daemon.attaches.length, 1);
});

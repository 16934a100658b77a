// Questions from other extensions: pidash users have pi-config's ask_user, which asks in the
// terminal with its own dialog. The extension cannot answer it (spec §4.1), but it sees the
// call: the chats are shown the question (terminalOnly, "answer it in the terminal") and the
// card closes when the terminal answers.
import assert from "node:assert/strict";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { EXTENSION, FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

const ASK_USER = path.resolve(import.meta.dirname, "..", "..", "Tests", "Fakes", "pi-extension-host", "extensions", "ask-user.ts");

async function attachedHost(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { watchers: ["discord"] });
  const host = await startHost(t, { extensions: [EXTENSION, ASK_USER] });
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord");
  return { daemon, host };
}

const isRequest = (m: any) => m.type === "extension_ui_request";

test("another extension's ask_user: the chats see the question, and its card closes when the terminal answers", async (t) => {
  const { daemon, host } = await attachedHost(t);
  assert.equal(host.tool("ask_user")!.description, "Ask the user a question (pi-config's ask_user, as the fake host has it).");
  host.type("ask: Which database? | Postgres | SQLite");
  const request = await daemon.waitFor(isRequest);
  assert.deepEqual(
    { ...request, id: undefined },
    { type: "extension_ui_request", id: undefined, method: "select", title: "Which database?", options: ["Postgres", "SQLite"], terminalOnly: true },
  );
  const dialog = await host.waitFor((s) => s.saw === "dialog");
  assert.deepEqual(dialog.options, ["Postgres", "SQLite"]);
  await sleep(100);
  assert.equal(daemon.lines((m) => m.type === "extension_ui_closed").length, 0, "open while the terminal has not answered");

  host.answer("SQLite");
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed");
  assert.deepEqual(closed, { type: "extension_ui_closed", id: request.id, by: "terminal" });
  await host.waitFor((s) => s.saw === "run_end");
  assert.deepEqual(host.errors, []);
});

test("a chat's answer to such a question is not sent to pi: only the terminal answers it", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Your name?");
  const request = await daemon.waitFor(isRequest);
  assert.equal(request.method, "input");
  assert.equal(request.terminalOnly, true);
  daemon.send({ type: "extension_ui_response", id: request.id, value: "from the chat" });
  await sleep(150);
  assert.ok(host.seen.some((s) => s.saw === "dialog" && s.title === "Your name?"), "the terminal's dialog is still open");
  assert.equal(host.seen.filter((s) => s.saw === "dialog_closed").length, 0);
  host.answer("Ada");
  await daemon.waitFor((m) => m.type === "extension_ui_closed" && m.id === request.id && m.by === "terminal");
});

test("the run is stopped while such a question waits: its card closes as aborted", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Deploy now? | yes | no");
  const request = await daemon.waitFor(isRequest);
  daemon.send({ type: "abort", id: "stop" });
  await daemon.response("stop", 8000);
  host.escape(); // pi's abort does not close another extension's dialog; Escape does
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed" && m.id === request.id);
  assert.ok(["abort", "terminal"].includes(closed.by));
  assert.equal(daemon.lines((m) => m.type === "extension_ui_closed" && m.id === request.id).length, 1, "closed once");
});

test("a run pi ends without agent_end while such a question waits (a compaction): its card closes as aborted", async (t) => {
  // compact() aborts the run after unsubscribing (spec §11 trap 1): the call's
  // tool_execution_end and the run's agent_end reach no extension. The chats' card must not stay
  // answerable for a question that is gone.
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Deploy now? | yes | no");
  const request = await daemon.waitFor(isRequest);
  await host.waitFor((s) => s.saw === "dialog");
  daemon.send({ type: "compact", id: "squeeze" });
  const response = await daemon.response("squeeze", 8000);
  assert.equal(response.success, true, JSON.stringify(response));
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed" && m.id === request.id, 3000, "the card's close");
  assert.equal(closed.by, "abort");
  assert.equal(daemon.lines((m) => m.type === "extension_ui_closed" && m.id === request.id).length, 1, "closed once");
});

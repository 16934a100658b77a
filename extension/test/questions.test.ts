// The ask_user tool: asked in the terminal and in the chats at once, the first answer wins.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";
import { CHATS_GONE_MS } from "../pi-relayd/questions.ts";

async function attachedHost(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

const isRequest = (m: any) => m.type === "extension_ui_request";

test("ask_user is registered with a plain JSON schema", async (t) => {
  makeHome(t);
  const host = await startHost(t);
  const tool = host.tool("ask_user");
  assert.ok(tool, "ask_user registered");
  assert.equal(tool.parameters.type, "object");
  assert.deepEqual(tool.parameters.required, ["question"]);
  assert.deepEqual(Object.keys(tool.parameters.properties).sort(), ["multiline", "options", "question"]);
});

test("ask_user is not registered when a tool of that name exists", async (t) => {
  makeHome(t);
  const theirs = { name: "ask_user", description: "someone else's", parameters: { type: "object" }, execute: async () => ({ content: [] }) };
  const host = await startHost(t, { extraTools: [theirs] });
  assert.equal(host.tool("ask_user"), theirs);
  assert.deepEqual(host.errors, []);
});

test("answered in a chat: the terminal dialog is dismissed and the chat's answer is used", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Which database? | Postgres | SQLite");
  const request = await daemon.waitFor(isRequest);
  assert.equal(request.method, "select");
  assert.equal(request.title, "Which database?");
  assert.deepEqual(request.options, ["Postgres", "SQLite"]);
  const dialog = await host.waitFor((s) => s.saw === "dialog");
  assert.deepEqual(dialog.options, ["Postgres", "SQLite"]);

  daemon.send({ type: "extension_ui_response", id: request.id, value: "SQLite" });
  const closed = await host.waitFor((s) => s.saw === "dialog_closed");
  assert.equal(closed.by, "abort");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Answer: SQLite (answered by chat)");
  const toolEnd = await daemon.waitFor((m) => m.type === "tool_execution_end");
  assert.deepEqual(toolEnd.result.details, { answeredBy: "chat" });
  assert.equal(daemon.lines((m) => m.type === "extension_ui_closed").length, 0);
  assert.deepEqual(host.errors, []);
});

test("answered in the terminal: the chats' copy is closed", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Your name?");
  const request = await daemon.waitFor(isRequest);
  assert.equal(request.method, "input");
  await host.waitFor((s) => s.saw === "dialog" && s.method === "input");
  host.answer("Ada");
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed");
  assert.deepEqual(closed, { type: "extension_ui_closed", id: request.id, by: "terminal" });
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Answer: Ada (answered by terminal)");
  // A late chat answer changes nothing.
  daemon.send({ type: "extension_ui_response", id: request.id, value: "Bob" });
  await sleep(100);
  assert.deepEqual(host.errors, []);
});

test("dismissed in the terminal: the tool fails clearly and the chats' copy is closed", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Proceed? | yes | no");
  const request = await daemon.waitFor(isRequest);
  await host.waitFor((s) => s.saw === "dialog");
  host.escape();
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed");
  assert.equal(closed.id, request.id);
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.match(end.text, /The question failed: Nobody answered: the question was dismissed in the terminal/);
});

test("cancelled in a chat: the terminal dialog is dismissed and the tool fails clearly", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Proceed? | yes | no");
  const request = await daemon.waitFor(isRequest);
  await host.waitFor((s) => s.saw === "dialog");
  daemon.send({ type: "extension_ui_response", id: request.id, cancelled: true });
  await host.waitFor((s) => s.saw === "dialog_closed" && s.by === "abort");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.match(end.text, /cancelled in the chat/);
});

/** The daemon says a chat watches the session, as it does when a chat binds it. */
async function watched(daemon: FakeDaemon, host: Awaited<ReturnType<typeof startHost>>) {
  daemon.send({ type: "relay_status", watchers: ["discord"] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord");
}

test("a multi-line question is asked in the chats only, with a notice in the terminal", async (t) => {
  const { daemon, host } = await attachedHost(t);
  await watched(daemon, host);
  host.type("ask multiline: Describe the bug");
  const request = await daemon.waitFor(isRequest);
  assert.equal(request.method, "editor");
  const notice = await host.waitFor((s) => s.saw === "notify");
  assert.match(notice.message, /Describe the bug/);
  assert.equal(host.seen.some((s) => s.saw === "dialog"), false, "no editor in the terminal");
  daemon.send({ type: "extension_ui_response", id: request.id, value: "line one\nline two" });
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Answer: line one\nline two (answered by chat)");
});

test("a multi-line question with no chat watching opens the terminal's editor", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask multiline: What broke?");
  const editor = await host.waitFor((s) => s.saw === "dialog" && s.method === "editor");
  assert.equal(editor.title, "What broke?");
  assert.equal(daemon.lines(isRequest).length, 0, "not asked in chats nobody reads");
  host.answer("the build");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Answer: the build (answered by terminal)");

  // Once a chat watches, the next one goes there.
  await watched(daemon, host);
  host.type("ask multiline: And now?");
  const request = await daemon.waitFor(isRequest);
  assert.equal(request.method, "editor");
  daemon.send({ type: "extension_ui_response", id: request.id, value: "fixed" });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Answer: fixed (answered by chat)");
});

test("a multi-line question waiting in the chats opens the terminal's editor once no chat watches", async (t) => {
  const { daemon, host } = await attachedHost(t);
  await watched(daemon, host);
  host.type("ask multiline: What broke?");
  const request = await daemon.waitFor(isRequest);
  daemon.send({ type: "relay_status", watchers: [] }); // the chat let the session go
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  await sleep(CHATS_GONE_MS - 2000);
  assert.equal(host.seen.some((s) => s.saw === "dialog"), false, "not while a chat may come back");
  const editor = await host.waitFor((s) => s.saw === "dialog" && s.method === "editor", 4000, "the terminal's editor");
  assert.equal(editor.title, "What broke?");
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed");
  assert.deepEqual(closed, { type: "extension_ui_closed", id: request.id, by: "moved" }, "the chats' copy closes as it opens");
  // A chat back now is not asked again: its answer could not close pi's editor.
  daemon.dropConnections();
  await daemon.waitFor((m) => m.method === "attach", 5000, "the re-attach", 2);
  await sleep(300);
  assert.equal(daemon.lines(isRequest).length, 1, "asked once");
  host.answer("the build");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Answer: the build (answered by terminal)");
});

test("the run is aborted while the question waits: both copies close", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("ask: Proceed? | yes | no");
  const request = await daemon.waitFor(isRequest);
  await host.waitFor((s) => s.saw === "dialog");
  daemon.send({ type: "abort", id: "stop" });
  await daemon.response("stop");
  const closed = await daemon.waitFor((m) => m.type === "extension_ui_closed");
  assert.deepEqual(closed, { type: "extension_ui_closed", id: request.id, by: "abort" });
  await host.waitFor((s) => s.saw === "dialog_closed" && s.by === "abort");
  assert.deepEqual(host.errors, []);
});

test("not attached: the terminal alone asks", async (t) => {
  makeHome(t);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  host.type("ask: Which? | A | B");
  await host.waitFor((s) => s.saw === "dialog");
  host.answer("A");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, "Answer: A (answered by terminal)");

  host.type("ask multiline: Tell me more");
  const editor = await host.waitFor((s) => s.saw === "dialog" && s.method === "editor");
  assert.equal(editor.title, "Tell me more");
  host.answer("more");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Answer: more (answered by terminal)");
});

test("questions asked at once are shown one after another", async (t) => {
  const { daemon, host } = await attachedHost(t);
  const tool = host.tool("ask_user")!;
  const ctx = host.toolContext();
  const first = tool.execute("c1", { question: "First?", options: ["a", "b"] }, undefined, undefined, ctx);
  const second = tool.execute("c2", { question: "Second?", options: ["c", "d"] }, undefined, undefined, ctx);
  const firstRequest = await daemon.waitFor(isRequest);
  assert.equal(firstRequest.title, "First?");
  await host.waitFor((s) => s.saw === "dialog" && s.title === "First?");
  await sleep(100);
  assert.equal(daemon.lines(isRequest).length, 1, "the second waits for the first");
  host.answer("b");
  assert.equal((await first).content[0].text, "b");
  const secondRequest = await daemon.waitFor(isRequest, 2000, "the second question", 2);
  daemon.send({ type: "extension_ui_response", id: secondRequest.id, value: "c" });
  const answer = await second;
  assert.equal(answer.content[0].text, "c");
  assert.deepEqual(answer.details, { answeredBy: "chat" });
  assert.equal(host.seen.some((s) => s.saw === "dialog_orphaned"), false);
});

test("a question open while the daemon restarts is asked again after the re-attach", async (t) => {
  const { daemon, host } = await attachedHost(t);
  await watched(daemon, host);
  host.type("ask multiline: What changed?");
  const request = await daemon.waitFor(isRequest);
  daemon.dropConnections();
  const again = await daemon.waitFor(isRequest, 3000, "the question again", 2);
  assert.equal(again.id, request.id);
  daemon.send({ type: "extension_ui_response", id: again.id, value: "nothing" });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Answer: nothing (answered by chat)");
});


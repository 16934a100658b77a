// The daemon's commands, carried out in pi and answered with response lines.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

async function attachedHost(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

test("prompt: sent with sendUserMessage and deliverAs, answered, never echoed back", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "prompt", id: "p1", message: "from the chat", streamingBehavior: "steer" });
  const response = await daemon.response("p1");
  assert.deepEqual(response, { type: "response", id: "p1", command: "prompt", success: true });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: from the chat");
  assert.deepEqual(host.sentUserMessages[0].content, "from the chat");
  assert.deepEqual(host.sentUserMessages[0].options, { deliverAs: "steer" });
  const user = await host.waitFor((s) => s.saw === "user_message");
  assert.equal(user.source, "extension");
  await sleep(100);
  assert.equal(daemon.lines((m) => m.type === "terminal_input").length, 0);
  assert.deepEqual(host.errors, []);
});

test("two quick prompts while idle are serialised: the second waits in the extension until the first run is over", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "prompt", id: "a", message: "first", streamingBehavior: "followUp" });
  daemon.send({ type: "prompt", id: "b", message: "second", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("a")).success, true);
  assert.equal((await daemon.response("b")).success, true);
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: second", 5000);
  assert.deepEqual(host.errors, [], "no 'Agent is already processing a prompt'");
  assert.equal(host.sentUserMessages.length, 2);
  assert.equal(host.sentUserMessages[0].streaming, false);
  // Kept here, not in pi's queue, so that a session switch finds it here (spec §11 trap 2).
  assert.equal(host.sentUserMessages[1].streaming, false, "the second went once the first run was over");
  assert.deepEqual(host.sentUserMessages[1].options, { deliverAs: "followUp" });
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(users, ["first", "second"]);
  assert.equal(daemon.lines((m) => m.type === "terminal_input").length, 0);
});

test("prompt while pi streams: refused without streamingBehavior, as pi's RPC mode does", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("slow: a long answer that takes its time to stream out");
  await daemon.waitFor((m) => m.type === "agent_start");
  daemon.send({ type: "prompt", id: "busy", message: "now" });
  const refused = await daemon.response("busy");
  assert.equal(refused.success, false);
  assert.match(refused.error, /streamingBehavior/);
  daemon.send({ type: "steer", id: "s", message: "steer it" });
  daemon.send({ type: "follow_up", id: "f", message: "and then this" });
  assert.equal((await daemon.response("s")).success, true);
  assert.equal((await daemon.response("f")).success, true);
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: and then this", 10000);
  const options = host.sentUserMessages.map((m) => m.options?.deliverAs);
  assert.deepEqual(options, ["steer", "followUp"]);
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(users.slice(1), ["steer it", "and then this"]);
  assert.deepEqual(host.errors, []);
});

test("images go to pi as image blocks after the text", async (t) => {
  const { daemon, host } = await attachedHost(t);
  const image = { type: "image", data: "aGVsbG8=", mimeType: "image/png" };
  daemon.send({ type: "prompt", id: "img", message: "look", images: [image] });
  await daemon.response("img");
  await host.waitFor((s) => s.saw === "run_end");
  assert.deepEqual(host.sentUserMessages[0].content, [{ type: "text", text: "look" }, image]);
});

test("abort stops the run and answers once pi is idle", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("slow: words and words and words and words and words and words");
  await daemon.waitFor((m) => m.type === "message_update");
  daemon.send({ type: "abort", id: "stop" });
  const response = await daemon.response("stop");
  assert.equal(response.success, true);
  assert.equal(host.isStreaming, false);
  const end = await daemon.waitFor((m) => m.type === "message_end" && m.message.role === "assistant");
  assert.equal(end.message.stopReason, "aborted");
});

test("get_state answers in pi's shape", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "get_state", id: "st" });
  const { data, success } = await daemon.response("st");
  assert.equal(success, true);
  assert.equal(data.model.provider, "anthropic");
  assert.equal(data.model.id, "claude-sonnet-4-5");
  assert.equal(data.thinkingLevel, "medium");
  assert.equal(data.isStreaming, false);
  assert.equal(data.isCompacting, false);
  assert.equal(data.sessionFile, host.sessionFile);
  assert.equal(data.sessionId, host.sessionId);
  assert.equal(data.messageCount, 0);
  assert.equal(data.pendingMessageCount, 0);
});

test("set_model, set_thinking_level and set_session_name change pi and say so", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "set_model", id: "m1", provider: "openai", modelId: "gpt-5" });
  const switched = await daemon.response("m1");
  assert.equal(switched.success, true);
  assert.equal(switched.data.id, "gpt-5");
  assert.equal(host.model?.id, "gpt-5");
  const info = await daemon.waitFor((m) => m.type === "session_info");
  assert.equal(info.model, "openai/gpt-5");

  daemon.send({ type: "set_model", id: "m2", provider: "openai", modelId: "nope" });
  assert.match((await daemon.response("m2")).error, /Model not found: openai\/nope/);
  daemon.send({ type: "set_model", id: "m3", provider: "nokey", modelId: "model-without-key" });
  assert.match((await daemon.response("m3")).error, /No API key/);

  daemon.send({ type: "set_thinking_level", id: "t1", level: "high" });
  assert.equal((await daemon.response("t1")).success, true);
  assert.equal(host.thinkingLevel, "high");
  daemon.send({ type: "set_thinking_level", id: "t2", level: "extreme" });
  assert.match((await daemon.response("t2")).error, /Invalid thinking level/);

  daemon.send({ type: "set_session_name", id: "n1", name: "  refactor  " });
  assert.equal((await daemon.response("n1")).success, true);
  assert.equal(host.sessionName, "refactor");
  daemon.send({ type: "set_session_name", id: "n2", name: " " });
  assert.equal((await daemon.response("n2")).success, false);
  const named = await daemon.waitFor((m) => m.type === "session_info" && m.name === "refactor");
  assert.equal(named.thinkingLevel, "high");
});

test("get_last_assistant_text, get_session_stats and compact after a run", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "get_last_assistant_text", id: "l0" });
  assert.deepEqual((await daemon.response("l0")).data, {});
  daemon.send({ type: "compact", id: "c0" });
  assert.match((await daemon.response("c0")).error, /Nothing to compact/);

  host.type("count me");
  await host.waitFor((s) => s.saw === "run_end");
  await host.idle();
  daemon.send({ type: "get_last_assistant_text", id: "l1" });
  assert.deepEqual((await daemon.response("l1")).data, { text: "Echo: count me" });
  daemon.send({ type: "get_session_stats", id: "s1" });
  const stats = (await daemon.response("s1")).data;
  assert.equal(stats.userMessages, 1);
  assert.equal(stats.assistantMessages, 1);
  assert.equal(stats.totalMessages, 2);
  assert.equal(stats.tokens.total, 30);
  assert.equal(stats.sessionId, host.sessionId);

  daemon.send({ type: "compact", id: "c1", customInstructions: "keep it short" });
  const compacted = await daemon.response("c1");
  assert.equal(compacted.success, true);
  assert.equal(compacted.data.tokensBefore, 1234);
});

test("commands a terminal pi cannot do get a clear error", async (t) => {
  const { daemon } = await attachedHost(t);
  daemon.send({ type: "new_session", id: "n" });
  const refused = await daemon.response("n");
  assert.equal(refused.success, false);
  assert.match(refused.error, /type \/new in pi's terminal/);
  daemon.send({ type: "bash", id: "b", command: "ls" });
  const unknown = await daemon.response("b");
  assert.equal(unknown.command, "bash");
  assert.equal(unknown.success, false);
  assert.match(unknown.error, /Unknown command: bash/);
});

// Nothing a user sends is lost at a session switch (spec §11 traps 2 and 3): chat prompts wait
// here, not in pi; `/new` drops what pi had queued and the chat is told which; `/resume` carries
// it into the resumed conversation; what is still here is held and the chat is asked; and the
// events of a run that goes on across `/fork` reach the daemon after the new attach.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeDaemon, makeHome, sleep, startHost, waitUntil } from "./support.ts";

async function busyWithQueuedPrompts(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("slow: " + Array(60).fill("word").join(" "));
  await daemon.waitFor((m) => m.type === "agent_start");
  // A steer goes into the running pi at once; a follow-up waits here until pi is idle.
  daemon.send({ type: "steer", id: "s", message: "steer for the old conversation" });
  daemon.send({ type: "prompt", id: "f", message: "follow-up for the old conversation", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("s")).success, true);
  assert.equal((await daemon.response("f")).success, true);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached"); // still the first attach
  await sleep(100);
  const steered = host.sentUserMessages.filter((m) => m.content === "steer for the old conversation");
  assert.equal(steered.length, 1, "the steer went into pi");
  assert.equal(host.sentUserMessages.some((m) => m.content === "follow-up for the old conversation"), false, "the follow-up waits here");
  return { daemon, host };
}

/** The question about the held prompts, asked on the connection of the new attach. */
async function heldQuestion(daemon: FakeDaemon) {
  await daemon.waitFor(() => daemon.attaches.length >= 2, 5000, "the new attach");
  const question = await daemon.waitFor((m) => m.type === "extension_ui_request" && m.options?.includes("Send"), 5000, "the question");
  assert.equal(question.method, "select");
  assert.deepEqual(question.options, ["Send", "Drop"]);
  assert.equal(question.title, "1 chat prompt was waiting when the terminal switched to another conversation: send it to it?");
  assert.match(question.message, /follow-up for the old conversation/);
  const where = daemon.received.find((r) => r.message === question)!;
  assert.equal(where.connection, daemon.attached, "asked in the new session");
  return question;
}

test("/new: the chat hears which prompts pi dropped, is asked about the held ones, and Send runs them in the new conversation", async (t) => {
  const { daemon, host } = await busyWithQueuedPrompts(t);
  await host.newSession();
  const dropped = await daemon.waitFor((m) => m.type === "prompts_dropped", 5000, "prompts_dropped");
  assert.deepEqual(dropped, { type: "prompts_dropped", reason: "new", texts: ["steer for the old conversation"] });
  const question = await heldQuestion(daemon);
  daemon.send({ type: "extension_ui_response", id: question.id, value: "Send" });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: follow-up for the old conversation", 5000);
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.equal(users.includes("steer for the old conversation"), false, "pi dropped the steer at /new, as we said");
});

test("/resume: the prompts pi had are reported delivered there; Drop drops the held ones and says so", async (t) => {
  const { daemon, host } = await busyWithQueuedPrompts(t);
  await host.resume("0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0");
  const delivered = await daemon.waitFor((m) => m.type === "prompts_delivered", 5000, "prompts_delivered");
  assert.deepEqual(delivered, { type: "prompts_delivered", reason: "resume", texts: ["steer for the old conversation"] });
  const question = await heldQuestion(daemon);
  daemon.send({ type: "extension_ui_response", id: question.id, value: "Drop" });
  const dropped = await daemon.waitFor((m) => m.type === "prompts_dropped", 5000, "prompts_dropped");
  assert.deepEqual(dropped, { type: "prompts_dropped", reason: "answered", texts: ["follow-up for the old conversation"] });
  await sleep(600);
  assert.equal(host.sentUserMessages.some((m) => m.content === "follow-up for the old conversation"), false);
});

test("/fork during a run: the run's events between the switch and the new attach reach the daemon", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  const words = Array(40).fill("word").map((w, i) => `${w}${i}`);
  host.type("slow: " + words.join(" "));
  await daemon.waitFor((m) => m.type === "message_update", 5000, "the answer streaming");
  daemon.options.attachDelayMs = 600; // several words stream between the switch and the new attach
  await host.fork();
  const end = await host.waitFor((s) => s.saw === "run_end", 15000);
  assert.equal(end.text, "Echo: slow: " + words.join(" "), "pi's run went on across /fork (trap 3)");
  await daemon.waitFor((m) => m.type === "agent_end", 5000, "agent_end");
  assert.equal(daemon.attaches.length, 2, "the fork was attached");
  const deltas = daemon.received
    .filter((r) => r.message.type === "message_update" && typeof r.message.assistantMessageEvent?.delta === "string")
    .map((r) => r.message.assistantMessageEvent.delta)
    .join("");
  assert.equal(deltas, end.text, "every delta reached the daemon, none dropped at the switch");
  const afterFork = daemon.received.filter((r) => r.connection === daemon.attached).map((r) => r.message.type);
  assert.ok(afterFork.includes("agent_end"), "the run ends in the fork's session");
});

test("/fork during a run that ends before the new attach: the new session hears agent_start, then the run's tail", async (t) => {
  // The run started in the old session (its agent_start went there) and goes on across /fork
  // (spec §11 trap 3). Ended before the fork is attached, pi is idle at the attach, and the kept
  // lines hold only the run's tail: without a start first, the daemon takes the session for
  // idle and drops the answer.
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("slow: one two three");
  await daemon.waitFor((m) => m.type === "message_update", 5000, "the answer streaming");
  daemon.options.attachDelayMs = 1500; // the rest of the run (about 400 ms) ends before the answer
  await host.fork();
  const end = await host.waitFor((s) => s.saw === "run_end", 5000);
  assert.equal(end.text, "Echo: slow: one two three");
  await daemon.waitFor(() => daemon.attaches.length >= 2, 5000, "the fork's attach");
  const fork = daemon.connections.at(-1)!;
  await waitUntil(() => daemon.received.some((r) => r.connection === fork && r.message.type === "agent_end"), 5000, "agent_end in the fork's session");
  assert.equal(host.isStreaming, false, "pi was idle when the fork was attached");
  const types = daemon.received.filter((r) => r.connection === fork).map((r) => r.message.type ?? r.message.method);
  const tail = types.findIndex((type) => ["message_update", "message_end", "turn_end", "agent_end"].includes(type));
  assert.ok(tail > 0, `the run's tail was kept for the fork (${types.join(", ")})`);
  assert.ok(types.slice(0, tail).includes("agent_start"), `agent_start before the run's tail (${types.join(", ")})`);
  assert.equal(types.filter((type) => type === "agent_start").length, 1, "one start");
  const answer = daemon.received.find((r) => r.connection === fork && r.message.type === "message_end" && r.message.message?.role === "assistant");
  assert.equal(answer?.message.message.content[0].text, end.text, "the final answer reaches the fork's session");
});

test("/new while a chat prompt is still starting in pi: it is reported as running in the new conversation", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { preRunDelayMs: 400 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "prompt", id: "p", message: "starting when /new came", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await sleep(50); // in pi's pre-run phase: no run to abort (spec §11 trap 10)
  await host.newSession();
  const delivered = await daemon.waitFor((m) => m.type === "prompts_delivered", 5000, "prompts_delivered");
  assert.deepEqual(delivered, { type: "prompts_delivered", reason: "new", texts: ["starting when /new came"] });
  const switched = host.seen.findIndex((s) => s.saw === "session" && s.reason === "new");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: starting when /new came", 5000);
  assert.ok(host.seen.findIndex((s) => s.saw === "user_message" && s.text === "starting when /new came") > switched, "it ran in the new conversation");
  assert.equal(daemon.lines((m) => m.type === "prompts_dropped").length, 0);
});

test("/reload while the chats are asked about held prompts: they hear the prompts will not run", async (t) => {
  // A reloaded instance starts empty (spec §11 trap 16): the held prompts and the question about
  // them are gone, so the chats are told before the old instance's link closes.
  const { daemon, host } = await busyWithQueuedPrompts(t);
  await host.newSession();
  await heldQuestion(daemon);
  assert.equal(await host.reload(), true);
  const dropped = await daemon.waitFor((m) => m.type === "prompts_dropped" && m.reason === "shutdown", 5000, "prompts_dropped at the reload");
  assert.deepEqual(dropped.texts, ["follow-up for the old conversation"]);
  assert.deepEqual(host.errors, []);
});

test("a stop during a chat prompt's pre-run, then /new: the prompt is still aborted when it starts", async (t) => {
  // The prompt is in pi's pre-run phase, so ctx.abort() cannot reach it (spec §11 trap 10) and the
  // stop waits for its agent_start. /new does not abort it either: it starts in the new
  // conversation (trap 2), where the stop must still end it.
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { preRunDelayMs: 600 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "prompt", id: "p", message: "run: ls", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await sleep(100);
  daemon.send({ type: "abort", id: "stop" });
  assert.equal((await daemon.response("stop", 5000)).data?.abortAtStart, true, "the stop is for the prompt still starting");
  await host.newSession();
  await host.waitFor((s) => s.saw === "run_end", 5000, "the prompt's run to end");
  await sleep(200);
  assert.equal(daemon.lines((m) => m.type === "tool_execution_start").length, 0, "no tool call ran");
});

// Prompts wait while pi compacts (spec §11 traps 5 and 7): pi is idle then, and a prompt sent
// during a manual compaction runs while pi listens to nobody: no events, nothing saved, and the
// compaction then replaces the context. Chat prompts are held here until the compaction is over.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test, type TestContext } from "node:test";
import { PromptSender } from "../pi-relayd/prompts.ts";
import { FakeDaemon, makeHome, sleep, startHost, waitUntil } from "./support.ts";

async function attachedWithHistory(t: TestContext, compactionMs: number) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { compactionMs });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "prompt", id: "first", message: "something to compact", streamingBehavior: "followUp" });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: something to compact");
  return { daemon, host };
}

test("a chat prompt sent during a terminal /compact waits, then runs visibly after it and is saved", async (t) => {
  const { daemon, host } = await attachedWithHistory(t, 600);
  const compaction = host.compactFromTerminal();
  await host.waitFor((s) => s.saw === "compacting");
  daemon.send({ type: "prompt", id: "p", message: "the next step", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await compaction;
  const ran = await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: the next step", 5000);
  const seen = host.seen;
  const compacted = seen.findIndex((s) => s.saw === "compacted");
  const user = seen.findIndex((s) => s.saw === "user_message" && s.text === "the next step");
  assert.ok(user > compacted && compacted >= 0, "pi took it after the compaction, visibly");
  assert.ok(seen.indexOf(ran) > user);
  const users = daemon.lines((m) => m.type === "message_start" && m.message?.role === "user");
  assert.equal(users.length, 2, "the daemon saw the prompt's run");
  await sleep(50);
  assert.match(fs.readFileSync(host.sessionFile, "utf8"), /the next step/, "saved in the session");
});

test("the daemon's own compact holds chat prompts until it is done", async (t) => {
  const { daemon, host } = await attachedWithHistory(t, 400);
  daemon.send({ type: "compact", id: "c" });
  await host.waitFor((s) => s.saw === "compacting");
  daemon.send({ type: "prompt", id: "p", message: "after the compaction", streamingBehavior: "followUp" });
  const compacted = await daemon.response("c");
  assert.equal(compacted.success, true);
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: after the compaction", 5000);
  const at = (match: (m: any) => boolean) => daemon.received.findIndex((r) => match(r.message));
  assert.ok(
    at((m) => m.type === "message_start" && m.message?.content?.[0]?.text === "after the compaction") > at((m) => m.type === "response" && m.id === "c"),
    "the prompt ran after the compaction",
  );
});

// Trap 7 and §5.3: the TUI holds what the person types during a compaction and sends it, the
// first through prompt(), once compact() has returned, just after session_compact. A chat
// prompt let go at session_compact would be in its pre-run then, and the second to start fails
// (trap 6): the terminal's text was lost. The chat's waits for it instead, as behind any
// terminal prompt.
/** A chat prompt held by a /compact and `typed` typed at the terminal during it: what pi ran. */
async function typedDuringCompaction(t: TestContext, typed: string[]) {
  const { daemon, host } = await attachedWithHistory(t, 400);
  const compaction = host.compactFromTerminal();
  await host.waitFor((s) => s.saw === "compacting");
  daemon.send({ type: "prompt", id: "p", message: "from the chat", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  for (const text of typed) host.type(text); // the second and later steered into the first's run (§5.3)
  await host.waitFor((s) => s.saw === "held");
  await compaction;
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: from the chat", 8000, "the chat prompt's answer");
  const users = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(users.slice(-typed.length - 1), [...typed, "from the chat"], "the terminal's text first, then the chat's");
  assert.deepEqual(host.seen.filter((s) => s.saw === "error"), [], "no prompt failed");
  assert.deepEqual(host.errors, []);
  assert.equal(daemon.lines((m) => m.type === "response" && m.id === "p" && m.success === false).length, 0, "the chat is not told it did not start");
  return daemon;
}

test("text typed during a /compact goes first after it; the chat prompt held by the compaction runs after it, neither lost", async (t) => {
  await typedDuringCompaction(t, ["typed"]);
});

test("two texts typed during a /compact and a chat prompt held by it: all three run, the typed ones first", async (t) => {
  const daemon = await typedDuringCompaction(t, ["typed", "typed too"]);
  // The daemon heard both typed texts as the terminal's, the chat's once.
  const relayed = daemon.lines((m) => m.type === "message_start" && m.message?.role === "user").map((m) => m.message.content?.[0]?.text ?? m.message.content);
  assert.deepEqual(relayed.slice(-3), ["typed", "typed too", "from the chat"]);
});

test("a hold ends at its time limit, so nothing waits forever; release ends it at once", async () => {
  const sent: string[] = [];
  const pi = { sendUserMessage: (content: string) => sent.push(content) } as any;
  const sender = new PromptSender(pi, () => true, () => {});
  sender.hold("retry", 300);
  sender.enqueue({ content: "one", text: "one", deliverAs: "followUp" });
  await sleep(150);
  assert.deepEqual(sent, [], "held");
  assert.equal(sender.isBusy, true);
  await sleep(400);
  assert.deepEqual(sent, ["one"], "the limit let it go");
  // Its run starts, with its user message (the run's, not another's: trap 6).
  sender.onAgentStart();
  sender.onUserMessage("one");
  sender.hold("retry", 60_000);
  sender.enqueue({ content: "two", text: "two", deliverAs: "followUp" });
  await sleep(50);
  assert.deepEqual(sent, ["one"]);
  sender.release("retry");
  assert.deepEqual(sent, ["one", "two"], "released");
  sender.clear();
});

// Trap 1: a /compact mid-run aborts the run. A chat steer pi had taken stays in its queue when
// the abort came while the answer streamed (it runs with the next prompt), and is taken into the
// aborted run, unsaved, when it came during a tool call (the compaction then replaces the
// context). Either way the chat that was answered "steered" hears what became of it.
async function steeredThenCompacted(t: TestContext, run: string, until: (daemon: FakeDaemon) => Promise<unknown>) {
  const { daemon, host } = await attachedWithHistory(t, 300);
  host.type(run);
  await until(daemon);
  daemon.send({ type: "steer", id: "s", message: "also run the linter" });
  assert.equal((await daemon.response("s")).success, true);
  await host.waitFor(() => host.sentUserMessages.some((m: any) => m.options?.deliverAs === "steer"));
  await host.compactFromTerminal();
  return { daemon, host };
}

test("a steer a /compact took into the run it aborted (in a tool call) is said lost", async (t) => {
  const { daemon } = await steeredThenCompacted(t, "work: 8 x 400", (d) => d.waitFor((m) => m.type === "tool_execution_start"));
  const dropped = await daemon.waitFor((m) => m.type === "prompts_dropped", 3000);
  assert.deepEqual([dropped.reason, dropped.texts], ["compaction", ["also run the linter"]]);
  assert.equal(daemon.lines((m) => m.type === "prompts_delivered").length, 0);
});

test("a steer still in pi's queue after a /compact aborted the streaming run is said to run next", async (t) => {
  const { daemon, host } = await steeredThenCompacted(t, "slow: a long answer that streams for a while and then some more, word after word after word, for as long as four seconds or so, which is longer than a steer and a compaction take to start even on a loaded machine", (d) =>
    // The first run's start is there already: this run's.
    d.waitFor((m) => m.type === "agent_start", 5000, "the slow run's start", 2).then(() => sleep(300)),
  );
  const delivered = await daemon.waitFor((m) => m.type === "prompts_delivered", 3000);
  assert.deepEqual([delivered.reason, delivered.texts], ["compaction", ["also run the linter"]]);
  assert.equal(daemon.lines((m) => m.type === "prompts_dropped").length, 0);
  // It does run with the next prompt.
  daemon.send({ type: "prompt", id: "n", message: "next", streamingBehavior: "followUp" });
  await host.waitFor((s) => s.saw === "user_message" && s.text === "also run the linter", 10000);
});

// Trap 10: pi's compact() aborts the run first, and an abort reaches no prompt still in its
// pre-run: it starts during the compaction, unseen (trap 7). So the daemon's compact waits for
// the chat prompt's run to start, then compacts, aborting that run as it aborts any (trap 1).
test("the daemon's compact right after a chat prompt waits for its run to start: the run is seen, never said not started", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { compactionMs: 400, preRunDelayMs: 300 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  daemon.send({ type: "prompt", id: "first", message: "something to compact", streamingBehavior: "followUp" });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: something to compact");
  const SLOW = "slow: one two three four five six seven eight nine ten";
  daemon.send({ type: "prompt", id: "p", message: SLOW, streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await waitUntil(() => host.sentUserMessages.some((m: any) => m.content === SLOW), 3000, "the prompt handed to pi");
  await sleep(50); // in its pre-run now
  daemon.send({ type: "compact", id: "c" });
  assert.equal((await daemon.response("c", 5000)).success, true);
  await daemon.waitFor((m) => m.type === "agent_start", 3000, "the chat prompt's run start", 2);
  await sleep(3500); // past the start watch, counted from session_compact
  const at = (match: (m: any) => boolean) => daemon.received.findIndex((r) => match(r.message));
  const userMessage = at((m) => m.type === "message_start" && m.message?.role === "user" && m.message?.content?.[0]?.text === SLOW);
  assert.ok(userMessage >= 0, "the daemon saw the prompt's run");
  assert.ok(userMessage < at((m) => m.type === "response" && m.id === "c"), "started before the compaction");
  assert.deepEqual(daemon.lines((m) => m.type === "response" && m.id === "p" && m.success === false), [], "never said not started");
  assert.equal(daemon.lines((m) => m.type === "agent_end").length, 2, "the compaction ended the run, and the daemon heard it end");
  assert.deepEqual(host.errors, []);
});

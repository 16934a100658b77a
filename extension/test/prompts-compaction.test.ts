// Prompts wait while pi compacts (spec §11 traps 5 and 7): pi is idle then, and a prompt sent
// during a manual compaction runs while pi listens to nobody: no events, nothing saved, and the
// compaction then replaces the context. Chat prompts are held here until the compaction is over.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test, type TestContext } from "node:test";
import { PromptSender } from "../pi-relayd/prompts.ts";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

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

// Retries and overflow recovery are one run (issue "Terminal sessions behave exactly as real pi
// does", runs point 9; spec §11 trap 4): pi retries and continues after agent_end and tells only
// its own listeners. The extension predicts it with pi's rules and says what pi's RPC mode says.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { isRetryableError, readPiSettings, RetryWatch } from "../pi-relayd/retry.ts";
import { FakeDaemon, makeHome, startHost, waitUntil } from "./support.ts";

type Json = Record<string, any>;

const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const TOO_LONG = "prompt is too long: 213462 tokens > 200000 maximum";

/** pi's agent folder with these settings (pi and the extension both read it). */
function piSettings(t: TestContext, settings: Json): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-agent-"));
  fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify(settings));
  const before = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = dir;
  t.after(() => {
    if (before === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = before;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

async function attached(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

const types = (lines: Json[]) => lines.map((m) => m.type).filter((type) => type !== "message_update" && type !== "session_info");

test("a retried overloaded error is one run: auto_retry_start, the continuation, auto_retry_end, one agent_end", async (t) => {
  piSettings(t, { retry: { baseDelayMs: 100 } });
  const { daemon, host } = await attached(t);
  host.type(`fail: 1 x ${OVERLOADED}`);
  await host.waitFor((s) => s.saw === "retrying");
  await daemon.waitFor((m) => m.type === "agent_end", 5000, "the run's end");
  await host.waitFor((s) => s.saw === "run_end" && /^Echo: fail/.test(s.text));
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(host.seen.filter((s) => s.saw === "run_end").length, 2, "pi itself ran twice (the fake shows the trap)");
  const lines = daemon.lines(() => true).filter((m) => m.type !== "terminal_input" && m.type !== undefined);
  assert.deepEqual(types(lines), [
    "agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end",
    "auto_retry_start",
    "agent_start", "turn_start", "message_start", "message_end", "auto_retry_end", "turn_end",
    "agent_end",
  ]);
  const retry = lines.find((m) => m.type === "auto_retry_start")!;
  assert.deepEqual(retry, { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 100, errorMessage: OVERLOADED });
  assert.deepEqual(lines.find((m) => m.type === "auto_retry_end"), { type: "auto_retry_end", success: true, attempt: 1 });
  assert.deepEqual(host.errors, []);
});

test("retries that run out end the run with pi's auto_retry_end success:false", async (t) => {
  piSettings(t, { retry: { baseDelayMs: 10, maxRetries: 2 } });
  const { daemon, host } = await attached(t);
  host.type(`fail: 3 x ${OVERLOADED}`);
  const end = await daemon.waitFor((m) => m.type === "auto_retry_end", 5000);
  assert.deepEqual(end, { type: "auto_retry_end", success: false, attempt: 2, finalError: OVERLOADED });
  const lines = daemon.lines(() => true);
  assert.deepEqual(
    lines.filter((m) => m.type === "auto_retry_start").map((m) => [m.attempt, m.delayMs]),
    [[1, 10], [2, 20]],
  );
  assert.equal(lines.filter((m) => m.type === "agent_end").length, 1, "one run");
  assert.ok(lines.findIndex((m) => m.type === "agent_end") < lines.indexOf(end), "agent_end, then the give-up, as pi's RPC mode");
});

test("retry off in pi's settings: the error ends the run at once", async (t) => {
  piSettings(t, { retry: { enabled: false } });
  const { daemon, host } = await attached(t);
  host.type(`fail: 1 x ${OVERLOADED}`);
  await daemon.waitFor((m) => m.type === "agent_end");
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(host.seen.some((s) => s.saw === "retrying"), false);
  assert.equal(daemon.lines((m) => m.type?.startsWith("auto_")).length, 0);
});

test("a context overflow is compacted and continued in the same run", async (t) => {
  piSettings(t, {});
  const { daemon, host } = await attached(t);
  host.type("first");
  await daemon.waitFor((m) => m.type === "agent_end");
  host.type(`fail: 1 x ${TOO_LONG}`);
  await daemon.waitFor((m) => m.type === "agent_end", 5000, "the run's end", 2);
  await host.waitFor((s) => s.saw === "run_end" && /^Echo: fail/.test(s.text));
  const lines = daemon.lines(() => true);
  const second = lines.slice(lines.findIndex((m) => m.type === "agent_end") + 1);
  assert.deepEqual(
    types(second).filter((type) => type.startsWith("agent_") || type.startsWith("auto_")),
    ["agent_start", "auto_compaction_start", "auto_compaction_end", "agent_start", "agent_end"],
  );
  assert.deepEqual(second.find((m) => m.type === "auto_compaction_start"), { type: "auto_compaction_start", reason: "overflow" });
  assert.equal(second.find((m) => m.type === "auto_compaction_end").willRetry, true);
});

test("a stop during an overflow recovery's compaction: the run pi continues is aborted at its start, and not shown", async (t) => {
  // pi's abort cancels a retry's back-off and the agent (AS 1280–1284), not the compaction an
  // overflow started: when it is done, pi continues the run 100 ms later (trap 4), a run nobody
  // wants any more, tools included.
  piSettings(t, {});
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { compactionMs: 1000 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("first");
  await daemon.waitFor((m) => m.type === "agent_end");
  host.type(`fail: 1 x ${TOO_LONG}`);
  await daemon.waitFor((m) => m.type === "auto_compaction_start");
  await host.waitFor((s) => s.saw === "compacting");
  daemon.send({ type: "abort", id: "stop" });
  const stopped = await daemon.response("stop");
  assert.equal(stopped.data.abortAtStart, true, "armed for the run pi will continue");
  const linesAtStop = daemon.lines(() => true).length;
  await host.waitFor((s) => s.saw === "compaction" && s.phase === "end", 5000, "the compaction to end");
  await waitUntil(() => !host.isStreaming && host.seen.filter((s) => s.saw === "run_end").length >= 3, 5000, "pi's continuation to start and be aborted");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const after = types(daemon.lines(() => true).slice(linesAtStop));
  assert.ok(!after.includes("agent_start"), `no run after the stop: ${after}`);
  assert.doesNotMatch(host.seen.filter((s) => s.saw === "run_end").map((s) => s.text).join("\n"), /Echo: fail/, "the continued run did no work");
  // The next prompt runs as usual.
  host.type("again");
  await host.waitFor((s) => s.saw === "run_end" && /Echo: again/.test(s.text), 5000, "the next prompt's answer");
  assert.deepEqual(host.errors, []);
});

test("a predicted retry that pi does not make (Escape in the back-off) ends the run within 5 s", async (t) => {
  piSettings(t, { retry: { baseDelayMs: 300 } });
  const { daemon, host } = await attached(t);
  host.type(`fail: 1 x ${OVERLOADED}`);
  await daemon.waitFor((m) => m.type === "auto_retry_start");
  const dueAt = Date.now() + 300; // when pi's retry should have started
  host.escape();
  await host.waitFor((s) => s.saw === "retry_cancelled");
  const end = await daemon.waitFor((m) => m.type === "auto_retry_end", 7000);
  assert.ok(Date.now() - dueAt <= 5500, `ended ${Date.now() - dueAt} ms after the retry was due`);
  assert.equal(end.success, false);
  assert.equal(daemon.lines((m) => m.type === "agent_end").length, 1);
});

test("/new in a retry's back-off ends the run: the retry was cancelled", async (t) => {
  piSettings(t, { retry: { baseDelayMs: 2000 } });
  const { daemon, host } = await attached(t);
  host.type(`fail: 1 x ${OVERLOADED}`);
  await daemon.waitFor((m) => m.type === "auto_retry_start");
  const old = daemon.attached;
  await host.newSession();
  await waitUntil(() => daemon.attaches.length === 2, 5000, "the new attach");
  const lines = daemon.received.filter((r) => r.connection === old).map((r) => r.message);
  assert.deepEqual(lines.slice(-2), [{ type: "agent_end" }, { type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" }]);
});

test("RetryWatch: pi's rules, for the prompts that wait out a retry", (t) => {
  piSettings(t, { retry: { maxRetries: 1, baseDelayMs: 500 } });
  const settings = readPiSettings(process.cwd());
  assert.deepEqual(settings.retry, { enabled: true, maxRetries: 1, baseDelayMs: 500 });
  const watch = new RetryWatch(() => settings);
  const model = { provider: "anthropic", id: "claude-sonnet-4-5", contextWindow: 200000 };
  const error = (errorMessage: string) => ({ role: "assistant", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "error", errorMessage, usage: {} });

  watch.onAssistantMessageEnd(error("429 rate_limit_error"));
  const first = watch.onAgentEnd(model);
  assert.deepEqual(first, { retrying: true, kind: "retry", attempt: 1, maxAttempts: 1, delayMs: 500, errorMessage: "429 rate_limit_error" });
  assert.equal(watch.isPending, true);
  watch.onAgentStart();
  assert.equal(watch.isPending, false);
  watch.onAssistantMessageEnd(error("429 rate_limit_error"));
  assert.deepEqual(watch.onAgentEnd(model), { retrying: false, gaveUp: { attempt: 1, finalError: "429 rate_limit_error" } });

  watch.onAssistantMessageEnd(error("invalid x-api-key"));
  assert.deepEqual(watch.onAgentEnd(model), { retrying: false }, "not retryable");
  watch.onAssistantMessageEnd(error(TOO_LONG));
  assert.equal((watch.onAgentEnd(model) as Json).kind, "overflow");
  watch.onAssistantMessageEnd(error(TOO_LONG));
  assert.deepEqual(watch.onAgentEnd(model), { retrying: false }, "one overflow recovery per prompt");
  watch.onAssistantMessageEnd(error(TOO_LONG));
  assert.deepEqual(watch.onAgentEnd({ ...model, id: "other" }), { retrying: false }, "another model's overflow");
  assert.equal(isRetryableError(error("fetch failed"), 0), true);
  assert.equal(isRetryableError(error(TOO_LONG), 0), false, "an overflow is compacted, not retried");
});

test("a chat prompt in a retry's back-off waits for the retried run (pi looks idle then: trap 7)", async (t) => {
  piSettings(t, { retry: { baseDelayMs: 1500 } }); // longer than the 400 ms a finished run settles
  const { daemon, host } = await attached(t);
  host.type(`fail: 1 x ${OVERLOADED}`);
  await daemon.waitFor((m) => m.type === "auto_retry_start");
  daemon.send({ type: "prompt", id: "p1", message: "after the retry", streamingBehavior: "followUp" }); // the daemon sees the run going on
  const response = await daemon.response("p1");
  assert.equal(response.success, true, JSON.stringify(response));
  await host.waitFor((s) => s.saw === "user_message" && s.text === "after the retry", 5000);
  const sights = host.seen.map((s) => (s.saw === "run_end" ? `run_end ${s.text}` : s.saw === "user_message" ? `user ${s.text}` : s.saw));
  const retried = sights.indexOf(`run_end Echo: fail: 1 x ${OVERLOADED}`);
  assert.ok(retried >= 0 && retried < sights.indexOf("user after the retry"), `the prompt waited: ${JSON.stringify(sights)}`);
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: after the retry");
  assert.deepEqual(host.errors, []);
});

test("a chat /stop in a retry's back-off ends the run at once: pi's abort cancels the retry", async (t) => {
  piSettings(t, { retry: { baseDelayMs: 3000 } });
  const { daemon, host } = await attached(t);
  host.type(`fail: 1 x ${OVERLOADED}`);
  await daemon.waitFor((m) => m.type === "auto_retry_start");
  const stopped = Date.now();
  daemon.send({ type: "abort", id: "stop" });
  assert.equal((await daemon.response("stop")).success, true);
  const end = await daemon.waitFor((m) => m.type === "auto_retry_end", 2000);
  assert.ok(Date.now() - stopped < 1000, "at once, not after the back-off");
  assert.deepEqual(end, { type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" });
  await host.waitFor((s) => s.saw === "retry_cancelled");
  assert.equal(daemon.lines((m) => m.type === "agent_end").length, 1);
  assert.equal(daemon.lines((m) => m.type === "agent_start").length, 1, "pi did not retry");
});

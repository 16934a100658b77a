// Nothing a user sends is lost: a chat prompt that pi would fail, or does not start, is answered
// as failed within 5 s, with pi's reason where the extension can know it (spec §11 trap 6).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { NOT_STARTED, PROMPT_START_WATCH_MS } from "../pi-relayd/prompts.ts";
import { EXTENSION, FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

async function attached(t: TestContext, options: Parameters<typeof startHost>[1] = {}) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, options);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

/** Another extension, loaded after ours: its `input` handler swallows one text. */
function swallower(t: TestContext): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-swallow-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "swallow.ts");
  fs.writeFileSync(
    file,
    `export default function (pi: any): void {
  pi.on("input", (event: any) => (event.text === "swallow me" ? { action: "handled" } : { action: "continue" }));
}
`,
  );
  return file;
}

test("a chat prompt while pi has no model is refused at once, saying what to do in the terminal", async (t) => {
  const { daemon, host } = await attached(t);
  host.removeModel(); // pi started without a model (no key for any provider)
  const asked = Date.now();
  daemon.send({ type: "prompt", id: "p", message: "hello", streamingBehavior: "followUp" });
  const response = await daemon.response("p");
  assert.ok(Date.now() - asked < 5000);
  assert.equal(response.success, false, "never a silent accepted");
  assert.equal(response.error, "no model: pick one with /model in the terminal");
  assert.equal(host.sentUserMessages.length, 0, "nothing went to pi");
});

test("a chat prompt for a model without an API key is refused at once with the provider", async (t) => {
  const { daemon, host } = await attached(t);
  assert.equal(typeof (host.toolContext() as any).modelRegistry?.getApiKey, "function", "the fake host has pi's getApiKey");
  host.logout("anthropic"); // the terminal's model has no key now
  const asked = Date.now();
  daemon.send({ type: "prompt", id: "p", message: "hello", streamingBehavior: "followUp" });
  const response = await daemon.response("p");
  assert.ok(Date.now() - asked < 5000);
  assert.equal(response.success, false);
  assert.equal(response.error, "no API key for anthropic: run /login in the terminal");
  daemon.send({ type: "steer", id: "s", message: "steer too" });
  assert.equal((await daemon.response("s")).success, false, "a steer as well");
  assert.equal(host.sentUserMessages.length, 0);
  await sleep(100);
  assert.deepEqual(host.errors, [], "pi never failed a prompt of ours in the terminal");
});

test("a chat prompt when the OAuth login expired and cannot refresh is refused with /login PROVIDER", async (t) => {
  const { daemon, host } = await attached(t);
  host.expireLogin("anthropic");
  daemon.send({ type: "prompt", id: "p", message: "hello", streamingBehavior: "followUp" });
  const response = await daemon.response("p");
  assert.equal(response.success, false);
  assert.equal(response.error, "the login for anthropic has expired: run /login anthropic in the terminal");
  assert.equal(host.sentUserMessages.length, 0);
});

test("a prompt pi does not start is answered again, failing, within 5 s", async (t) => {
  const { daemon, host } = await attached(t);
  await host.load(swallower(t));
  const asked = Date.now();
  daemon.send({ type: "prompt", id: "p", message: "swallow me", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  const second = await daemon.waitFor((m) => m.type === "response" && m.id === "p" && m.success === false, 5000, "a second response");
  assert.ok(Date.now() - asked < 5000, "within 5 s");
  assert.equal(second.command, "prompt");
  assert.equal(second.error, "pi did not start this prompt; see the terminal");
  // The queue goes on, once a late start of the first is no longer likely (15 s: the next test).
  daemon.send({ type: "prompt", id: "q", message: "next one", streamingBehavior: "followUp" });
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: next one", 20_000);
  assert.equal(daemon.lines((m) => m.type === "response" && m.id === "q" && m.success === false).length, 0);
});

test("a chat prompt while a terminal prompt is starting waits for its run instead of colliding with it", async (t) => {
  const { daemon, host } = await attached(t, { preRunDelayMs: 300 });
  host.type("from the terminal"); // in pi's pre-run phase now: pi is still idle
  await sleep(20);
  daemon.send({ type: "prompt", id: "p", message: "from the chat", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: from the chat", 5000);
  assert.deepEqual(host.errors, [], "no 'Agent is already processing a prompt' for the chat's prompt");
  assert.equal(daemon.lines((m) => m.type === "response" && m.success === false).length, 0);
});

test("a terminal prompt typed while the chat's is starting: the run's user message says whose run it is", async (t) => {
  const { daemon, host } = await attached(t, { preRunDelayMs: 300 });
  daemon.send({ type: "prompt", id: "p", message: "from the chat", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await sleep(20);
  host.type("from the terminal"); // collides in pi: the terminal's fails there, in red
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: from the chat", 5000);
  await sleep(PROMPT_START_WATCH_MS + 500);
  assert.equal(daemon.lines((m) => m.type === "response" && m.success === false).length, 0, "ours started: nothing to report");
});

test("a prompt reported not started that starts late: the next waits for it rather than colliding with it", async (t) => {
  // A pre-run phase longer than the 3 s watch (trap 6 leaves no other sign): the first prompt is
  // answered as not started, and then starts. Sent at once, the second would be in its own
  // pre-run when the first's run began, and fail unseen when its run would start.
  const { daemon, host } = await attached(t, { preRunDelayMs: PROMPT_START_WATCH_MS + 500 });
  daemon.send({ type: "prompt", id: "p1", message: "work: 4 x 1000", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p1")).success, true);
  daemon.send({ type: "prompt", id: "p2", message: "second", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p2")).success, true);
  await daemon.waitFor((m) => m.type === "response" && m.id === "p1" && m.success === false, 5000, "p1 reported not started");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: second", 20_000, "the second prompt's run");
  assert.deepEqual(host.errors, [], "no prompt collided in pi");
  // (The second's pre-run is as slow, so it too is answered as not started before it runs: the
  // watch cannot tell a slow start from a prompt another extension took, trap 6.)
});

test("a prompt reported not started whose pre-run then compacts: the next waits for its run, not the compaction's end", async (t) => {
  // Past the 3 s watch (a slow key lookup), then a compaction longer than the 15 s late-start
  // wait (trap 5): when the compaction ends, the late prompt's run starts next.
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { preRunDelayMs: PROMPT_START_WATCH_MS + 500, compactionMs: 15_500, streamDelayMs: 50 });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("hello"); // something to compact
  await host.waitFor((s) => s.saw === "run_end", 10_000);
  // Its run (an echo of 100 words, 5 s) is still going when a prompt sent at the compaction's
  // end would leave its own pre-run.
  daemon.send({ type: "prompt", id: "p1", message: `precompact: ${"word ".repeat(100)}`, streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p1")).success, true);
  daemon.send({ type: "prompt", id: "p2", message: "second", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p2")).success, true);
  await daemon.waitFor((m) => m.type === "response" && m.id === "p1" && m.success === false, 5000, "p1 reported not started");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: second", 40_000, "the second prompt's run");
  assert.deepEqual(host.errors, [], "no prompt collided in pi");
});

/** Another extension, loaded after ours, that prompts pi itself (as pi's file-trigger example does). */
function prompter(t: TestContext): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-prompter-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "prompter.ts");
  fs.writeFileSync(file, `export default function (pi: any): void {\n  (globalThis as any).otherPrompt = (text: string) => pi.sendUserMessage(text);\n}\n`);
  return file;
}

test("a chat prompt sent while another extension's prompt is still starting waits for its run, and runs after it", async (t) => {
  // Another extension's sendUserMessage into an idle pi has a pre-run phase, as a terminal
  // prompt does (spec §11 traps 5, 6): sent then, the chat's prompt collided with it and failed
  // in the terminal only, while its run's start was taken for the chat's.
  const { daemon, host } = await attached(t, { preRunDelayMs: 300 });
  await host.load(prompter(t));
  (globalThis as any).otherPrompt("from another extension");
  await sleep(20);
  daemon.send({ type: "prompt", id: "p", message: "from the chat", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("p")).success, true);
  await host.waitFor((s) => s.saw === "user_message" && s.text === "from the chat", 8000, "the chat's prompt to run");
  const ran = host.seen.filter((s) => s.saw === "user_message").map((s) => s.text);
  assert.deepEqual(ran, ["from another extension", "from the chat"]);
  assert.equal(daemon.lines((m) => m.type === "response" && m.id === "p" && m.success === false).length, 0, "never reported failed");
  assert.deepEqual(host.errors, [], "pi failed no prompt in the terminal");
});

test("a run nobody prompted that starts while a chat prompt is starting is not taken for it (traps 4, 6)", async (t) => {
  // A retry's back-off that a /reload hid from the extension: pi continues on its own while the
  // chat's prompt is in its pre-run phase, and the prompt then fails unseen ("already processing").
  const { daemon, host } = await attached(t, { preRunDelayMs: 1500, retryBaseDelayMs: 1000, streamDelayMs: 600 });
  host.type("flaky: 1 hi");
  await host.waitFor((s) => s.saw === "retrying", 10000);
  assert.equal(await host.reload(), true);
  await daemon.waitFor((m) => m.method === "attach", 5000, "the attach after the reload", 2);
  daemon.send({ type: "prompt", id: "mine", message: "mine", streamingBehavior: "followUp" });
  assert.equal((await daemon.response("mine")).success, true, "taken, as pi's RPC answers first");
  const told = await waitUntilEither(daemon, host);
  assert.ok(told, "the chat hears its prompt failed, or sees it run");
});

/** A second, failing response to `mine`, or its user message: the chat is not left believing it ran. */
async function waitUntilEither(daemon: FakeDaemon, host: any): Promise<boolean> {
  const until = Date.now() + 10000;
  while (Date.now() < until) {
    if (daemon.lines((m) => m.type === "response" && m.id === "mine" && m.success === false).length > 0) return true;
    if (host.seen.some((s: any) => s.saw === "user_message" && s.text === "mine")) return true;
    await sleep(100);
  }
  return false;
}

/** Another extension whose `input` handler appends to every prompt (spec §5.3). */
function appender(t: TestContext): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-append-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "append.ts");
  fs.writeFileSync(
    file,
    `export default function (pi: any): void {
  pi.on("input", (event: any) => ({ action: "transform", text: event.text + " (answer briefly)" }));
}
`,
  );
  return file;
}

// Loaded before ours, its rewrite is what our `input` handler sees; loaded after, nothing tells
// ours what the text became, and the run's user message is matched in order.
for (const loaded of ["before", "after"] as const) {
  const withAppender = async (t: TestContext) => {
    const home = makeHome(t);
    const daemon = await FakeDaemon.start(t, home);
    const other = appender(t);
    const host = await startHost(t, { extensions: loaded === "before" ? [other, EXTENSION] : [EXTENSION, other] });
    await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
    return { daemon, host };
  };

  test(`a chat prompt an extension loaded ${loaded} ours rewrites in its input handler runs once and is not reported failed`, async (t) => {
    const { daemon, host } = await withAppender(t);
    daemon.send({ type: "prompt", id: "p", message: "hello", streamingBehavior: "followUp" });
    assert.equal((await daemon.response("p")).success, true);
    await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: hello (answer briefly)", 5000);
    await sleep(PROMPT_START_WATCH_MS + 500);
    assert.equal(daemon.lines((m) => m.type === "response" && m.id === "p" && m.success === false).length, 0, "it ran: never reported failed");
    assert.equal(host.sentUserMessages.length, 1, "handed to pi once");
    assert.deepEqual(
      host.seen.filter((s) => s.saw === "user_message").map((s) => s.text),
      ["hello (answer briefly)"],
    );
    assert.deepEqual(host.errors, []);
  });

  test(`a chat steer an extension loaded ${loaded} ours rewrites is known as taken once pi took it`, async (t) => {
    const { daemon, host } = await withAppender(t);
    host.type(`slow: ${"word ".repeat(15)}`);
    await host.waitFor((s) => s.saw === "user_message");
    daemon.send({ type: "steer", id: "s", message: "look here" });
    assert.equal((await daemon.response("s")).success, true);
    await host.waitFor((s) => s.saw === "user_message" && s.text === "look here (answer briefly)", 5000, "pi to take the steer");
    await sleep(100);
    // A stop tells the chats which of their prompts pi still holds: none, it took the steer.
    daemon.send({ type: "abort", id: "stop" });
    await daemon.response("stop");
    await sleep(100);
    assert.deepEqual(daemon.lines((m) => m.type === "prompts_delivered"), []);
    assert.equal(host.sentUserMessages.length, 1);
  });
}

for (const loaded of ["before", "after"] as const) {
  test(`a terminal prompt that won the start over a chat prompt an extension loaded ${loaded} ours rewrites: the chat's is reported not started`, async (t) => {
    // The other extension takes its time over the chat's pre-run (before_agent_start is
    // awaited: spec §8.1), so the terminal's, typed meanwhile, starts first and the chat's
    // collides in pi (trap 6). Loaded before ours, both texts are known at our handler; loaded
    // after, neither is, and with two prompts starting the chat's cannot be taken for started.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-slow-start-"));
    t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
    const other = path.join(folder, "slow-start.ts");
    fs.writeFileSync(
      other,
      `export default function (pi: any): void {
  pi.on("input", (event: any) => ({ action: "transform", text: event.text + " (answer briefly)" }));
  pi.on("before_agent_start", async (event: any) => {
    if (event.prompt.startsWith("from the chat")) await new Promise((resolve) => setTimeout(resolve, 300));
  });
}
`,
    );
    const home = makeHome(t);
    const daemon = await FakeDaemon.start(t, home);
    const host = await startHost(t, { extensions: loaded === "before" ? [other, EXTENSION] : [EXTENSION, other] });
    await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
    daemon.send({ type: "prompt", id: "p", message: "from the chat", streamingBehavior: "followUp" });
    assert.equal((await daemon.response("p")).success, true);
    await sleep(50);
    host.type("slow: from the terminal"); // a run longer than the chat's pre-run
    await host.waitFor((s) => s.saw === "user_message" && s.text === "slow: from the terminal (answer briefly)");
    const failed = await daemon.waitFor((m) => m.type === "response" && m.id === "p" && m.success === false, 5000, "the chat's reported not started");
    assert.equal(failed.error, NOT_STARTED);
    await host.waitFor((s) => s.saw === "extension_error" && /already processing/.test(s.error), 5000, "pi's collision");
  });
}

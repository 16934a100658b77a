// The fake pi host's failing prompts and continuations against pi 0.58.3 (spec §11 traps 4, 6, 7),
// checked with a tiny throwaway extension, not the real one.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { PiHost, type HostOptions } from "../../Tests/Fakes/pi-extension-host/host.ts";

declare global {
  var failProbe: string[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function started(t: TestContext, options: HostOptions = {}): Promise<PiHost> {
  globalThis.failProbe = [];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-ext-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "probe.ts");
  fs.writeFileSync(
    file,
    `export default function (pi: any): void {
  (globalThis as any).failPi = pi;
  for (const name of ["input", "before_agent_start", "agent_start", "agent_end", "session_before_compact", "session_compact"]) {
    pi.on(name, (e: any) => { globalThis.failProbe.push(name + (name === "input" ? ":" + e.text : "") + (name === "agent_end" ? ":" + (e.messages.at(-1)?.errorMessage ?? e.messages.at(-1)?.role) : "")); });
  }
}
`,
  );
  const host = await PiHost.create({ extensions: [file], ...options });
  t.after(() => host.shutdown());
  await host.start();
  return host;
}

const send = (text: string) => (globalThis as any).failPi.sendUserMessage(text);

test("no model, no API key, an expired login: pi's own words, after input, with no agent_start (trap 6)", async (t) => {
  const host = await started(t);
  const registry = host.toolContext().modelRegistry;
  assert.equal(await registry.getApiKey(host.model), "fake-key-anthropic");
  host.removeModel();
  send("one");
  await host.waitFor((s) => s.saw === "extension_error");
  host.login("nokey");
  await host.selectModel("openai", "gpt-5");
  host.logout("openai");
  assert.equal(await registry.getApiKey(host.model), undefined);
  assert.equal(await registry.getApiKeyForProvider("openai"), undefined);
  send("two");
  await host.waitFor((s) => s.saw === "extension_error" && /openai/.test(s.error));
  host.login("anthropic", "oauth");
  await host.selectModel("anthropic", "claude-sonnet-4-5");
  host.expireLogin("anthropic");
  assert.equal(registry.isUsingOAuth(host.model), true);
  send("three");
  await host.waitFor((s) => s.saw === "extension_error" && /Authentication failed/.test(s.error));
  assert.deepEqual(host.errors.map((e) => [e.extensionPath, e.event]), Array(3).fill(["<runtime>", "send_user_message"]));
  assert.match(host.errors[0].error, /^No model selected\.\n\nUse \/login or set an API key environment variable\. See .*providers\.md\n\nThen use \/model to select a model\.$/);
  assert.match(host.errors[1].error, /^No API key found for openai\.\n\nUse \/login/);
  assert.equal(host.errors[2].error, `Authentication failed for "anthropic". Credentials may have expired or network is unavailable. Run '/login anthropic' to re-authenticate.`);
  assert.deepEqual(failProbe, ["input:one", "input:two", "input:three"]);
  assert.equal(await host.toolContext().modelRegistry.getAvailable().some((m: any) => m.provider === "anthropic"), false);
});

test("flaky: agent_end with the error reaches extensions, then after the back-off a run with no input or user message (trap 4)", async (t) => {
  const host = await started(t, { retryBaseDelayMs: 50 });
  host.type("flaky: 2 hello");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: flaky: 2 hello", 5000);
  await host.idle();
  assert.deepEqual(failProbe, [
    "input:flaky: 2 hello", "before_agent_start",
    "agent_start", `agent_end:${'529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'}`,
    "agent_start", `agent_end:${'529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'}`,
    "agent_start", "agent_end:assistant",
  ]);
  const retries = host.seen.filter((s) => s.saw === "retrying");
  assert.deepEqual(retries.map((s) => s.delayMs), [50, 100], "baseDelayMs·2^(n-1)");
  assert.equal(host.seen.filter((s) => s.saw === "user_message").length, 1);
});

test("fail: a non-retryable error ends the run, nothing follows", async (t) => {
  const host = await started(t, { retryBaseDelayMs: 10 });
  host.type("fail: invalid x-api-key");
  await host.waitFor((s) => s.saw === "run_end");
  await sleep(100);
  assert.deepEqual(failProbe.filter((e) => e.startsWith("agent_")), ["agent_start", "agent_end:invalid x-api-key"]);
});

test("overflow: dropped, compacted, then continued as a new agent_start (trap 4)", async (t) => {
  const host = await started(t);
  host.type("before");
  await host.waitFor((s) => s.saw === "run_end");
  host.type("overflow: too much");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: overflow: too much", 5000);
  await host.idle();
  assert.deepEqual(failProbe.slice(4), [
    "input:overflow: too much", "before_agent_start", "agent_start", "agent_end:prompt is too long: 213462 tokens > 200000 maximum",
    "session_before_compact", "session_compact", "agent_start", "agent_end:assistant",
  ]);
});

test("a sendUserMessage during the back-off wins the race; the continuation fails without a word (traps 6, 7)", async (t) => {
  const host = await started(t, { retryBaseDelayMs: 300 });
  host.type("flaky: 1 hello");
  await host.waitFor((s) => s.saw === "retrying");
  assert.equal(host.toolContext().isIdle(), true, "idle during the back-off (trap 5)");
  send("meanwhile");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Echo: meanwhile", 5000);
  await sleep(500);
  assert.deepEqual(host.errors, []);
  assert.equal(failProbe.filter((e) => e === "agent_start").length, 2, "the continuation never started");
});

test("throw: the agent loop throws mid-answer; extensions get only agent_end with one synthetic error message (§8.1)", async (t) => {
  const host = await started(t);
  const events: any[] = [];
  for (const name of ["message_start", "message_end", "turn_end", "agent_end"]) {
    (globalThis as any).failPi.on(name, (e: any) => void events.push(e));
  }
  host.type("throw: the stream broke");
  await host.waitFor((s) => s.saw === "run_end");
  const roles = events.map((e) => `${e.type}:${e.message?.role ?? ""}`);
  // The user message, then the answer that started streaming: its message_start is never ended.
  assert.deepEqual(roles, ["message_start:user", "message_end:user", "message_start:assistant", "agent_end:"]);
  const end = events.at(-1);
  assert.equal(end.messages.length, 1, "only the synthetic message, not the run's");
  const [failure] = end.messages;
  assert.deepEqual(
    { role: failure.role, content: failure.content, stopReason: failure.stopReason, errorMessage: failure.errorMessage },
    { role: "assistant", content: [{ type: "text", text: "" }], stopReason: "error", errorMessage: "the stream broke" },
  );
  assert.equal(failure.usage.totalTokens, 0);
  assert.equal(typeof failure.timestamp, "number");
  await sleep(100);
  assert.equal(host.seen.filter((s) => s.saw === "retrying").length, 0, "pi's retry looks at message_end's only");
  assert.equal(host.contextMessages.at(-1), failure, "the agent keeps it in its context");
  assert.equal(host.isStreaming, false);
});

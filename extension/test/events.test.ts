// pi's events as the daemon gets them: trimmed, throttled, echoed, and session_info.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test } from "node:test";
import { relayedEvent } from "../pi-relayd/index.ts";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

const RUN_EVENTS = new Set([
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
]);

async function attachedHost(t: any, options = {}) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, options);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

test("a run's events in pi's order, message_update without partial or message, agent_end without messages", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("hello relay");
  await host.waitFor((s) => s.saw === "run_end");
  await daemon.waitFor((m) => m.type === "agent_end");

  const events = daemon.lines((m) => RUN_EVENTS.has(m.type));
  const kinds = events.map((e) => (e.type === "message_update" ? `update:${e.assistantMessageEvent.type}` : e.type));
  assert.deepEqual(kinds.slice(0, 6), ["agent_start", "turn_start", "message_start", "message_end", "message_start", "update:text_start"]);
  assert.deepEqual(kinds.slice(-4), ["update:text_end", "message_end", "turn_end", "agent_end"]);

  const updates = events.filter((e) => e.type === "message_update");
  for (const update of updates) {
    assert.deepEqual(Object.keys(update).sort(), ["assistantMessageEvent", "type"]);
    const keys = Object.keys(update.assistantMessageEvent).sort();
    assert.ok(keys.every((k) => ["type", "contentIndex", "delta"].includes(k)), `unexpected keys ${keys}`);
  }
  const text = updates
    .filter((u) => u.assistantMessageEvent.type === "text_delta")
    .map((u) => u.assistantMessageEvent.delta)
    .join("");
  assert.equal(text, "Echo: hello relay");

  const end = events.find((e) => e.type === "agent_end")!;
  assert.deepEqual(end, { type: "agent_end" });
  const assistantEnd = events.filter((e) => e.type === "message_end").at(-1)!;
  assert.equal(assistantEnd.message.role, "assistant");
  assert.equal(assistantEnd.message.content[0].text, "Echo: hello relay");
  const turnEnd = events.find((e) => e.type === "turn_end")!;
  assert.equal(turnEnd.message.role, "assistant");
  assert.deepEqual(turnEnd.toolResults, []);
  assert.deepEqual(host.errors, []);
});

test("tool_execution_update: at most one per 500 ms per call, the last always before the end", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("work: 12 x 60"); // 12 updates over ~720 ms
  await host.waitFor((s) => s.saw === "run_end", 5000);
  await daemon.waitFor((m) => m.type === "agent_end");
  const toolEvents = daemon.lines((m) => String(m.type).startsWith("tool_execution_"));
  const updates = toolEvents.filter((e) => e.type === "tool_execution_update");
  assert.ok(updates.length >= 2 && updates.length < 12, `${updates.length} updates`);
  // 500 ms apart, but for the last one, which the end brings forward (a margin for a busy
  // machine: the fake daemon reads in this same process; unthrottled they would be 60 ms apart).
  const times = daemon.received.filter((r) => r.message.type === "tool_execution_update").map((r) => r.at);
  for (let index = 1; index < times.length - 1; index++) {
    assert.ok(times[index] - times[index - 1] >= 300, `updates ${times[index] - times[index - 1]} ms apart`);
  }
  assert.equal(toolEvents.at(-1)!.type, "tool_execution_end");
  assert.equal(toolEvents.at(-2)!.type, "tool_execution_update");
  assert.equal(toolEvents.at(-2)!.partialResult.details.step, 12, "the last update is sent before the end");
  assert.equal(toolEvents[0].type, "tool_execution_start");
  assert.deepEqual(toolEvents[0].args, { steps: 12, stepMs: 60 });
  const end = toolEvents.at(-1)!;
  assert.equal(end.isError, false);
  assert.match(end.result.content[0].text, /step 12/);
});

test("a prompt typed at the terminal is echoed as terminal_input", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("typed here");
  const echo = await daemon.waitFor((m) => m.type === "terminal_input");
  assert.deepEqual(echo, { type: "terminal_input", text: "typed here", images: 0 });
  await host.waitFor((s) => s.saw === "run_end");
});

test("session_info when the session file appears, the model, thinking level or name change", async (t) => {
  const { daemon, host } = await attachedHost(t);
  assert.equal(fs.existsSync(host.sessionFile), false);
  host.type("first words");
  const appeared = await daemon.waitFor((m) => m.type === "session_info", 3000, "session_info for the new file");
  assert.ok(fs.existsSync(host.sessionFile));
  assert.deepEqual(appeared, {
    type: "session_info",
    sessionFile: host.sessionFile,
    name: null,
    model: "anthropic/claude-sonnet-4-5",
    modelInput: ["text", "image"],
    thinkingLevel: "medium",
  });

  await host.selectModel("openai", "gpt-5");
  const model = await daemon.waitFor((m) => m.type === "session_info", 2000, "session_info for the model", 2);
  assert.equal(model.model, "openai/gpt-5");

  // A text-only model: the daemon learns it, so a picture is not sent for pi to drop (§11 trap 9).
  await host.selectModel("openai", "gpt-3.5-turbo");
  const textOnly = await daemon.waitFor((m) => m.type === "session_info", 2000, "session_info for the text model", 3);
  assert.deepEqual(textOnly.modelInput, ["text"]);

  // Neither has an event in pi: they are noticed within the 2 s poll.
  host.cycleThinking();
  host.rename("refactor");
  const polled = await daemon.waitFor((m) => m.type === "session_info", 3000, "session_info for thinking and name", 4);
  assert.equal(polled.thinkingLevel, "high");
  assert.equal(polled.name, "refactor");
  await sleep(2200);
  assert.equal(daemon.lines((m) => m.type === "session_info").length, 4, "nothing new, nothing sent");
});

test("events while detached are dropped, and the run goes on in pi", async (t) => {
  const { daemon, host } = await attachedHost(t);
  await daemon.stop();
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  host.type("while away");
  await host.waitFor((s) => s.saw === "run_end");
  assert.equal(daemon.lines((m) => m.type === "agent_start").length, 0);
  assert.deepEqual(host.errors, []);
});

test("relayedEvent keeps pi's fields and drops the heavy ones", () => {
  const partial = { role: "assistant", content: [{ type: "text", text: "Hel" }] };
  assert.deepEqual(
    JSON.parse(
      JSON.stringify(
        relayedEvent({
          type: "message_update",
          message: partial,
          assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "lo", partial },
        }),
      ),
    ),
    { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "lo" } },
  );
  assert.deepEqual(JSON.parse(JSON.stringify(relayedEvent({ type: "message_update", assistantMessageEvent: { type: "text_end", contentIndex: 0, content: "Hello", partial } }))), {
    type: "message_update",
    assistantMessageEvent: { type: "text_end", contentIndex: 0 },
  });
  assert.deepEqual(relayedEvent({ type: "agent_end", messages: [partial] }), { type: "agent_end" });
  assert.equal(relayedEvent({ type: "context", messages: [] }), undefined);
  assert.equal(relayedEvent({ type: "input", text: "x" }), undefined);
});

// A steer while a gate is pending becomes a follow-up, and the daemon is told (its response's
// data): pi polls its steering queue after each call's preflight and a steer found there skips
// every call of the batch, the one just approved included (spec §11 trap 11).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Gates } from "../pi-relayd/index.ts";
import { PromptSender } from "../pi-relayd/prompts.ts";
import { FakeDaemon, makeHome, startHost } from "./support.ts";

const gates: Gates = { timeoutSeconds: 300, rules: [{ name: "git-push", tools: ["bash"], command: "git\\s+push" }] };

for (const how of ["steer", "prompt with streamingBehavior steer"] as const) {
  test(`a ${how} while an approval is pending is queued as a follow-up; the approved call runs`, async (t) => {
    const home = makeHome(t);
    let release: (value: any) => void = () => {};
    const decided = new Promise((resolve) => (release = resolve));
    const daemon = await FakeDaemon.start(t, home, { approvals: gates, approve: () => decided });
    const host = await startHost(t);
    await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
    host.type("run: git push");
    await daemon.waitFor((m) => m.method === "approval");
    daemon.send(
      how === "steer"
        ? { type: "steer", id: "s1", message: "and then tag it" }
        : { type: "prompt", id: "s1", message: "and then tag it", streamingBehavior: "steer" },
    );
    const response = await daemon.response("s1");
    assert.equal(response.success, true);
    release({ allowed: true, outcome: "approved_once", by: "alice" });
    await host.waitFor((s) => s.saw === "user_message" && s.text === "and then tag it", 3000);
    const ends = host.seen.filter((s) => s.saw === "run_end");
    await host.waitFor((s) => s.saw === "run_end", 3000);
    const toolEnd = daemon.lines((m) => m.type === "tool_execution_end").at(0);
    assert.equal(toolEnd?.isError, false, `the approved call ran: ${JSON.stringify(toolEnd?.result)}`);
    void ends;
    assert.equal(response.data?.deliveredAs, "followUp", "the daemon hears it went as a follow-up");
    assert.match(String(response.data?.reason), /approval is pending/);
    assert.deepEqual(host.errors, []);
  });
}

test("a steer with no approval pending stays a steer", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: gates });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("slow: one two three four five");
  await daemon.waitFor((m) => m.type === "agent_start");
  daemon.send({ type: "steer", id: "s2", message: "faster" });
  const response = await daemon.response("s2");
  assert.equal(response.data, undefined);
  assert.equal(host.sentUserMessages.at(-1)?.options?.deliverAs, "steer");
});

test("a steer queued before an approval began waiting goes to pi as a follow-up when its turn comes", () => {
  const sent: { content: string; deliverAs?: string }[] = [];
  const pi = { sendUserMessage: (content: string, options: any) => sent.push({ content, deliverAs: options?.deliverAs }) } as any;
  let gate = false;
  const told: any[] = [];
  const sender = new PromptSender(pi, () => false, () => {}, (line) => told.push(line), () => gate);
  sender.enqueue({ content: "first", text: "first", deliverAs: "steer" });
  // The second waits for the first's `input` event.
  sender.enqueue({ content: "second", text: "second", deliverAs: "steer" });
  assert.deepEqual(sent, [{ content: "first", deliverAs: "steer" }]);
  gate = true;
  sender.onExtensionInput("first");
  assert.deepEqual(sent.at(-1), { content: "second", deliverAs: "followUp" });
  assert.deepEqual(told, [{ type: "prompts_delivered", reason: "gate", texts: ["second"] }], "the daemon hears it");
  gate = false;
  sender.enqueue({ content: "third", text: "third", deliverAs: "steer" });
  sender.onExtensionInput("second");
  assert.deepEqual(sent.at(-1), { content: "third", deliverAs: "steer" }, "no approval waits: a steer again");
});

// The daemon reads at most 16 MiB a line and skips a longer one without a word (the fake daemon
// does so too: DAEMON_MAX_LINE_BYTES). pi passes images on untouched (spec §11 trap 9; a tool's
// result holds what it returns, §6), so one event can be bigger: the extension sends it with a
// text block in place of each image, or, still too big, not at all, and logs that.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { DAEMON_MAX_LINE_BYTES, EXTENSION, FakeDaemon, makeHome, startHost, waitUntil } from "./support.ts";

type Json = Record<string, any>;

/** A PNG's worth of base64: 13 MiB of bytes, over 17 MiB of characters. */
const BIG = randomBytes(13 << 20).toString("base64");
/** A 1×1 PNG. */
const SMALL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const NOT_RELAYED = /^\[an image of 13\.0 MB was not relayed \(over the relay's line limit\)\]$/;

/** A tool that returns `data` as a PNG (and reports it once on the way, as partial result). */
function imageTool(name: string, data: string): Json {
  return {
    name,
    description: "Takes a screenshot.",
    parameters: { type: "object", properties: {} },
    async execute(_id: string, _params: Json, _signal: unknown, onUpdate?: (update: Json) => void) {
      onUpdate?.({ content: [{ type: "image", data, mimeType: "image/png" }], details: {} });
      return { content: [{ type: "text", text: "Took a screenshot" }, { type: "image", data, mimeType: "image/png" }], details: {} };
    },
  };
}

/** Another extension whose `/paste` command sends a user message with a 13 MiB picture (spec §5.1). */
function pasteExtension(t: TestContext): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-paste-ext-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "paste.ts");
  fs.writeFileSync(
    file,
    `import { randomBytes } from "node:crypto";
export default function (pi: any): void {
  pi.registerCommand("paste", {
    description: "Sends a big picture",
    handler: async () => pi.sendUserMessage([{ type: "text", text: "look at this" }, { type: "image", data: randomBytes(13 << 20).toString("base64"), mimeType: "image/png" }]),
  });
}
`,
  );
  return file;
}

async function attached(t: TestContext, options: Json = {}) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, options);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { home, daemon, host };
}

function imageBlocks(content: unknown): Json[] {
  return Array.isArray(content) ? content.filter((block) => block?.type === "image") : [];
}

test("a tool's image over the daemon's 16 MiB line limit: its events arrive with a text block in place of the image", async (t) => {
  assert.ok(BIG.length > DAEMON_MAX_LINE_BYTES, "the payload alone is over the limit");
  const { daemon, host } = await attached(t, { extraTools: [imageTool("screenshot", BIG)] });
  host.type("call: screenshot");
  await host.waitFor((s) => s.saw === "run_end", 20000);
  // The chat's tool line closes.
  const end = await daemon.waitFor((m) => m.type === "tool_execution_end", 10000, "tool_execution_end");
  await daemon.waitFor((m) => m.type === "agent_end", 10000, "agent_end");
  assert.deepEqual(daemon.skipped.map((s) => `${s.bytes} bytes: ${s.prefix.slice(0, 40)}`), [], "no line over the limit reached the daemon");
  assert.equal(end.isError, false);
  assert.equal(end.result.content[0].text, "Took a screenshot", "the rest of the result is untouched");
  assert.equal(end.result.content[1].type, "text");
  assert.match(end.result.content[1].text, NOT_RELAYED);
  const update = daemon.lines((m) => m.type === "tool_execution_update")[0];
  assert.match(update?.partialResult?.content?.[0]?.text ?? "", NOT_RELAYED, "partialResult.content too");
  const results = daemon.lines((m) => (m.type === "message_start" || m.type === "message_end") && m.message?.role === "toolResult");
  assert.equal(results.length, 2, "the toolResult message's start and end");
  for (const result of results) assert.match(result.message.content[1].text, NOT_RELAYED);
  const turn = daemon.lines((m) => m.type === "turn_end")[0];
  assert.match(turn.toolResults[0].content[1].text, NOT_RELAYED, "turn_end's toolResults too");
  assert.equal(daemon.lines((m) => imageBlocks(m.result?.content).length > 0 || imageBlocks(m.message?.content).length > 0).length, 0);
  const answer = daemon.lines((m) => m.type === "message_end" && m.message?.role === "assistant").at(-1);
  assert.equal(answer?.message.stopReason, "stop", "the run's final answer arrived after it");
  assert.deepEqual(host.errors, []);
});

test("a user message with a picture over the limit: message_start and message_end arrive with a text block in its place", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { extensions: [EXTENSION, pasteExtension(t)] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("/paste");
  await host.waitFor((s) => s.saw === "run_end", 20000);
  await daemon.waitFor((m) => m.type === "agent_end", 20000, "agent_end");
  assert.deepEqual(daemon.skipped.map((s) => s.bytes), [], "no line over the limit reached the daemon");
  const user = daemon.lines((m) => (m.type === "message_start" || m.type === "message_end") && m.message?.role === "user");
  assert.equal(user.length, 2);
  for (const line of user) {
    assert.equal(line.message.content[0].text, "look at this");
    assert.match(line.message.content[1].text, NOT_RELAYED);
  }
});

test("small images go through untouched", async (t) => {
  const { daemon, host } = await attached(t, { extraTools: [imageTool("screenshot", SMALL)] });
  const image = { type: "image", data: SMALL, mimeType: "image/png" };
  daemon.send({ type: "prompt", id: "look", message: "call: screenshot", images: [image] });
  assert.equal((await daemon.response("look")).success, true);
  await daemon.waitFor((m) => m.type === "agent_end", 5000, "agent_end");
  const user = daemon.lines((m) => m.type === "message_end" && m.message?.role === "user")[0];
  assert.deepEqual(user.message.content, [{ type: "text", text: "call: screenshot" }, image]);
  const end = daemon.lines((m) => m.type === "tool_execution_end")[0];
  assert.deepEqual(end.result.content, [{ type: "text", text: "Took a screenshot" }, image]);
  const turn = daemon.lines((m) => m.type === "turn_end")[0];
  assert.deepEqual(imageBlocks(turn.toolResults[0].content), [image]);
});

test("a line still over the limit without its images is not sent, and the log says which", async (t) => {
  const huge = "x".repeat(17 << 20); // text, nothing to take out
  const tool = {
    name: "dump",
    description: "Dumps a lot.",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: huge }], details: {} };
    },
  };
  const { home, daemon, host } = await attached(t, { extraTools: [tool] });
  host.type("call: dump");
  await host.waitFor((s) => s.saw === "run_end", 20000);
  await daemon.waitFor((m) => m.type === "agent_end", 20000, "agent_end");
  assert.deepEqual(daemon.skipped.map((s) => s.bytes), [], "nothing over the limit was written");
  assert.equal(daemon.lines((m) => m.type === "tool_execution_end").length, 0);
  const log = path.join(home, "logs", "extension.log");
  await waitUntil(() => fs.existsSync(log) && /not relaying a tool_execution_end line of 17\.0 MB/.test(fs.readFileSync(log, "utf8")), 5000, "the log line");
  assert.deepEqual(daemon.lines((m) => m.type === "tool_execution_start").map((m) => m.toolName), ["dump"], "the small lines around it went");
  assert.deepEqual(host.errors, []);
});

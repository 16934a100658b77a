// A prompt that an extension loaded after ours rewrites in its `input` handler (spec §5.3) reaches
// pi as a user message whose text ours never saw. pi delivers its queued steers one per turn
// (§5.1, pi-rpc.md §5), so such a message can come while a chat's steer still waits in pi: it must
// not be taken for the chat's. A stop shows what the extension believes pi still holds: its
// prompts_delivered (reason "stop") names the chat prompts pi has queued (docs/EXTENSION.md).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { EXTENSION, FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

const SUFFIX = " (answer briefly)";

/** Another extension whose `input` handler appends to terminal prompts, or to every prompt. */
function rewriter(t: TestContext, which: "terminal" | "all"): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-rewrite-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "rewrite.ts");
  const condition = which === "terminal" ? `event.source !== "interactive"` : "false";
  fs.writeFileSync(
    file,
    `export default function (pi: any): void {
  pi.on("input", (event: any) => (${condition} ? undefined : { action: "transform", text: event.text + ${JSON.stringify(SUFFIX)} }));
}
`,
  );
  return file;
}

/**
 * A terminal run, then a terminal steer and a chat steer queued behind it, in that order; both
 * wait in pi's steering queue and come one per turn, the terminal's first.
 */
async function terminalThenChatSteer(t: TestContext, which: "terminal" | "all") {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { extensions: [EXTENSION, rewriter(t, which)] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type(`slow: ${"word ".repeat(15)}`);
  await host.waitFor((s) => s.saw === "user_message");
  const aside = `slow: aside ${"word ".repeat(10)}`;
  host.type(aside);
  await sleep(20);
  daemon.send({ type: "steer", id: "s", message: "look here" });
  assert.equal((await daemon.response("s")).success, true);
  const chatText = which === "all" ? `look here${SUFFIX}` : "look here";
  await host.waitFor((s) => s.saw === "user_message" && s.text === aside + SUFFIX, 5000, "pi to take the terminal's steer");
  return { daemon, host, chatText };
}

async function stop(daemon: FakeDaemon): Promise<void> {
  await sleep(100);
  daemon.send({ type: "abort", id: "stop" });
  assert.equal((await daemon.response("stop")).success, true);
  await sleep(100);
}

for (const which of ["terminal", "all"] as const) {
  test(`a terminal steer that an extension loaded after ours rewrites (${which === "all" ? "the chat's too" : "only the terminal's"}) is not taken for the chat steer queued behind it`, async (t) => {
    const { daemon, host, chatText } = await terminalThenChatSteer(t, which);
    assert.equal(host.seen.some((s) => s.saw === "user_message" && s.text === chatText), false, "pi takes one steer per turn");
    await stop(daemon);
    // pi still holds the chat's steer (its abort keeps the queues): the chat hears it runs later.
    assert.deepEqual(
      daemon.lines((m) => m.type === "prompts_delivered").map((m) => [m.reason, m.texts]),
      [["stop", ["look here"]]],
    );
  });
}

test("a chat steer and a terminal steer, both rewritten after ours: once pi took both, none is reported still queued", async (t) => {
  const { daemon, host, chatText } = await terminalThenChatSteer(t, "all");
  await host.waitFor((s) => s.saw === "user_message" && s.text === chatText, 5000, "pi to take the chat's steer");
  await stop(daemon);
  assert.deepEqual(daemon.lines((m) => m.type === "prompts_delivered"), []);
});

test("two chat steers that an extension loaded after ours rewrites: the one pi took is known, the other is still queued", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t, { extensions: [EXTENSION, rewriter(t, "all")] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type(`slow: ${"word ".repeat(15)}`);
  await host.waitFor((s) => s.saw === "user_message");
  daemon.send({ type: "steer", id: "a", message: `slow: first ${"word ".repeat(10)}` });
  assert.equal((await daemon.response("a")).success, true);
  daemon.send({ type: "steer", id: "b", message: "second" });
  assert.equal((await daemon.response("b")).success, true);
  await host.waitFor((s) => s.saw === "user_message" && s.text.startsWith("slow: first"), 5000, "pi to take the first steer");
  await stop(daemon);
  assert.deepEqual(
    daemon.lines((m) => m.type === "prompts_delivered").map((m) => [m.reason, m.texts]),
    [["stop", ["second"]]],
  );
});

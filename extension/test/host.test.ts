// The fake pi host's own quirks, checked with tiny throwaway extensions: if the fake stopped
// behaving like pi, the extension's tests above would prove nothing.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { PiHost } from "../../Tests/Fakes/pi-extension-host/host.ts";
import { waitUntil } from "./support.ts";

/** Writes an extension module whose factory body is `body` (`pi` in scope; `globalThis.probe` to report). */
function extension(t: TestContext, body: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-ext-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, "probe.ts");
  fs.writeFileSync(file, `export default function (pi: any): void {\n${body}\n}\n`);
  return file;
}

async function hostWith(t: TestContext, body: string): Promise<PiHost> {
  const host = await PiHost.create({ extensions: [extension(t, body)] });
  t.after(() => host.shutdown());
  return host;
}

declare global {
  var probe: any[];
}

test("actions during the factory throw, as before pi binds the session", async (t) => {
  const host = await hostWith(t, "pi.getAllTools();");
  assert.equal(host.errors.length, 1);
  assert.match(host.errors[0].error, /Extension runtime not initialized/);
  assert.equal(host.errors[0].event, "load");
});

test("two sendUserMessage calls while idle collide, even with deliverAs", async (t) => {
  const host = await hostWith(
    t,
    `pi.on("session_start", () => { pi.sendUserMessage("one", { deliverAs: "followUp" }); pi.sendUserMessage("two", { deliverAs: "followUp" }); });`,
  );
  await host.start();
  await host.waitFor((s) => s.saw === "run_end");
  const error = await host.waitFor((s) => s.saw === "extension_error");
  assert.equal(error.event, "send_user_message");
  assert.match(error.error, /Agent is already processing a prompt/);
});

test("sendUserMessage while streaming needs deliverAs", async (t) => {
  const host = await hostWith(t, `pi.on("agent_start", () => { pi.sendUserMessage("no behaviour"); });`);
  await host.start();
  host.type("go");
  const error = await host.waitFor((s) => s.saw === "extension_error");
  assert.match(error.error, /Specify streamingBehavior/);
});

test("handlers are awaited in order; a throw is reported and dispatch goes on; agent_end sees pi idle", async (t) => {
  globalThis.probe = [];
  const host = await hostWith(
    t,
    `pi.on("agent_start", async () => { await new Promise((r) => setTimeout(r, 50)); globalThis.probe.push("slow"); });
     pi.on("agent_start", () => { globalThis.probe.push("fast"); throw new Error("boom"); });
     pi.on("turn_start", () => { globalThis.probe.push("turn"); });
     pi.on("agent_end", (_e: any, ctx: any) => { globalThis.probe.push("idle:" + ctx.isIdle()); });`,
  );
  await host.start();
  host.type("go");
  await host.waitFor((s) => s.saw === "run_end");
  assert.deepEqual(globalThis.probe, ["slow", "fast", "turn", "idle:true"]);
  assert.equal(host.errors[0].event, "agent_start");
});

test("input transforms chain across extensions, and the first handled ends the dispatch (§5.3)", async (t) => {
  globalThis.probe = [];
  const first = extension(t, `pi.on("input", (e: any) => { globalThis.probe.push("a:" + e.text); return { action: "transform", text: e.text + " +a" }; });`);
  const second = extension(
    t,
    `pi.on("input", (e: any) => { globalThis.probe.push("b:" + e.text); return e.text.startsWith("drop") ? { action: "handled" } : { action: "transform", text: e.text + " +b" }; });
     pi.on("input", (e: any) => { globalThis.probe.push("c:" + e.text); });`,
  );
  const host = await PiHost.create({ extensions: [first, second] });
  t.after(() => host.shutdown());
  await host.start();
  host.type("go");
  await host.waitFor((s) => s.saw === "run_end");
  assert.deepEqual(globalThis.probe, ["a:go", "b:go +a", "c:go +a +b"]);
  assert.equal(host.seen.find((s) => s.saw === "user_message")?.text, "go +a +b");
  globalThis.probe = [];
  host.type("drop me");
  await waitUntil(() => globalThis.probe.length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(globalThis.probe, ["a:drop me", "b:drop me +a"], "no handler after the one that handled it");
  assert.equal(host.seen.filter((s) => s.saw === "user_message").length, 1);
});

test("dialogs: an aborted signal shows nothing, a second dialog orphans the first", async (t) => {
  globalThis.probe = [];
  const host = await hostWith(
    t,
    `pi.on("session_start", (_e: any, ctx: any) => {
       const gone = new AbortController(); gone.abort();
       ctx.ui.select("never shown", ["a"], { signal: gone.signal }).then((v: any) => globalThis.probe.push("aborted:" + v));
       const first = new AbortController();
       globalThis.probe.push(first);
       ctx.ui.select("first", ["a"], { signal: first.signal }).then((v: any) => globalThis.probe.push("first:" + v));
       ctx.ui.input("second").then((v: any) => globalThis.probe.push("second:" + v));
     });`,
  );
  await host.start();
  await host.waitFor((s) => s.saw === "dialog" && s.title === "second");
  assert.equal(host.seen.some((s) => s.saw === "dialog" && s.title === "never shown"), false);
  await host.waitFor((s) => s.saw === "dialog_orphaned" && s.title === "first");
  host.answer("typed");
  await waitUntil(() => globalThis.probe.includes("second:typed"), 5000, "the second dialog's answer");
  assert.deepEqual(globalThis.probe.slice(1), ["aborted:undefined", "second:typed"], "the orphan is still pending");
  globalThis.probe[0].abort();
  await waitUntil(() => globalThis.probe.length > 3, 5000, "the orphan to settle once aborted");
  assert.deepEqual(globalThis.probe.slice(3), ["first:undefined"]);
});

test("the editor takes no signal: an aborted one still shows it", async (t) => {
  const host = await hostWith(
    t,
    `pi.on("session_start", (_e: any, ctx: any) => { const gone = new AbortController(); gone.abort(); ctx.ui.editor("notes", "", { signal: gone.signal }); });`,
  );
  await host.start();
  await host.waitFor((s) => s.saw === "dialog" && s.method === "editor" && s.title === "notes");
});

test("the session file appears after the first answer's message_end handlers ran", async (t) => {
  globalThis.probe = [];
  const host = await hostWith(
    t,
    `const fs = process.getBuiltinModule("node:fs");
     pi.on("message_end", (e: any, ctx: any) => { globalThis.probe.push(e.message.role + ":" + fs.existsSync(ctx.sessionManager.getSessionFile())); });`,
  );
  await host.start();
  host.type("hello");
  await host.waitFor((s) => s.saw === "run_end");
  await host.idle();
  assert.deepEqual(globalThis.probe, ["user:false", "assistant:false"]);
  assert.equal(fs.existsSync(host.sessionFile), true);
});

test("gappy: the deltas miss the last word; text_end and message_end carry the whole answer (§11 trap 18)", async (t) => {
  globalThis.probe = [];
  const host = await hostWith(
    t,
    `pi.on("message_update", (e) => { if (e.assistantMessageEvent.type === "text_delta") globalThis.probe.push(["delta", e.assistantMessageEvent.delta]); if (e.assistantMessageEvent.type === "text_end") globalThis.probe.push(["end", e.assistantMessageEvent.content]); });
     pi.on("message_end", (e) => { if (e.message.role === "assistant") globalThis.probe.push(["message", e.message.content[0].text]); });`,
  );
  await host.start();
  host.type("gappy: three words here");
  await host.waitFor((s) => s.saw === "run_end");
  const deltas = globalThis.probe.filter(([kind]) => kind === "delta").map(([, text]) => text).join("");
  assert.equal(deltas, "Echo: gappy: three words ");
  assert.deepEqual(globalThis.probe.filter(([kind]) => kind !== "delta"), [
    ["end", "Echo: gappy: three words here"],
    ["message", "Echo: gappy: three words here"],
  ]);
});

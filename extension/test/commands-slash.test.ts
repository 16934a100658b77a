// Slash commands in a chat's prompt to a terminal session (spec §11 trap 8): pi's RPC prompt
// expands /skill: and templates and runs extension commands; sendUserMessage does none of it,
// so the extension expands what it can from getCommands() and refuses the rest.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { EXTENSION, FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

const BRIDGE = path.resolve(import.meta.dirname, "..", "..", "Tests", "Fakes", "pi-extension-host", "extensions", "bridge.ts");

/** A session folder with a project skill and a project prompt template, as pi finds them. */
function workspace(t: TestContext): string {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "prd-slash-"));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  const skill = path.join(cwd, ".pi", "skills", "review");
  fs.mkdirSync(skill, { recursive: true });
  fs.writeFileSync(
    path.join(skill, "SKILL.md"),
    "---\nname: review\ndescription: Review a change carefully.\n---\n\n# Review\r\nRead every line of the diff.\n",
  );
  fs.mkdirSync(path.join(cwd, ".pi", "prompts"), { recursive: true });
  fs.writeFileSync(path.join(cwd, ".pi", "prompts", "fix.md"), "---\ndescription: Fix an issue\n---\nFix issue $1 ($2) then ${@:3} and: $ARGUMENTS\n");
  return cwd;
}

async function attachedHost(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const cwd = workspace(t);
  const host = await startHost(t, { cwd, extensions: [EXTENSION, BRIDGE] });
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host, cwd };
}

test("a chat's /skill:name args reaches pi expanded as pi's RPC prompt expands it", async (t) => {
  const { daemon, host, cwd } = await attachedHost(t);
  daemon.send({ type: "prompt", id: "s", message: "/skill:review src/app.ts please" });
  assert.equal((await daemon.response("s")).success, true);
  const file = path.join(cwd, ".pi", "skills", "review", "SKILL.md");
  const expected =
    `<skill name="review" location="${file}">\nReferences are relative to ${path.dirname(file)}.\n\n# Review\nRead every line of the diff.\n</skill>\n\nsrc/app.ts please`;
  const user = await host.waitFor((s) => s.saw === "user_message");
  assert.equal(user.text, expected);
  // The same text typed at the terminal, which pi expands itself, reads the same.
  await host.waitFor((s) => s.saw === "run_end");
  host.type("/skill:review src/app.ts please");
  await host.waitFor((s) => s.saw === "user_message" && s.source === "interactive");
  assert.equal(host.seen.filter((s) => s.saw === "user_message").at(-1)!.text, expected);
  assert.deepEqual(host.errors, []);
});

test("a chat's prompt template is expanded with pi's argument rules, quotes included", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "steer", id: "f", message: `/fix 42 "the login page" a b` });
  assert.equal((await daemon.response("f")).success, true);
  const user = await host.waitFor((s) => s.saw === "user_message");
  assert.equal(user.text, "Fix issue 42 (the login page) then a b and: 42 the login page a b");
});

test("another extension's command from a chat is refused, named, and nothing reaches the model", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "prompt", id: "b", message: "/bridge:status now" });
  const refused = await daemon.response("b");
  assert.equal(refused.success, false);
  assert.equal(refused.error, "/bridge:status is a terminal command (extension bridge): type it in the terminal");
  daemon.send({ type: "follow_up", id: "r", message: "/relay status" });
  assert.equal((await daemon.response("r")).error, "/relay is a terminal command (extension pi-relayd): type it in the terminal");
  await sleep(100);
  assert.equal(host.sentUserMessages.length, 0);
  assert.equal(host.seen.filter((s) => s.saw === "user_message").length, 0);
});

test("pi's built-in TUI commands from a chat are refused with the chat's equivalent where there is one", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "prompt", id: "t", message: "/tree" });
  assert.equal((await daemon.response("t")).error, "/tree is a pi terminal command: type it in the terminal");
  daemon.send({ type: "prompt", id: "c", message: "/compact keep the tests" });
  assert.equal(
    (await daemon.response("c")).error,
    "/compact is a pi terminal command: type it in the terminal (or use /compact in the chat)",
  );
  await sleep(100);
  assert.equal(host.sentUserMessages.length, 0);
});

test("other text with a leading slash goes to pi as it is", async (t) => {
  const { daemon, host } = await attachedHost(t);
  daemon.send({ type: "prompt", id: "p", message: "/etc/hosts looks odd" });
  assert.equal((await daemon.response("p")).success, true);
  assert.equal((await host.waitFor((s) => s.saw === "user_message")).text, "/etc/hosts looks odd");
  await host.waitFor((s) => s.saw === "run_end");
  daemon.send({ type: "prompt", id: "u", message: "/skill:missing do it" });
  assert.equal((await daemon.response("u")).success, true);
  await host.waitFor((s) => s.saw === "user_message" && s.text === "/skill:missing do it");
});

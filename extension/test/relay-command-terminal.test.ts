// `/relay` in the terminal (seeds 001, 002): status, disconnect and connect without unloading,
// and pair, which asks the daemon for a code that binds the claiming chat to this session.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeDaemon, makeHome, sleep, startHost } from "./support.ts";

const gates = { timeoutSeconds: 300, rules: [{ name: "rm-rf", tools: ["bash"], command: "rm\\s+-(rf|fr)\\b" }] };

async function attachedHost(t: TestContext, watchers: string[] = []) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { watchers, approvals: gates, approve: () => new Promise(() => {}) });
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && String(s.text).startsWith("relay: "));
  t.after(() => (globalThis as any)[Symbol.for("pi-relayd.disconnected")] = false);
  return { daemon, host, home };
}

const notices = (host: any) => host.seen.filter((s: any) => s.saw === "notify").map((s: any) => s.message as string);

test("/relay is a terminal command with completions for its subcommands", async (t) => {
  makeHome(t);
  const host = await startHost(t);
  const command = (host as any).extensions[0].commands.get("relay");
  assert.ok(command, "/relay registered");
  assert.deepEqual(command.getArgumentCompletions("").map((c: any) => c.value), ["status", "connect", "disconnect", "pair"]);
  assert.deepEqual(command.getArgumentCompletions("dis").map((c: any) => c.value), ["disconnect"]);
  assert.equal(command.getArgumentCompletions("pair tele"), null);
  assert.ok(host.slashCommands().some((c: any) => c.name === "relay" && c.source === "extension"));
});

test("/relay status: the link, the daemon's session, the watching chats, the approvals waiting", async (t) => {
  const { host } = await attachedHost(t, ["telegram"]);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on telegram");
  host.seen.length = 0;
  host.type("/relay status");
  const shown = await host.waitFor((s) => s.saw === "notify");
  const piSessionID = host.sessionId;
  const hex = piSessionID.replace(/[^0-9a-f]/gi, "").slice(0, 12);
  assert.match(shown.message, /^relay: attached \(/);
  assert.match(shown.message, new RegExp(`session: app \\(t-${hex}\\), pi session ${piSessionID}`));
  assert.match(shown.message, /watched on: telegram/);
  assert.match(shown.message, /approvals pending: 0$/);
  assert.equal(host.seen.filter((s) => s.saw === "user_message").length, 0, "nothing reached the model");
});

test("/relay disconnect detaches and stays away across a daemon restart; /relay connect attaches again", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("/relay disconnect");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: disconnected (/relay connect)");
  await waitEnded(daemon);
  assert.match(notices(host).at(-1)!, /disconnected; chats no longer see this session/);
  // The daemon restarts: the extension does not come back on its own.
  await daemon.stop();
  await daemon.listen();
  await sleep(1500);
  assert.equal(daemon.attaches.length, 1, "no attach while disconnected");
  host.type("/relay status");
  await host.waitFor((s) => s.saw === "notify" && String(s.message).startsWith("relay: disconnected"));

  host.type("/relay connect");
  await daemon.waitFor((m) => m.method === "attach", 5000, "the attach after /relay connect", 2);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached" && host.seen.indexOf(s) > 0);
  assert.deepEqual(host.errors, []);
});

test("disconnected, the gates keep their rules and ask at the terminal alone (fail closed)", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("/relay disconnect");
  await waitEnded(daemon);
  host.type("run: rm -rf build");
  const dialog = await host.waitFor((s) => s.saw === "dialog");
  assert.match(dialog.title, /rm-rf/);
  host.answer("Deny");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.match(end.text, /denied bash: denied at the terminal/);
  assert.equal(daemon.lines((m) => m.method === "approval").length, 0, "the daemon was not asked");
});

test("/relay disconnect holds across /reload", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("/relay disconnect");
  await waitEnded(daemon);
  await host.reload();
  await sleep(800);
  assert.equal(daemon.attaches.length, 1, "the reloaded extension stays disconnected");
  host.type("/relay connect");
  await daemon.waitFor((m) => m.method === "attach", 5000, "the attach after /relay connect", 2);
});

test("/relay pair MESSENGER LABEL shows the daemon's code and link for this session", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("/relay pair telegram docs team");
  const asked = await daemon.waitFor((m) => m.method === "pair.session");
  const sessionID = `t-${host.sessionId.replace(/[^0-9a-f]/gi, "").slice(0, 12)}`;
  assert.deepEqual(asked.params, { sessionID, messenger: "telegram", label: "docs team" });
  const shown = await host.waitFor((s) => s.saw === "notify" && String(s.message).startsWith("Pairing code"));
  assert.equal(
    shown.message,
    [
      "Pairing code for telegram: ABCDEFGHJK",
      "Send in a direct message to @relay_bot:  /pair ABCDEFGHJK",
      "or open:  https://t.me/relay_bot?start=pair-ABCDEFGHJK",
      'The chat that claims it watches this session as "docs team". It works once, for 10 minutes.',
    ].join("\n"),
  );
  assert.deepEqual(host.errors, []);
});

test("/relay pair while disconnected says to connect first; a daemon error is shown, not thrown", async (t) => {
  const { daemon, host } = await attachedHost(t);
  host.type("/relay disconnect");
  await waitEnded(daemon);
  host.type("/relay pair");
  await host.waitFor((s) => s.saw === "notify" && s.message === "relay: not attached (disconnected); /relay connect first");
  host.type("/relay frobnicate");
  await host.waitFor((s) => s.saw === "notify" && String(s.message).startsWith("relay: unknown subcommand frobnicate"));
  assert.deepEqual(host.errors, []);
});

async function waitEnded(daemon: FakeDaemon): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!daemon.connections.every((c) => c.ended)) {
    if (Date.now() > deadline) throw new Error("the attach connection did not end");
    await sleep(20);
  }
}

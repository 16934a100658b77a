// Approval gates: rules matched where the call happens, the daemon asked on a connection of its
// own, the terminal asked beside it, and a child that cannot reach the daemon denied.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { globToRegExp, matchingRule, type Gates } from "../pi-relayd/index.ts";
import { FakeDaemon, makeHome, startHost, waitUntil } from "./support.ts";

const gates: Gates = {
  timeoutSeconds: 300,
  rules: [
    { name: "rm-rf", tools: ["bash"], command: "rm\\s+-(rf|fr)\\b" },
    { name: "git-push", tools: ["bash"], command: "git\\s+push" },
    { name: "outside", tools: ["write", "edit"], outsideCwd: true },
    { name: "secrets", tools: ["write", "edit", "read"], paths: [".env*", "~/.ssh/**"] },
    { name: "any-deploy", tools: ["deploy"] },
  ],
};

test("rules: a bash pattern, a path outside the folder, globs by name and under home, a bare tool", () => {
  const cwd = "/work/app";
  const home = "/home/me";
  const rule = (tool: string, input: object) => matchingRule(gates, tool, input, cwd, home)?.name;
  assert.equal(rule("bash", { command: "rm -rf build" }), "rm-rf");
  assert.equal(rule("bash", { command: "ls -la" }), undefined);
  assert.equal(rule("bash", { command: "git push origin main" }), "git-push");
  assert.equal(rule("write", { path: "src/main.ts" }), undefined);
  assert.equal(rule("write", { path: "../other/file.ts" }), "outside");
  assert.equal(rule("edit", { path: "/etc/hosts" }), "outside");
  assert.equal(rule("write", { path: ".env.local" }), "secrets");
  assert.equal(rule("read", { path: "config/.env" }), "secrets");
  assert.equal(rule("read", { path: "src/environment.ts" }), undefined);
  assert.equal(rule("read", { path: "~/.ssh/id_ed25519" }), "secrets");
  assert.equal(rule("deploy", {}), "any-deploy");
  assert.equal(rule("read", { path: "README.md" }), undefined);
  assert.ok(globToRegExp("src/**/*.ts", cwd, home).test("/work/app/src/a/b.ts"));
  assert.ok(globToRegExp("src/**/*.ts", cwd, home).test("/work/app/src/b.ts"));
  assert.ok(!globToRegExp("src/*.ts", cwd, home).test("/work/app/src/a/b.ts"));
});

test("a rule whose conditions the call cannot be tested on asks: an extension's tool without command or path arguments", () => {
  const cwd = "/work/app";
  const home = "/home/me";
  const undecidable: Gates = {
    timeoutSeconds: 300,
    rules: [
      { name: "remote-rm", tools: ["ssh_exec"], command: "rm\\s" },
      { name: "uploads", tools: ["upload"], paths: ["~/.ssh/**"] },
      { name: "shell-or-write", tools: ["bash", "write"], command: "curl", paths: [".env*"] },
    ],
  };
  const rule = (tool: string, input: object) => matchingRule(undecidable, tool, input, cwd, home)?.name;
  // Neither `command` nor `path`: nothing to test, so the gate asks rather than lets it through.
  assert.equal(rule("ssh_exec", { cmd: "rm -rf /" }), "remote-rm");
  assert.equal(rule("upload", { files: ["~/.ssh/id_rsa"] }), "uploads");
  // Where the argument is there, the rule decides as before.
  assert.equal(rule("ssh_exec", { command: "ls" }), undefined);
  assert.equal(rule("ssh_exec", { command: "rm -rf /" }), "remote-rm");
  assert.equal(rule("upload", { path: "notes.txt" }), undefined);
  // One condition testable is enough to decide: bash on its command, write on its path.
  assert.equal(rule("bash", { command: "ls" }), undefined);
  assert.equal(rule("write", { path: "src/a.ts" }), undefined);
  assert.equal(rule("write", { path: ".env" }), "shell-or-write");
  // pi's own tools never take what the rule looks at for them: no question for every call.
  const builtins: Gates = {
    timeoutSeconds: 300,
    rules: [
      { name: "paths-on-bash", tools: ["bash", "read"], paths: ["~/.ssh/**"] },
      { name: "command-on-write", tools: ["write"], command: "curl" },
    ],
  };
  assert.equal(matchingRule(builtins, "bash", { command: "ls" }, cwd, home)?.name, undefined);
  assert.equal(matchingRule(builtins, "read", { path: "~/.ssh/id_rsa" }, cwd, home)?.name, "paths-on-bash");
  assert.equal(matchingRule(builtins, "write", { path: "a.ts", content: "x" }, cwd, home)?.name, undefined);
});

/** A pi-relayd child: the daemon's marker, its session id and gates in the environment. */
function asChild(t: TestContext, home: string) {
  const saved = { ...process.env };
  process.env.PI_RELAYD_CHILD = "1";
  process.env.PI_RELAYD_SESSION = "s-child";
  process.env.PI_RELAYD_APPROVALS = JSON.stringify(gates);
  process.env.PI_RELAYD_HOME = home;
  t.after(() => {
    for (const key of ["PI_RELAYD_CHILD", "PI_RELAYD_SESSION", "PI_RELAYD_APPROVALS"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });
}

test("a child whose daemon cannot be reached: a gated call is denied, others run", async (t) => {
  const home = makeHome(t);
  asChild(t, home);
  const host = await startHost(t);
  host.type("run: rm -rf build");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.match(end.text, /^The tool failed: pi-relayd's approval gate "rm-rf" denied bash: pi-relayd cannot be reached/);
  host.type("run: ls");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: ran ls");
  assert.deepEqual(host.errors, []);
});

test("a child asks the daemon, which decides for the chats", async (t) => {
  const home = makeHome(t);
  asChild(t, home);
  let approve = true;
  const daemon = await FakeDaemon.start(t, home, {
    approve: () => (approve ? { allowed: true, outcome: "approved_once", by: "alice" } : { allowed: false, outcome: "denied", by: "alice", reason: "alice denied it" }),
  });
  const host = await startHost(t);
  host.type("run: git push");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: ran git push");
  const asked = await daemon.waitFor((m) => m.method === "approval");
  assert.equal(asked.params.session, "s-child");
  assert.equal(asked.params.rule, "git-push");
  assert.equal(asked.params.toolName, "bash");
  assert.deepEqual(asked.params.input, { command: "git push" });
  assert.equal(host.seen.some((s) => s.saw === "dialog"), false, "a child has no terminal to ask");

  approve = false;
  host.type("run: git push --force");
  const end = await host.waitFor((s) => s.saw === "run_end" && s.text !== "Done: ran git push");
  assert.equal(end.text, `The tool failed: pi-relayd's approval gate "git-push" denied bash: alice denied it`);
});

async function attachedWithGates(t: TestContext, approve?: (params: any) => any) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: gates, approve });
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  return { daemon, host };
}

test("a terminal session: a chat's approval closes the terminal's dialog and the call runs", async (t) => {
  let release: (value: any) => void = () => {};
  const decided = new Promise((resolve) => (release = resolve));
  const { daemon, host } = await attachedWithGates(t, () => decided);
  host.type("write: ../outside.txt");
  const dialog = await host.waitFor((s) => s.saw === "dialog");
  assert.deepEqual(dialog.options, ["Approve once", "Approve for session", "Deny"]);
  assert.match(dialog.title, /approve write\? \(rule outside\)/);
  const asked = await daemon.waitFor((m) => m.method === "approval");
  assert.equal(asked.params.id.length > 0, true);
  release({ allowed: true, outcome: "approved_once", by: "alice (42) on discord" });
  await host.waitFor((s) => s.saw === "dialog_closed" && s.by === "abort");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: write ../outside.txt");
  assert.deepEqual(host.errors, []);
});

test("a terminal session: the terminal answers first and the daemon hears it", async (t) => {
  const { daemon, host } = await attachedWithGates(t, () => new Promise(() => {}));
  host.type("run: rm -rf /tmp/x");
  await host.waitFor((s) => s.saw === "dialog");
  const asked = await daemon.waitFor((m) => m.method === "approval");
  host.answer("Deny");
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(end.text, `The tool failed: pi-relayd's approval gate "rm-rf" denied bash: denied at the terminal`);
  const answered = await daemon.waitFor((m) => m.method === "answer");
  assert.deepEqual(answered.params, { session: asked.params.session, id: asked.params.id, value: "Deny", by: "the terminal" });
});

test("a terminal session nobody watches: the terminal alone decides, and the daemon logs it", async (t) => {
  const { daemon, host } = await attachedWithGates(t, () => ({ allowed: false, outcome: "terminal_only", by: "the terminal", reason: "no chat watches" }));
  host.type("run: git push");
  await host.waitFor((s) => s.saw === "dialog");
  const approval = await daemon.waitFor((m) => m.method === "approval");
  // The extension hangs up the approval's connection the moment it reads the daemon's answer:
  // once it has, the daemon's "terminal only" is in before the terminal answers.
  const carrier = daemon.received.find((r) => r.message === approval)?.connection;
  await waitUntil(() => carrier?.ended === true, 5000, "the extension to read the daemon's answer");
  host.answer("Approve for session");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: ran git push");
  const decided = await daemon.waitFor((m) => m.method === "approval-decided");
  assert.equal(decided.params.choice, "Approve for session");
  assert.equal(decided.params.rule, "git-push");
});

test("a terminal session whose daemon is gone: the terminal still asks, with the rules it had", async (t) => {
  const { daemon, host } = await attachedWithGates(t);
  await daemon.stop();
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  host.type("run: rm -rf build");
  await host.waitFor((s) => s.saw === "dialog" && String(s.title).includes("rm-rf"));
  host.answer("Approve once");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: ran rm -rf build");
  assert.deepEqual(host.errors, []);
});

test("a gate waiting while the daemon restarts is asked in the chats again after the re-attach", async (t) => {
  const { daemon, host } = await attachedWithGates(t, () => new Promise(() => {})); // nobody answers yet
  host.type("run: git push");
  await host.waitFor((s) => s.saw === "dialog");
  const first = await daemon.waitFor((m) => m.method === "approval");
  await daemon.stop(); // an upgrade, a crash
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  daemon.options.approve = () => ({ allowed: true, outcome: "approved_once", by: "alice (telegram)" });
  await daemon.listen();
  const again = await daemon.waitFor((m) => m.method === "approval", 5000, "the approval asked again", 2);
  assert.equal(again.params.toolName, "bash");
  assert.equal(again.params.rule, "git-push");
  assert.deepEqual(again.params.input, first.params.input);
  assert.equal(again.params.session, first.params.session, "the session as the new daemon knows it");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: ran git push");
  const closed = host.seen.filter((s) => s.saw === "dialog_closed");
  assert.deepEqual(closed.map((s) => s.by), ["abort"], "the terminal's dialog stayed open until the chat answered");
  assert.equal(host.executedTools.filter((call) => call.tool === "bash").length, 1, "run once");
  assert.equal(daemon.lines((m) => m.method === "approval").length, 2);
  assert.deepEqual(host.errors, []);
});

test("a gate asked again after the daemon dropped the connection and decided by nobody is denied at its timeout, and the chats' copy closed", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: { ...gates, timeoutSeconds: 1 }, approve: () => new Promise(() => {}) });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  host.type("run: git push");
  await daemon.waitFor((m) => m.method === "approval");
  daemon.dropConnections(); // the daemon lets its sessions go, and takes them back
  const again = await daemon.waitFor((m) => m.method === "approval", 5000, "the approval asked again", 2);
  const end = await host.waitFor((s) => s.saw === "run_end", 5000);
  assert.equal(end.text, `The tool failed: pi-relayd's approval gate "git-push" denied bash: nobody approved it at the terminal`);
  assert.equal(host.executedTools.length, 0);
  const answered = await daemon.waitFor((m) => m.method === "answer");
  assert.deepEqual(answered.params, { session: again.params.session, id: again.params.id, value: "Deny", by: "the terminal" });
});

test("no gates without a daemon that sent them: an unattached terminal pi runs everything", async (t) => {
  makeHome(t);
  const host = await startHost(t);
  host.type("run: rm -rf build");
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: ran rm -rf build");
  assert.equal(host.seen.some((s) => s.saw === "dialog"), false);
});

test("relay tools: always offered, 'no chat is watching' until a chat watches, then they reach the daemon", async (t) => {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home);
  const host = await startHost(t);
  await daemon.waitFor((m) => m.method === "attach");
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  assert.ok(host.tool("relay_notify") && host.tool("relay_send_file") && host.tool("spawn_session"), "registered");
  host.type('call: relay_notify {"text":"halfway"}');
  const hidden = await host.waitFor((s) => s.saw === "run_end");
  assert.equal(hidden.text, "The tool failed: no chat is watching this session");

  daemon.send({ type: "relay_status", watchers: ["discord"] });
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: watching on discord");
  host.type('call: relay_notify {"text":"halfway"}');
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: posted to 1 chat(s)");
  const notified = await daemon.waitFor((m) => m.method === "relay-notify");
  assert.equal(notified.params.text, "halfway");
  assert.match(notified.params.session, /^t-/);
  host.type('call: relay_send_file {"path":"out/report.md","caption":"the report"}');
  await host.waitFor((s) => s.saw === "run_end" && s.text === "Done: sent out/report.md to 1 chat(s)");
  const sent = await daemon.waitFor((m) => m.method === "relay-file");
  assert.deepEqual({ path: sent.params.path, caption: sent.params.caption }, { path: "out/report.md", caption: "the report" });
  host.type('call: spawn_session {"cwd":"web","name":"web-tests","prompt":"run the web tests"}');
  await host.waitFor(
    (s) => s.saw === "run_end" && s.text === "Done: started session web-tests (id c0ffee01) in /work/web in a new thread, working on its first task",
  );
  const spawned = await daemon.waitFor((m) => m.method === "spawn-session");
  assert.deepEqual(
    { cwd: spawned.params.cwd, name: spawned.params.name, prompt: spawned.params.prompt },
    { cwd: "web", name: "web-tests", prompt: "run the web tests" },
  );
  assert.match(spawned.params.session, /^t-/);
});

test("relay tools in a child: offered, and refused clearly when the daemon cannot be reached", async (t) => {
  const home = makeHome(t);
  asChild(t, home);
  const host = await startHost(t);
  host.type('call: relay_notify {"text":"hello"}');
  const end = await host.waitFor((s) => s.saw === "run_end");
  assert.match(end.text, /^The tool failed: pi-relayd: /);
});

// A gate never fails open: after /reload the last rules (and the approvals for the session) hold
// even with the daemon away (spec §11 trap 16), and "Approve for session" ends with the session:
// /new, /resume and /fork start without it.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import type { Gates } from "../pi-relayd/index.ts";
import { FakeDaemon, makeHome, startHost } from "./support.ts";

const gates: Gates = {
  timeoutSeconds: 300,
  rules: [
    { name: "rm-rf", tools: ["bash"], command: "rm\\s+-(rf|fr)\\b" },
    { name: "git-push", tools: ["bash"], command: "git\\s+push" },
  ],
};

/** Attached with the rules, then the daemon goes away: the terminal alone decides. */
async function rulesThenDaemonGone(t: TestContext) {
  const home = makeHome(t);
  const daemon = await FakeDaemon.start(t, home, { approvals: gates });
  const host = await startHost(t);
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: attached");
  await daemon.stop();
  await host.waitFor((s) => s.saw === "status" && s.text === "relay: offline");
  return host;
}

function runEnds(host: any): number {
  return host.seen.filter((s: any) => s.saw === "run_end").length;
}

/** Types `text` and returns whether a gate's dialog opened before the run ended (answered with `answer`). */
async function gated(host: any, text: string, answer = "Approve once"): Promise<{ dialog: boolean; end: string }> {
  const dialogs = host.seen.filter((s: any) => s.saw === "dialog").length;
  const ends = runEnds(host);
  host.type(text);
  const sight = await host.waitFor(
    (s: any) => host.seen.filter((x: any) => x.saw === "dialog").length > dialogs || runEnds(host) > ends,
  );
  void sight;
  const dialog = host.seen.filter((s: any) => s.saw === "dialog").length > dialogs;
  if (dialog) host.answer(answer);
  await host.waitFor(() => runEnds(host) > ends);
  return { dialog, end: host.seen.filter((s: any) => s.saw === "run_end").at(-1).text };
}

test("after /reload with the daemon away, the rules the last attach sent still gate", async (t) => {
  const host = await rulesThenDaemonGone(t);
  assert.equal((await gated(host, "run: rm -rf build")).dialog, true, "gated before the reload");
  assert.equal(await host.reload(), true);
  const after = await gated(host, "run: rm -rf build", "Deny");
  assert.equal(after.dialog, true, "gated after the reload: the reloaded copy kept the rules");
  assert.match(after.end, /denied bash: denied at the terminal/);
  assert.deepEqual(host.errors, []);
});

test("after /reload, a rule approved for the session stays approved; other rules still ask", async (t) => {
  const host = await rulesThenDaemonGone(t);
  assert.equal((await gated(host, "run: git push", "Approve for session")).dialog, true);
  assert.equal((await gated(host, "run: git push")).dialog, false, "approved for the session");
  await host.reload();
  assert.equal((await gated(host, "run: git push")).dialog, false, "still approved after the reload");
  assert.equal((await gated(host, "run: rm -rf x")).dialog, true);
});

for (const change of ["new", "resume", "fork"] as const) {
  test(`"Approve for session" ends at /${change}: the next session asks again, with the same rules`, async (t) => {
    const host = await rulesThenDaemonGone(t);
    assert.equal((await gated(host, "run: git push", "Approve for session")).dialog, true);
    assert.equal((await gated(host, "run: git push")).dialog, false, "approved for this session");
    if (change === "new") await host.newSession();
    else if (change === "fork") await host.fork();
    else await host.resume("0a0a0a0a-resumed-session");
    assert.equal((await gated(host, "run: git push")).dialog, true, `asked again after /${change}`);
  });
}

test("/resume back into a session approved earlier asks again", async (t) => {
  const host = await rulesThenDaemonGone(t);
  const first = host.sessionId;
  await gated(host, "run: git push", "Approve for session");
  await host.newSession();
  await host.resume(first);
  assert.equal((await gated(host, "run: git push")).dialog, true);
});

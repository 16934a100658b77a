// The fake pi host as a process with the new stdin commands (README): two extensions, /compact,
// /reload, /tree, /resume, the model and login controls, and the sights they show.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { test } from "node:test";

const HOST = path.resolve(import.meta.dirname, "..", "..", "Tests", "Fakes", "pi-extension-host", "host.ts");

test("scripted: two extensions, compact, reload, tree, resume, no key, a tool's opened path", async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-proc-"));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const first = path.join(folder, "first.ts");
  const second = path.join(folder, "second.ts");
  fs.writeFileSync(first, `export default function (pi: any): void { pi.on("session_start", (_e: any, ctx: any) => ctx.ui.setStatus("first", "one")); }\n`);
  fs.writeFileSync(
    second,
    `export default function (pi: any): void {
  pi.registerTool({ name: "ask_user", description: "asks", parameters: { type: "object" }, async execute(_id: string, p: any, _s: any, _u: any, ctx: any) {
    const v = await ctx.ui.select(p.question, p.options); return { content: [{ type: "text", text: String(v) }], details: { answeredBy: "terminal" } };
  } });
}
`,
  );
  const cwd = path.join(folder, "cwd");
  fs.mkdirSync(cwd);
  fs.writeFileSync(path.join(cwd, ".env"), "X=1\n");
  const child = spawn(process.execPath, [HOST, "--extension", first, "--extension", second, "--cwd", cwd, "--compaction-ms", "100", "--retry-base-delay-ms", "10"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  const seen: any[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (line) => seen.push(JSON.parse(line)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const send = (command: object) => child.stdin!.write(`${JSON.stringify(command)}\n`);
  const waitFor = async (match: (s: any) => boolean, what: string) => {
    for (let i = 0; i < 500; i++) {
      const found = seen.find(match);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no ${what}; saw ${JSON.stringify(seen.slice(-6))}`);
  };
  const started = await waitFor((s) => s.saw === "session" && s.reason === "start", "start");
  await waitFor((s) => s.saw === "status" && s.key === "first", "the first extension");
  send({ do: "type", text: "ask: Ship? | yes | no" });
  await waitFor((s) => s.saw === "dialog" && s.title === "Ship?", "the second extension's dialog");
  send({ do: "answer", value: "yes" });
  await waitFor((s) => s.saw === "run_end" && s.text === "Answer: yes (answered by terminal)", "the answer");
  send({ do: "type", text: 'call: read {"path":"@.env"}' });
  assert.deepEqual(await waitFor((s) => s.saw === "tool_opened", "the opened path"), { saw: "tool_opened", tool: "read", path: path.join(cwd, ".env") });
  await waitFor((s) => s.saw === "run_end" && s.text === "Done: X=1", "the read");
  send({ do: "compact" });
  await waitFor((s) => s.saw === "compaction" && s.phase === "end" && s.outcome === "done", "the compaction");
  send({ do: "reload" });
  await waitFor((s) => s.saw === "session" && s.reason === "reload", "the reload");
  send({ do: "tree" });
  await waitFor((s) => s.saw === "session" && s.reason === "tree", "the tree");
  send({ do: "new" });
  await waitFor((s) => s.saw === "session" && s.reason === "new", "/new");
  send({ do: "resume", session: started.sessionId });
  const resumed = await waitFor((s) => s.saw === "session" && s.reason === "resume", "/resume");
  assert.equal(resumed.sessionId, started.sessionId);
  send({ do: "logout", provider: "anthropic" });
  send({ do: "type", text: "no key now" });
  await waitFor((s) => s.saw === "error" && /^No API key found for anthropic/.test(s.message), "the failure");
  send({ do: "type", text: "/quit" });
  assert.equal(await exited, 0);
  assert.ok(seen.some((s) => s.saw === "shutdown"));
});

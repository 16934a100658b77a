"""The scripted LLM: what each LLM call of a run answers, chosen by the prompt text.

A user message whose text starts with ``!scenario NAME [args...]`` (first line) loads that
scenario's queue of replies; other new user messages get the default reply (the
FAKE_PI_SCENARIO scenario, else an echo). Replies are consumed one per LLM call; continuing
after tool results or auto-retry takes the next reply of the queue. See README.md.
"""

from __future__ import annotations

import json
import math
import random
import re

from .jsonio import dumps
from .provider import Reply

_SCEN_RE = re.compile(r"^!scenario[ \t]+(\S+)([^\n]*)")


def parse_scenario(text: str):
    m = _SCEN_RE.match(text or "")
    if not m:
        return None
    return m.group(1), m.group(2).split()


def user_text(msg) -> str:
    c = msg.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
    return ""


def user_images(msg):
    c = msg.get("content")
    if isinstance(c, list):
        return [b for b in c if isinstance(b, dict) and b.get("type") == "image"]
    return []


def _int(args, i, default):
    try:
        return int(args[i])
    except (IndexError, ValueError, TypeError):
        return default


def _float(args, i, default):
    try:
        return float(args[i])
    except (IndexError, ValueError, TypeError):
        return default


WORDS = (
    "the daemon relays each streamed delta to the chat thread while the agent keeps working on the "
    "request and every tool call is summarised with its arguments so that the user can follow along "
    "without reading raw JSON lines the session file grows as messages are appended and compaction "
    "keeps the context window under control when the conversation becomes long"
).split()


def prose(rng: random.Random, n_words: int) -> str:
    out = []
    sentence = []
    for i in range(n_words):
        w = rng.choice(WORDS)
        if not sentence:
            w = w.capitalize()
        sentence.append(w)
        if len(sentence) >= rng.randint(8, 16) or i == n_words - 1:
            out.append(" ".join(sentence) + ".")
            sentence = []
    return " ".join(out)


def text_block(text, **kw):
    d = {"kind": "text", "text": text}
    d.update(kw)
    return d


def tool(name, args):
    return {"kind": "tool", "name": name, "args": args}


EDIT_OLD = "\t// TODO: handle errors\n"
EDIT_NEW = "\tif (!config) {\n\t\tthrow new Error(\"missing config\");\n\t}\n"

LONG_MARKDOWN = """## Summary 🚀

I refactored the request handling and verified everything with the test-suite. Here is what changed:

| File | Change | Lines |
|------|--------|------:|
| `src/app.ts` | error handling for missing config | +3 −1 |
| `docs/NOTES.md` | new design notes | +12 |
| `package.json` | `lint` script | +1 |

### Swift side

```swift
struct RelayEvent: Decodable {
    let type: String
    let delta: String?
}

func handle(_ line: Data) throws -> RelayEvent {
    try JSONDecoder().decode(RelayEvent.self, from: line)
}
```

### Python helper

```python
def split_lines(buf: bytes) -> list[bytes]:
    # LF only: U+2028 is *not* a line break in JSONL
    return buf.split(b"\\n")
```

```bash
npm test && make lint
```

```json
{"type": "response", "command": "prompt", "success": true}
```

### Internationalisation ✅

- 日本語: ストリーミングは正常に動作しています。
- 中文: 所有测试均已通过。
- 한국어: 모든 테스트가 통과했습니다.
- Emoji: 🎉 👍 🧪 (and a ZWJ family 👨‍👩‍👧‍👦)

> **Note**: the table above uses a right-aligned column.

That's all — let me know if you want me to open a PR. 🙂"""


class ScriptedLlm:
    def __init__(self, session_ref, env):
        self.session_ref = session_ref  # callable -> AgentSession
        self.env = env
        self.queue: list = []
        self._seen: set = set()
        self._keep: list = []
        seed = env.get("FAKE_PI_SEED")
        self.rng = random.Random(int(seed) if seed and seed.isdigit() else 1234)
        self.default_scenario = env.get("FAKE_PI_SCENARIO") or None

    # -- token estimate (compaction.ts estimateTokens, chars/4) ------------------------
    @staticmethod
    def estimate_tokens(m) -> int:
        role = m.get("role")
        chars = 0
        if role == "user":
            chars = len(user_text(m))
        elif role == "assistant":
            for b in m.get("content", []):
                if b.get("type") == "text":
                    chars += len(b.get("text", ""))
                elif b.get("type") == "thinking":
                    chars += len(b.get("thinking", ""))
                elif b.get("type") == "toolCall":
                    chars += len(b.get("name", "")) + len(dumps(b.get("arguments", {})))
        elif role in ("custom", "toolResult"):
            c = m.get("content")
            if isinstance(c, str):
                chars = len(c)
            else:
                for b in c or []:
                    if b.get("type") == "text":
                        chars += len(b.get("text", ""))
                    if b.get("type") == "image":
                        chars += 4800
        elif role == "bashExecution":
            chars = len(m.get("command", "")) + len(m.get("output", ""))
        elif role in ("branchSummary", "compactionSummary"):
            chars = len(m.get("summary", ""))
        return math.ceil(chars / 4)

    def estimate_context_tokens(self, messages) -> int:
        # the system prompt + tool definitions of a real pi are ~2.5k tokens
        return 2500 + sum(self.estimate_tokens(m) for m in messages if m.get("role") != "assistant" or m.get("content"))

    # -- reply selection ---------------------------------------------------------------
    def next_reply(self, messages, agent) -> Reply:
        unseen = []
        for m in reversed(messages):
            if m.get("role") == "assistant":
                break
            if m.get("role") == "user" and id(m) not in self._seen:
                unseen.insert(0, m)
        for m in unseen:
            self._seen.add(id(m))
            self._keep.append(m)
        if unseen:
            chosen = None
            for m in unseen:
                sc = parse_scenario(user_text(m))
                if sc:
                    chosen = (sc, m)
            if chosen:
                (name, args), msg = chosen
                self.queue = self.build(name, args, msg, agent)
            elif self.default_scenario:
                sc = parse_scenario("!scenario " + self.default_scenario)
                self.queue = self.build(sc[0], sc[1], unseen[-1], agent) if sc else []
            else:
                self.queue = [self.echo(unseen)]
        if not self.queue:
            return Reply(blocks=[text_block("Done.")])
        item = self.queue[0]
        rep = item(messages) if callable(item) else item
        if not rep.repeat:
            self.queue.pop(0)
        return rep

    def echo(self, msgs) -> Reply:
        lines = []
        for m in msgs:
            t = f"Echo: {user_text(m)}"
            imgs = user_images(m)
            if imgs:
                kinds = ", ".join(i.get("mimeType", "?") for i in imgs)
                t += f" [{len(imgs)} image{'s' if len(imgs) != 1 else ''}: {kinds}]"
            lines.append(t)
        return Reply(blocks=[text_block("\n".join(lines))])

    # -- scenarios -----------------------------------------------------------------------
    def build(self, name, args, msg, agent):
        rng = self.rng
        session = self.session_ref()
        b = getattr(self, "sc_" + name.replace("-", "_"), None)
        if b is None:
            hint = " (an extension command is a prompt like `/foo args`, not a scenario)" \
                if name == "ext-command" else ""
            return [Reply(blocks=[text_block(f"Unknown scenario: {name}{hint}. Echo: {user_text(msg)}")])]
        return b(args, msg, agent, session, rng)

    def sc_echo(self, args, msg, agent, session, rng):
        return [self.echo([msg])]

    def sc_text(self, args, msg, agent, session, rng):
        return [Reply(blocks=[text_block(prose(rng, _int(args, 0, 60)))])]

    def sc_paragraphs(self, args, msg, agent, session, rng):
        count, words = _int(args, 0, 12), _int(args, 1, 80)
        text = "\n\n".join(f"Part {i}. " + prose(rng, words) for i in range(1, count + 1))
        return [Reply(blocks=[text_block(text)])]

    def sc_thinking(self, args, msg, agent, session, rng):
        blocks = []
        if agent.thinking_level != "off":
            blocks.append({"kind": "thinking", "text": "The user wants a short answer. " + prose(rng, 40)})
        blocks.append(text_block("Here is my answer after thinking: " + prose(rng, _int(args, 0, 40))))
        return [Reply(blocks=blocks)]

    def sc_length(self, args, msg, agent, session, rng):
        return [Reply(blocks=[text_block(prose(rng, _int(args, 0, 80)))], stop="length")]

    def sc_error(self, args, msg, agent, session, rng):
        message = " ".join(args) if args else (
            '400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content: '
            'text content blocks must be non-empty"}}')
        return [Reply(error=message)]

    def sc_tools(self, args, msg, agent, session, rng):
        first = Reply(blocks=[
            text_block("I'll inspect the project, run the tests and fix the TODO."),
            tool("bash", {"command": "npm test"}),
            tool("read", {"path": "src/app.ts", "offset": 90, "limit": 20}),
            tool("edit", {"path": "src/app.ts", "oldText": EDIT_OLD, "newText": EDIT_NEW}),
            tool("write", {"path": "docs/NOTES.md", "content": "# Notes\n\nConfig errors are fatal now. ✅\n"}),
            tool("grep", {"pattern": "todo", "path": "src", "ignoreCase": True}),
            tool("find", {"pattern": "*.ts", "path": "src"}),
            tool("ls", {"path": "."}),
            tool("frobnicate", {"target": "everything"}),
            tool("bash", {"command": "make lint", "timeout": 60}),
        ], stop="toolUse")
        final = Reply(blocks=[text_block(
            "Tests pass, the TODO is fixed and the notes are written. `make lint` still reports one "
            "unused variable, and the `frobnicate` tool does not exist.")])
        return [first, final]

    def sc_long(self, args, msg, agent, session, rng):
        turns = [
            ("Let me look at the project layout first.",
             [tool("read", {"path": "README.md"}), tool("read", {"path": "package.json"}),
              tool("bash", {"command": "git status --short"})]),
            ("Now the main source file and the test-suite.",
             [tool("read", {"path": "src/app.ts", "offset": 1, "limit": 40}), tool("bash", {"command": "npm test"}),
              tool("bash", {"command": "wc -l src/*.ts"})]),
            ("I'll fix the TODO and document it.",
             [tool("edit", {"path": "src/app.ts", "oldText": EDIT_OLD, "newText": EDIT_NEW}),
              tool("write", {"path": "docs/NOTES.md", "content": "# Notes\n\n- config errors are fatal\n"}),
              tool("read", {"path": "src/config.ts"})]),
            ("Final verification (including a long log).",
             [tool("bash", {"command": "npm run build"}), tool("bash", {"command": "seq 1 3000"}),
              tool("bash", {"command": "npm test"})]),
        ]
        out = []
        for text, calls in turns:
            out.append(Reply(blocks=[text_block(text)] + calls, stop="toolUse"))
        out.append(Reply(blocks=[text_block(LONG_MARKDOWN)]))
        return out

    def _overloaded(self):
        return '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'

    def sc_error_retry(self, args, msg, agent, session, rng):
        n = max(1, _int(args, 0, 1))
        out = [Reply(error=self._overloaded()) for _ in range(n)]
        out.append(Reply(blocks=[text_block(f"Recovered after {n} retr{'y' if n == 1 else 'ies'}.")]))
        return out

    def sc_error_exhausted(self, args, msg, agent, session, rng):
        return [Reply(error=self._overloaded(), repeat=True)]

    def sc_overflow(self, args, msg, agent, session, rng):
        window = agent.model["contextWindow"]
        err = f"prompt is too long: {window + 13462} tokens > {window} maximum"
        return [Reply(error=err), Reply(blocks=[text_block("Continuing after the context was compacted.")])]

    def sc_threshold_compaction(self, args, msg, agent, session, rng):
        window = agent.model["contextWindow"]
        reserve = session.settings.compaction()["reserveTokens"]
        return [Reply(blocks=[text_block("This answer pushes the context over the compaction threshold.")],
                      usage_input=window - reserve + 1000)]

    def sc_ui(self, args, msg, agent, session, rng):
        kind = args[0] if args else "select"
        if kind == "select":
            def final(messages):
                answer = "Allow"
                for m in reversed(messages):
                    if m.get("role") == "toolResult" and m.get("toolName") == "bash":
                        t = user_text(m)
                        mm = re.search(r"Blocked by user \(choice: (.*)\)$", t)
                        if mm:
                            answer = None if mm.group(1) == "undefined" else mm.group(1)
                        break
                return Reply(blocks=[text_block("select answer: " + json.dumps(answer, ensure_ascii=False))])

            return [Reply(blocks=[text_block("I need to clean the build directory first."),
                                  tool("bash", {"command": "rm -rf ./build"}),
                                  tool("read", {"path": "README.md"})], stop="toolUse"), final]
        if kind in ("confirm", "input", "editor", "ask-select"):
            q = {"kind": "select" if kind == "ask-select" else kind}
            if kind == "ask-select":
                # More options than a chat can show as buttons, when asked for: extensions may list any number.
                count = max(1, _int(args, 2, 3))
                options = ["red", "green", "blue"][:count] + ["colour %d" % n for n in range(4, count + 1)]
                q.update({"title": "Pick a colour", "options": options})
                t = _int(args, 1, 30000)
            elif kind == "confirm":
                q.update({"title": "Apply the migration?", "message": "This rewrites 3 files."})
                t = _int(args, 1, 30000)
            elif kind == "input":
                q.update({"title": "Name of the new branch?", "placeholder": "feature/..."})
                t = _int(args, 1, 0)
            else:
                q.update({"title": "Edit the commit message", "prefill": "Fix config handling\n\nDetails:\n- one\n- two"})
                t = 0
            if t:
                q["timeout"] = t

            def final(messages, kind=kind):
                answer = None
                for m in reversed(messages):
                    if m.get("role") == "toolResult" and m.get("toolName") == "ask_user":
                        t = user_text(m)
                        if t.startswith("answer: "):
                            answer = json.loads(t[len("answer: "):])
                        else:
                            answer = t
                        break
                label = "select" if kind == "ask-select" else kind
                return Reply(blocks=[text_block(f"{label} answer: " + json.dumps(answer, ensure_ascii=False))])

            return [Reply(blocks=[text_block("I have a question for you."), tool("ask_user", q)], stop="toolUse"),
                    final]
        if kind == "confirm-twice":
            # Two questions in one run, the second asked once the first is answered: what a
            # chat shows between them (the first one's closing) must not hold up the second.
            def ask(title):
                return Reply(blocks=[tool("ask_user", {"kind": "confirm", "title": title, "timeout": 60000})], stop="toolUse")

            def final(messages):
                answers = [user_text(m) for m in messages if m.get("role") == "toolResult" and m.get("toolName") == "ask_user"]
                return Reply(blocks=[text_block("confirm-twice answers: " + " / ".join(answers[-2:]))])

            return [Reply(blocks=[text_block("Two questions."), tool("ask_user", {"kind": "confirm", "title": "First step?",
                                                                                   "timeout": 60000})], stop="toolUse"),
                    ask("Second step?"), final]
        # fire-and-forget methods are emitted by the extension (see extension.py)
        return [Reply(blocks=[text_block(f"ui {kind} requests were sent.")])]

    def sc_agent_throw(self, args, msg, agent, session, rng):
        return [Reply(throw="Cannot read properties of undefined (reading 'content')")]

    def sc_extension_error(self, args, msg, agent, session, rng):
        return [Reply(blocks=[text_block("An extension handler failed, but the run continued.")])]

    def sc_custom_message(self, args, msg, agent, session, rng):
        return [Reply(blocks=[text_block("I saw the extension's custom message.")])]

    def sc_slow(self, args, msg, agent, session, rng):
        n = max(1, _int(args, 0, 50))
        ms = _float(args, 1, 100)
        deltas = [f"chunk {i + 1} " for i in range(n)]
        return [Reply(blocks=[text_block("".join(deltas), deltas=deltas, delta_ms=ms)], delta_ms=ms)]

    def sc_slow_tool(self, args, msg, agent, session, rng):
        ms = _int(args, 0, 3000)
        return [Reply(blocks=[text_block("Starting the long task."),
                              tool("bash", {"command": f"./scripts/long-task.sh {ms}"})], stop="toolUse"),
                Reply(blocks=[text_block("The long task finished.")])]

    def sc_stdout_garbage(self, args, msg, agent, session, rng):
        line = " ".join(args) if args else "Migrated global commands/ → prompts/"
        text = prose(rng, 40)
        return [Reply(blocks=[text_block(text)], garbage=(3, line))]

    def sc_huge(self, args, msg, agent, session, rng):
        mb = _float(args, 0, 10.0)
        target = int(mb * 1024 * 1024)
        unit = ("Line of the huge blob: naïve café 漢字 🚀 separators:\u2028LS and\u2029PS end. "
                + "lorem ipsum dolor sit amet " * 3 + "\n")
        unit_bytes = len(dumps(unit).encode("utf-8")) - 2
        # the line holds the delta once and the partial (≈ the same text) twice
        reps = max(1, (target - 600) // (3 * unit_bytes))
        blob = unit * reps
        deltas = ["Here is the blob you asked for:\n", blob, "End of blob."]
        return [Reply(blocks=[text_block("".join(deltas), deltas=deltas)], delta_ms=0)]

    def sc_stream(self, args, msg, agent, session, rng):
        mb = _float(args, 0, 50.0)
        target = int(mb * 1024 * 1024)
        writer = session.writer
        start = writer.bytes_written if writer else 0
        state = {"i": 0}

        def chunk(messages):
            done = (writer.bytes_written - start) if writer else target
            state["i"] += 1
            if done >= target or state["i"] > 10000:
                return Reply(blocks=[text_block(f"Streamed {state['i'] - 1} answers.")], delta_ms=0)
            blocks = []
            if state["i"] % 3 == 0:
                blocks.append({"kind": "thinking", "text": prose(rng, 300)})
            body = prose(rng, 1800)
            blocks.append(text_block(body, deltas=_even_deltas(body, 48)))
            blocks.append(tool("bash", {"command": "git status --short"}))
            return Reply(blocks=blocks, stop="toolUse", delta_ms=0, repeat=True)

        return [chunk]


def _even_deltas(text, size):
    return [text[i : i + size] for i in range(0, len(text), size)]

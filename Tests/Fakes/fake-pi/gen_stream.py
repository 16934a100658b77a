#!/usr/bin/env python3
"""Write a realistic pi `--mode rpc` stdout stream (event lines only) of roughly --mb megabytes.

The stream is shaped like several long agent runs, event for event as fake-pi / pi 0.58.3
emit them: agent_start, turn_start, user message_start/end, assistant message_start,
message_update lines whose partial message grows (thinking_*, text_*, toolcall_* events, the
partial carried twice), message_end, tool_execution_start/update(accumulated)/end, toolResult
messages, turn_end, agent_end with every message of the run.

Every line is one JSON event (no responses, no UI requests). On stderr it prints exactly
    events=N deltaChars=M
N = number of lines written, M = total Unicode scalar values in all text_delta deltas.

    python3 gen_stream.py --mb 200 --out /tmp/stream.jsonl [--seed 1] [--delta 16]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from fakepi.jsonio import dumps  # noqa: E402
from fakepi.models import ALL_MODELS  # noqa: E402
from fakepi.provider import calculate_cost, parse_streaming_json  # noqa: E402

MODEL = next(m for m in ALL_MODELS if m["id"] == "claude-opus-4-6")
PH = "\x00PLACEHOLDER\x00"
PH_ESC = dumps(PH)[1:-1]

WORDS = ("the relay daemon streams every delta to the chat thread while tool calls run in parallel and the "
         "session file keeps growing so compaction summarises older turns before the context window fills up "
         "with long answers").split()
SNIPPETS = [
    "\n\n```swift\nfor try await line in child.stdout.lines {\n    try handle(line)\n}\n```\n\n",
    "\n\n| Column | Value |\n|---|---|\n| delta | `text_delta` |\n| 名前 | 値 ✅ |\n\n",
    " 日本語のテキストも含まれます。", " 中文内容也在这里。", " Emoji 🚀🎉👍🏽 and a family 👨‍👩‍👧.",
    "\n\n> Note: U+2028 \u2028 and U+2029 \u2029 are not line breaks in JSONL.\n\n",
    "\n\n```python\nprint(json.dumps({\"type\": \"prompt\"}))\n```\n\n", " naïve café résumé façade.",
]


def esc(s: str) -> str:
    return dumps(s)[1:-1]


class Gen:
    def __init__(self, out, target, seed, delta):
        self.out = out
        self.target = target
        self.rng = random.Random(seed)
        self.delta = delta
        self.bytes = 0
        self.events = 0
        self.delta_chars = 0
        self.ts = 1767225600000  # deterministic clock
        self.buf = []
        self.buf_size = 0

    # -- output ---------------------------------------------------------------------
    def line(self, s: str):
        b = (s + "\n").encode("utf-8")
        self.buf.append(b)
        self.buf_size += len(b)
        self.bytes += len(b)
        self.events += 1
        if self.buf_size > 8 << 20:
            self.flush()

    def flush(self):
        self.out.write(b"".join(self.buf))
        self.buf = []
        self.buf_size = 0

    def obj(self, o):
        self.line(dumps(o))

    def now(self):
        self.ts += self.rng.randint(1, 40)
        return self.ts

    # -- content --------------------------------------------------------------------
    def prose(self, n_chars):
        parts = []
        size = 0
        rng = self.rng
        while size < n_chars:
            if rng.random() < 0.04:
                s = rng.choice(SNIPPETS)
            else:
                n = rng.randint(6, 18)
                s = " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + ". "
            parts.append(s)
            size += len(s)
        return "".join(parts)[:n_chars]

    def split(self, text):
        out = []
        i = 0
        rng = self.rng
        while i < len(text):
            n = max(1, int(rng.uniform(0.3, 1.7) * self.delta))
            out.append(text[i : i + n])
            i += n
        return out

    def tool_id(self):
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "toolu_01" + "".join(self.rng.choice(alphabet) for _ in range(22))

    # -- message_update helpers ---------------------------------------------------------
    @staticmethod
    def update(ev_type, idx, extra, partial_json):
        return ('{"type":"message_update","assistantMessageEvent":{"type":"' + ev_type + '","contentIndex":'
                + str(idx) + extra + ',"partial":' + partial_json + '},"message":' + partial_json + "}")

    def stream_string_block(self, msg, block, field, kind, text, count_deltas):
        """Stream a text/thinking block; partial JSON is built by concatenation."""
        idx = len(msg["content"]) - 1
        self.line(self.update(f"{kind}_start", idx, "", dumps(msg)))
        block[field] = PH
        head, tail = dumps(msg).split(PH_ESC, 1)
        acc = ""
        for d in self.split(text):
            acc += esc(d)
            self.line(self.update(f"{kind}_delta", idx, ',"delta":' + dumps(d), head + acc + tail))
            if count_deltas:
                self.delta_chars += len(d)
        block[field] = text
        if kind == "thinking":
            block["thinkingSignature"] = "Eq" + "".join(self.rng.choice("abcdefXYZ0123456789") for _ in range(86))
        del block["index"]
        self.line(self.update(f"{kind}_end", idx, ',"content":' + dumps(text), dumps(msg)))

    def assistant(self, thinking, text, tools, input_tokens):
        msg = {"role": "assistant", "content": [], "api": MODEL["api"], "provider": MODEL["provider"],
               "model": MODEL["id"], "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                                               "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                                                          "cacheWrite": 0, "total": 0}},
               "stopReason": "stop", "timestamp": self.now()}
        self.obj({"type": "message_start", "message": msg})
        u = msg["usage"]
        u["input"], u["output"], u["cacheRead"] = input_tokens, 1, input_tokens * 4
        u["totalTokens"] = u["input"] + u["output"] + u["cacheRead"]
        calculate_cost(MODEL, u)
        if thinking:
            block = {"type": "thinking", "thinking": "", "thinkingSignature": "", "index": len(msg["content"])}
            msg["content"].append(block)
            self.stream_string_block(msg, block, "thinking", "thinking", thinking, False)
        if text:
            block = {"type": "text", "text": "", "index": len(msg["content"])}
            msg["content"].append(block)
            self.stream_string_block(msg, block, "text", "text", text, True)
        for name, args in tools:
            idx = len(msg["content"])
            block = {"type": "toolCall", "id": self.tool_id(), "name": name, "arguments": {}, "partialJson": "",
                     "index": idx}
            msg["content"].append(block)
            self.line(self.update("toolcall_start", idx, "", dumps(msg)))
            s = dumps(args)
            i = 0
            while i < len(s):
                n = self.rng.randint(4, 24)
                frag = s[i : i + n]
                i += n
                block["partialJson"] += frag
                block["arguments"] = parse_streaming_json(block["partialJson"])
                self.line(self.update("toolcall_delta", idx, ',"delta":' + dumps(frag), dumps(msg)))
            block["arguments"] = args
            del block["partialJson"]
            del block["index"]
            self.line(self.update("toolcall_end", idx, ',"toolCall":' + dumps(block), dumps(msg)))
        msg["stopReason"] = "toolUse" if tools else "stop"
        chars = len(thinking) + len(text) + sum(len(n) + len(dumps(a)) for n, a in tools)
        u["output"] = max(1, chars // 4)
        u["totalTokens"] = u["input"] + u["output"] + u["cacheRead"]
        calculate_cost(MODEL, u)
        self.obj({"type": "message_end", "message": msg})
        return msg

    def run_tools(self, msg):
        calls = [c for c in msg["content"] if c["type"] == "toolCall"]
        for c in calls:
            self.obj({"type": "tool_execution_start", "toolCallId": c["id"], "toolName": c["name"],
                      "args": c["arguments"]})
        results = []
        for c in calls:
            if c["name"] == "bash":
                out = ""
                for k in range(self.rng.randint(3, 12)):
                    out += f"[{k:03d}] " + self.prose(self.rng.randint(40, 160)).replace("\n", " ") + "\n"
                    self.obj({"type": "tool_execution_update", "toolCallId": c["id"], "toolName": c["name"],
                              "args": c["arguments"], "partialResult": {"content": [{"type": "text", "text": out}],
                                                                        "details": {}}})
                result = {"content": [{"type": "text", "text": out}]}
            elif c["name"] == "read":
                result = {"content": [{"type": "text", "text": self.prose(self.rng.randint(500, 4000))}]}
            else:
                result = {"content": [{"type": "text", "text": f"Successfully replaced text in {c['arguments'].get('path')}."}],
                          "details": {"diff": "-12 old line\n+12 new line", "firstChangedLine": 12}}
            is_error = c["name"] == "bash" and self.rng.random() < 0.15
            if is_error:
                result = {"content": [{"type": "text", "text": result["content"][0]["text"] +
                                       "\n\nCommand exited with code 1"}], "details": {}}
            self.obj({"type": "tool_execution_end", "toolCallId": c["id"], "toolName": c["name"], "result": result,
                      "isError": is_error})
            tr = {"role": "toolResult", "toolCallId": c["id"], "toolName": c["name"], "content": result["content"]}
            if "details" in result:
                tr["details"] = result["details"]
            tr["isError"] = is_error
            tr["timestamp"] = self.now()
            self.obj({"type": "message_start", "message": tr})
            self.obj({"type": "message_end", "message": tr})
            results.append(tr)
        return results

    def answer(self, final_len):
        rng = self.rng
        user = {"role": "user", "content": [{"type": "text", "text": "Please " + self.prose(rng.randint(40, 300))}],
                "timestamp": self.now()}
        self.obj({"type": "agent_start"})
        self.obj({"type": "turn_start"})
        self.obj({"type": "message_start", "message": user})
        self.obj({"type": "message_end", "message": user})
        messages = [user]
        tokens = 3000
        for turn in range(rng.randint(1, 3)):
            if turn:
                self.obj({"type": "turn_start"})
            tools = []
            for _ in range(rng.randint(1, 3)):
                kind = rng.choice(["bash", "read", "edit"])
                if kind == "bash":
                    tools.append(("bash", {"command": rng.choice(["npm test", "make lint", "git diff --stat"])}))
                elif kind == "read":
                    tools.append(("read", {"path": f"src/file{rng.randint(1, 40)}.ts", "offset": 1, "limit": 200}))
                else:
                    tools.append(("edit", {"path": f"src/file{rng.randint(1, 40)}.ts", "oldText": "let x = 1",
                                           "newText": "const x = 1"}))
            thinking = self.prose(rng.randint(300, 2500)) if turn == 0 else ""
            msg = self.assistant(thinking, self.prose(rng.randint(100, 800)), tools, tokens)
            results = self.run_tools(msg)
            self.obj({"type": "turn_end", "message": msg, "toolResults": results})
            messages += [msg] + results
            tokens += 2000
        self.obj({"type": "turn_start"})
        msg = self.assistant(self.prose(rng.randint(200, 1500)), self.prose(final_len), [], tokens)
        self.obj({"type": "turn_end", "message": msg, "toolResults": []})
        messages.append(msg)
        self.obj({"type": "agent_end", "messages": messages})

    def generate(self):
        while self.bytes < self.target:
            remaining = self.target - self.bytes
            # a final answer of L chars streamed in d-char deltas costs ~L*L/d bytes
            cap = int((remaining * self.delta) ** 0.5)
            final_len = max(500, min(self.rng.randint(6000, 20000), cap))
            self.answer(final_len)
        self.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50.0, help="approximate size in MiB (default 50)")
    ap.add_argument("--out", required=True, help="output file ('-' for stdout)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--delta", type=int, default=16, help="mean text delta size in characters (default 16)")
    a = ap.parse_args()
    t0 = time.time()
    if a.out == "-":
        out = sys.stdout.buffer
        g = Gen(out, int(a.mb * 1024 * 1024), a.seed, a.delta)
        g.generate()
        out.flush()
    else:
        with open(a.out, "wb") as out:
            g = Gen(out, int(a.mb * 1024 * 1024), a.seed, a.delta)
            g.generate()
    sys.stderr.write(f"events={g.events} deltaChars={g.delta_chars}\n")
    if os.environ.get("GEN_STREAM_VERBOSE"):
        sys.stderr.write(f"bytes={g.bytes} seconds={time.time() - t0:.2f}\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Self-test for fake-pi: drives Tests/Fakes/fake-pi/pi through subprocess and checks the
shapes, orderings and quirks of pi 0.58.3's RPC protocol (see /work/shared/specs/pi-rpc.md).

Usage: python3 selftest.py [-k substring] [-v]
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.realpath(__file__))
PI = os.path.join(HERE, "pi")
VERBOSE = "-v" in sys.argv


class Pi:
    """A fake-pi child with an LF-only JSONL reader on stdout."""

    def __init__(self, *args, env=None, cwd=None, agent_dir=None, settings=None):
        self.tmp = tempfile.mkdtemp(prefix="fakepi-test-")
        self.agent_dir = agent_dir or os.path.join(self.tmp, "agent")
        os.makedirs(self.agent_dir, exist_ok=True)
        if settings is None:
            settings = {"retry": {"baseDelayMs": 40}}
        if settings:
            with open(os.path.join(self.agent_dir, "settings.json"), "w") as f:
                json.dump(settings, f)
        self.cwd = cwd or self.tmp
        e = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_PI_") and not k.endswith("_API_KEY")}
        e["PI_CODING_AGENT_DIR"] = self.agent_dir
        e["FAKE_PI_DELTA_MS"] = e.get("FAKE_PI_DELTA_MS", "1")
        e.update(env or {})
        self.proc = subprocess.Popen([PI, "--mode", "rpc", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=self.cwd, env=e)
        self.lines: list = []  # (raw bytes, parsed or None)
        self.q: queue.Queue = queue.Queue()
        self.idx = 0
        self.stderr = b""
        self._seq = 0
        threading.Thread(target=self._read, daemon=True).start()
        self._err_thread = threading.Thread(target=self._read_err, daemon=True)
        self._err_thread.start()

    def _read(self):
        buf = b""
        fd = self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            buf += chunk
            while True:
                i = buf.find(b"\n")
                if i < 0:
                    break
                raw, buf = buf[:i], buf[i + 1 :]
                try:
                    obj = json.loads(raw.decode("utf-8"))
                except ValueError:
                    obj = None
                self.lines.append((raw, obj))
                self.q.put((raw, obj))
        if buf:
            self.lines.append((buf, None))
            self.q.put((buf, None))
        self.q.put(None)

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def wait_stderr(self, timeout=5):
        """Waits until stderr is read to its end (a loaded machine may take longer than the exit)."""
        self._err_thread.join(timeout)
        return self.stderr

    def send(self, obj):
        data = obj if isinstance(obj, (bytes, bytearray)) else (
            obj.encode() if isinstance(obj, str) else (json.dumps(obj, ensure_ascii=False) + "\n").encode())
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next(self, timeout=10.0):
        item = self.q.get(timeout=timeout)
        if item is None:
            self.q.put(None)
            raise EOFError("fake-pi stdout closed; stderr=" + self.stderr.decode(errors="replace")[-2000:])
        if VERBOSE:
            print("   <", item[0][:300].decode(errors="replace"))
        return item

    def wait(self, pred, timeout=10.0, what="event"):
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError(f"timeout waiting for {what}")
            try:
                raw, obj = self.next(left)
            except queue.Empty:
                raise AssertionError(f"timeout waiting for {what}") from None
            if obj is not None and pred(obj):
                return obj

    def collect_until(self, pred, timeout=10.0, what="event"):
        """All parsed objects up to and including the first matching one."""
        out = []
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError(f"timeout waiting for {what}; got {[o.get('type') for o in out]}")
            try:
                raw, obj = self.next(left)
            except queue.Empty:
                raise AssertionError(f"timeout waiting for {what}; got {[o.get('type') for o in out]}") from None
            if obj is None:
                out.append({"type": "__raw__", "raw": raw})
                continue
            out.append(obj)
            if pred(obj):
                return out

    def request(self, cmd, timeout=10.0):
        self._seq += 1
        cid = f"req_{self._seq}"
        cmd = dict(cmd, id=cid)
        self.send(cmd)
        return self.wait(lambda o: o.get("type") == "response" and o.get("id") == cid, timeout, f"response {cid}")

    def run_prompt(self, message, timeout=15.0, **extra):
        """Send a prompt and return all objects up to the agent_end that ends the run."""
        self.send(dict({"type": "prompt", "message": message, "id": "p"}, **extra))
        return self.collect_until(lambda o: o.get("type") == "agent_end", timeout, "agent_end")

    def close(self, timeout=5.0):
        try:
            self.proc.stdin.close()
        except Exception:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("fake-pi did not exit after stdin EOF")
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def types(objs):
    return [o.get("type") for o in objs]


def ame(o):
    return (o.get("assistantMessageEvent") or {}).get("type")


def check(cond, msg="check failed"):
    if not cond:
        raise AssertionError(msg)


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# ---------------------------------------------------------------------------------------
# Framing
# ---------------------------------------------------------------------------------------


@test
def framing_parse_errors_and_unknown():
    p = Pi()
    try:
        p.send(b"\n")
        r = p.wait(lambda o: o.get("type") == "response")
        check(r == {"type": "response", "command": "parse", "success": False,
                    "error": "Failed to parse command: Unexpected end of JSON input"}, r)
        p.send(b"{not json}\n")
        r = p.wait(lambda o: o.get("type") == "response")
        check("id" not in r and r["command"] == "parse" and r["error"].startswith("Failed to parse command: "), r)
        p.send({"id": "x", "type": "frobnicate"})
        r = p.wait(lambda o: o.get("type") == "response")
        check(r == {"type": "response", "command": "frobnicate", "success": False,
                    "error": "Unknown command: frobnicate"}, r)
        # CRLF accepted; id echoed verbatim
        p.send(b'{"id":"crlf","type":"get_state"}\r\n')
        r = p.wait(lambda o: o.get("type") == "response")
        check(r["id"] == "crlf" and r["success"] is True, r)
        # U+2028 inside a string is not a line break; raw U+2028 comes back unescaped
        p.send('{"id":"ls","type":"prompt","message":"a\u2028b\u2029c"}\n'.encode())
        objs = p.collect_until(lambda o: o.get("type") == "agent_end")
        raws = [raw for raw, _ in p.lines]
        check(any("a\u2028b\u2029c".encode() in raw for raw in raws), "raw U+2028/2029 expected in output")
        check(not any(b"\\u2028" in raw for raw in raws), "U+2028 must not be escaped")
        # no response to extension_ui_response
        p.send({"type": "extension_ui_response", "id": "nope", "value": "x"})
        r = p.request({"type": "get_state"})
        check(r["command"] == "get_state")
        # compact JSON: no spaces after separators
        check(all(b'": ' not in raw[:40] for raw, o in p.lines if o), "compact separators")
    finally:
        check(p.close() == 0, "exit code 0 after EOF")


@test
def framing_unterminated_final_line_and_eof_exit():
    p = Pi()
    p.send(b'{"id":"last","type":"get_state"}')  # no LF
    p.proc.stdin.close()
    r = p.wait(lambda o: o.get("type") == "response")
    check(r["id"] == "last")
    check(p.proc.wait(5) == 0)
    p.kill()


# ---------------------------------------------------------------------------------------
# prompts, streaming shapes, session files
# ---------------------------------------------------------------------------------------

ASSISTANT_KEYS = ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]


def check_stream_shapes(objs):
    """message_update lines: key order, partial twice, deltas accumulate to *_end content."""
    texts = {}
    for o in objs:
        if o.get("type") != "message_update":
            continue
        check(list(o.keys()) == ["type", "assistantMessageEvent", "message"], list(o.keys()))
        ev = o["assistantMessageEvent"]
        check(ev["partial"] == o["message"], "partial and message must be identical")
        check(list(o["message"].keys())[:8] == ASSISTANT_KEYS, list(o["message"].keys()))
        check(ev["type"] not in ("start", "done", "error"), ev["type"])
        i = ev["contentIndex"]
        if ev["type"] in ("text_delta", "thinking_delta"):
            texts[i] = texts.get(i, "") + ev["delta"]
        if ev["type"] in ("text_end", "thinking_end"):
            check(ev["content"] == texts.get(i, ""), "deltas must add up to *_end content")
            texts.pop(i, None)
            block = ev["partial"]["content"][i]
            check("index" not in block, "index removed at *_end")
        if ev["type"] in ("text_start", "thinking_start", "toolcall_start"):
            check(ev["partial"]["content"][i].get("index") == i, "in-progress block carries index")
        if ev["type"] == "toolcall_end":
            tc = ev["toolCall"]
            check(list(tc.keys()) == ["type", "id", "name", "arguments"], list(tc.keys()))


@test
def prompt_default_echo_order_and_session_file():
    p = Pi()
    try:
        st = p.request({"type": "get_state"})["data"]
        check(list(st.keys()) == ["model", "thinkingLevel", "isStreaming", "isCompacting", "steeringMode",
                                  "followUpMode", "sessionFile", "sessionId", "autoCompactionEnabled",
                                  "messageCount", "pendingMessageCount"], list(st.keys()))
        check(st["steeringMode"] == "one-at-a-time" and st["followUpMode"] == "one-at-a-time")
        check(st["model"]["id"] == "claude-opus-4-6" and st["thinkingLevel"] == "medium", st["model"]["id"])
        sf = st["sessionFile"]
        check(not os.path.exists(sf), "session file is written lazily (after the first assistant message)")
        r = p.request({"type": "get_last_assistant_text"})
        check(r["data"] == {}, r)
        objs = p.run_prompt("hello there, general kenobi")
        check(objs[0] == {"id": "p", "type": "response", "command": "prompt", "success": True}, objs[0])
        ts = [t for t in types(objs) if t != "message_update"]
        check(ts == ["response", "agent_start", "turn_start", "message_start", "message_end", "message_start",
                     "message_end", "turn_end", "agent_end"], ts)
        check_stream_shapes(objs)
        import re as _re

        costs = [m for raw, _ in p.lines for m in _re.findall(rb'"cost":\{[^}]*\}', raw)]
        check(costs and not any(b"e-" in c for c in costs), "JS number formatting (0.000025, not 2.5e-05)")
        ups = [o for o in objs if o["type"] == "message_update"]
        check(len(ups) >= 4 and ame(ups[0]) == "text_start" and ame(ups[-1]) == "text_end", [ame(u) for u in ups])
        sizes = [len(json.dumps(u["message"])) for u in ups[:-1]]  # text_end drops "index"
        check(all(b >= a for a, b in zip(sizes, sizes[1:])), "partials grow")
        starts = [o for o in objs if o["type"] == "message_start"]
        check(starts[1]["message"]["content"] == [] and starts[1]["message"]["stopReason"] == "stop")
        check(starts[1]["message"]["usage"]["totalTokens"] == 0)
        end = [o for o in objs if o["type"] == "message_end"][-1]["message"]
        check(end["content"] == [{"type": "text", "text": "Echo: hello there, general kenobi"}], end["content"])
        u = end["usage"]
        check(u["totalTokens"] == u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"])
        ae = objs[-1]
        check([m["role"] for m in ae["messages"]] == ["user", "assistant"])
        check(ae["messages"][0]["content"] == [{"type": "text", "text": "hello there, general kenobi"}])
        # session file: header + model_change + thinking_level_change + 2 messages
        time.sleep(0.05)
        entries = [json.loads(l) for l in open(sf, encoding="utf-8")]
        check(entries[0]["type"] == "session" and entries[0]["version"] == 3 and entries[0]["cwd"] == p.cwd)
        check([e["type"] for e in entries[1:]] == ["model_change", "thinking_level_change", "message", "message"],
              [e["type"] for e in entries])
        check(entries[3]["parentId"] == entries[2]["id"] and len(entries[3]["id"]) == 8)
        check(entries[4]["message"] == end)
        st2 = p.request({"type": "get_state"})["data"]
        check(st2["messageCount"] == 2 and st2["isStreaming"] is False and st2["sessionFile"] == sf)
        stats = p.request({"type": "get_session_stats"})["data"]
        check(list(stats.keys()) == ["sessionFile", "sessionId", "userMessages", "assistantMessages", "toolCalls",
                                     "toolResults", "totalMessages", "tokens", "cost"], list(stats.keys()))
        check(stats["sessionFile"] == sf and stats["userMessages"] == 1 and stats["assistantMessages"] == 1)
        check(stats["tokens"]["input"] == u["input"] and stats["totalMessages"] == 2)
        msgs = p.request({"type": "get_messages"})["data"]["messages"]
        check(msgs == ae["messages"])
        r = p.request({"type": "get_last_assistant_text"})
        check(r["data"] == {"text": "Echo: hello there, general kenobi"}, r)
        r = p.request({"type": "set_session_name", "name": "   "})
        check(r == {"id": r["id"], "type": "response", "command": "set_session_name", "success": False,
                    "error": "Session name cannot be empty"}, r)
        r = p.request({"type": "set_session_name", "name": "  My session "})
        check(r["success"] and "data" not in r)
        check(p.request({"type": "get_state"})["data"]["sessionName"] == "My session")
    finally:
        p.close()


@test
def prompt_with_images_and_default_scenario_env():
    p = Pi(env={"FAKE_PI_SCENARIO": "text 12"})
    try:
        img = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        objs = p.run_prompt("look", images=[img])
        user = [o for o in objs if o["type"] == "message_start"][0]["message"]
        check(user["content"] == [{"type": "text", "text": "look"}, img], user)
        text = [o for o in objs if o["type"] == "message_end"][-1]["message"]["content"][0]["text"]
        check(len(text.split()) == 12, text)
        objs = p.run_prompt("!scenario echo", images=[img])
        text = [o for o in objs if o["type"] == "message_end"][-1]["message"]["content"][0]["text"]
        check(text == "Echo: !scenario echo [1 image: image/png]", text)
    finally:
        p.close()


@test
def scenario_text_thinking_length_error():
    p = Pi()
    try:
        objs = p.run_prompt("!scenario text 300")
        check_stream_shapes(objs)
        end = [o for o in objs if o["type"] == "message_end"][-1]["message"]
        check(len(end["content"][0]["text"].split()) == 300)
        check(sum(1 for o in objs if ame(o) == "text_delta") > 50)
        objs = p.run_prompt("!scenario paragraphs 3 20")
        check_stream_shapes(objs)
        text = [o for o in objs if o["type"] == "message_end"][-1]["message"]["content"][0]["text"]
        parts = text.split("\n\n")
        check([part.split(".")[0] for part in parts] == ["Part 1", "Part 2", "Part 3"], text)
        check(all(len(part.split()) == 22 for part in parts), text)
        objs = p.run_prompt("!scenario thinking")
        check_stream_shapes(objs)
        seq = [ame(o) for o in objs if o["type"] == "message_update"]
        check(seq[0] == "thinking_start" and "thinking_end" in seq and seq.index("thinking_end") < seq.index("text_start"))
        blk = [o for o in objs if o["type"] == "message_end"][-1]["message"]["content"][0]
        check(list(blk.keys()) == ["type", "thinking", "thinkingSignature"] and blk["thinkingSignature"], blk.keys())
        objs = p.run_prompt("!scenario length")
        check([o for o in objs if o["type"] == "message_end"][-1]["message"]["stopReason"] == "length")
        objs = p.run_prompt("!scenario error")
        end = [o for o in objs if o["type"] == "message_end"][-1]["message"]
        check(end["stopReason"] == "error" and end["content"] == [] and list(end.keys())[-1] == "errorMessage")
        check(types(objs)[-3:] == ["message_end", "turn_end", "agent_end"])
        time.sleep(0.1)
        check(not any(o and o.get("type", "").startswith("auto_") for _, o in p.lines), "non-retryable error")
    finally:
        p.close()
    p = Pi("--thinking", "off")
    try:
        objs = p.run_prompt("!scenario thinking")
        check(not any(ame(o) == "thinking_start" for o in objs), "no thinking when thinking is off")
    finally:
        p.close()


ALL_TOOLS_FLAG = ("--tools", "read,bash,edit,write,grep,find,ls")


@test
def scenario_tools_parallel_execution():
    p = Pi(*ALL_TOOLS_FLAG)
    try:
        objs = p.run_prompt("!scenario tools")
        check_stream_shapes(objs)
        names = ["bash", "read", "edit", "write", "grep", "find", "ls", "frobnicate", "bash"]
        am = [o for o in objs if o["type"] == "message_end" and o["message"]["role"] == "assistant"]
        first = am[0]["message"]
        check(first["stopReason"] == "toolUse")
        calls = [c for c in first["content"] if c["type"] == "toolCall"]
        check([c["name"] for c in calls] == names, [c["name"] for c in calls])
        check(calls[1]["arguments"] == {"path": "src/app.ts", "offset": 90, "limit": 20})
        ts = types(objs)
        i_end = ts.index("message_end", ts.index("message_start", 5))
        starts = [o for o in objs if o["type"] == "tool_execution_start"]
        ends = [o for o in objs if o["type"] == "tool_execution_end"]
        check([s["toolName"] for s in starts] == names)
        check([s["args"] for s in starts] == [c["arguments"] for c in calls])
        # unknown tool fails immediately (during preparation), runnable ones end in call order
        check([e["toolName"] for e in ends] == ["frobnicate", "bash", "read", "edit", "write", "grep", "find", "ls",
                                                 "bash"], [e["toolName"] for e in ends])
        check(ends[0]["isError"] and ends[0]["result"] == {"content": [{"type": "text", "text":
                                                                        "Tool frobnicate not found"}], "details": {}})
        first_end = next(i for i, o in enumerate(objs) if o["type"] == "tool_execution_end" and o["toolName"] != "frobnicate")
        last_start = max(i for i, o in enumerate(objs) if o["type"] == "tool_execution_start")
        check(last_start < first_end, "all tool_execution_start before runnable tools finish")
        check(i_end < objs.index(starts[0]))
        # updates accumulate and interleave between the two bash calls
        ups = [o for o in objs if o["type"] == "tool_execution_update"]
        ids = [u["toolCallId"] for u in ups]
        check(len(set(ids)) == 2 and any(a != b for a, b in zip(ids, ids[1:])), "interleaved updates")
        last = {}
        for u in ups:
            t = u["partialResult"]["content"][0]["text"]
            check(t.startswith(last.get(u["toolCallId"], "")), "partialResult is accumulated")
            last[u["toolCallId"]] = t
            check(list(u.keys()) == ["type", "toolCallId", "toolName", "args", "partialResult"])
        by = {e["toolCallId"]: e for e in ends}
        bash_ok, lint = by[calls[0]["id"]], by[calls[8]["id"]]
        check(not bash_ok["isError"] and "Tests  15 passed" in bash_ok["result"]["content"][0]["text"])
        check("details" not in bash_ok["result"], bash_ok["result"])
        check(lint["isError"] and lint["result"]["content"][0]["text"].endswith("Command exited with code 2"))
        edit = by[calls[2]["id"]]["result"]
        check(edit["content"][0]["text"] == "Successfully replaced text in src/app.ts.")
        check(isinstance(edit["details"]["firstChangedLine"], int) and "-100 \t// TODO: handle errors" in
              edit["details"]["diff"], edit["details"])
        check(by[calls[3]["id"]]["result"]["content"][0]["text"].startswith("Successfully wrote 40 bytes"))
        # each tool_execution_end is followed by its toolResult message_start/end
        for i, o in enumerate(objs):
            if o["type"] == "tool_execution_end":
                check(objs[i + 1]["type"] == "message_start" and objs[i + 1]["message"]["role"] == "toolResult")
                check(objs[i + 1]["message"]["toolCallId"] == o["toolCallId"])
                check(list(objs[i + 2]["message"].keys())[:4] == ["role", "toolCallId", "toolName", "content"])
        te = [o for o in objs if o["type"] == "turn_end"]
        check(len(te) == 2 and len(te[0]["toolResults"]) == 9 and te[1]["toolResults"] == [])
        check(am[1]["message"]["stopReason"] == "stop")
        check(len(objs[-1]["messages"]) == 1 + 1 + 9 + 1)
        stats = p.request({"type": "get_session_stats"})["data"]
        check(stats["toolCalls"] == 9 and stats["toolResults"] == 9, stats)
    finally:
        p.close()


@test
def scenario_tools_default_toolset_and_long():
    p = Pi()
    try:
        objs = p.run_prompt("!scenario tools")
        errs = {o["toolName"]: o["result"]["content"][0]["text"] for o in objs
                if o["type"] == "tool_execution_end" and o["isError"]}
        check(errs.get("grep") == "Tool grep not found" and "ls" in errs and "find" in errs, errs)
        objs = p.run_prompt("!scenario long", timeout=30)
        calls = [o for o in objs if o["type"] == "tool_execution_start"]
        check(len(calls) >= 12, len(calls))
        check(len([o for o in objs if o["type"] == "turn_start"]) == 5)
        final = [o for o in objs if o["type"] == "message_end"][-1]["message"]["content"][0]["text"]
        for needle in ("```swift", "```python", "| File |", "🚀", "日本語", "中文"):
            check(needle in final, needle)
        trunc = [o for o in objs if o["type"] == "tool_execution_end" and "truncation" in
                 (o["result"].get("details") or {})]
        check(trunc and trunc[0]["result"]["details"]["truncation"]["truncatedBy"] == "lines")
    finally:
        p.close()


# ---------------------------------------------------------------------------------------
# retry, compaction, agent_end that is not final
# ---------------------------------------------------------------------------------------


@test
def scenario_error_retry():
    p = Pi(settings={"retry": {"baseDelayMs": 300}})
    try:
        p.send({"type": "prompt", "id": "p", "message": "!scenario error-retry"})
        objs = p.collect_until(lambda o: o.get("type") == "auto_retry_start")
        check(types(objs)[-4:] == ["message_end", "turn_end", "agent_end", "auto_retry_start"], types(objs))
        err = objs[-4]["message"]
        check(err["stopReason"] == "error" and "overloaded" in err["errorMessage"].lower())
        rs = objs[-1]
        check(rs == {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 300,
                     "errorMessage": err["errorMessage"]}, rs)
        st = p.request({"type": "get_state"})["data"]
        check(st["isStreaming"] is False, "isStreaming is false during the backoff")
        t0 = time.time()
        objs = p.collect_until(lambda o: o.get("type") == "agent_end")
        check(time.time() - t0 > 0.15, "new agent_start only after delayMs")
        ts = [t for t in types(objs) if t != "message_update"]
        check(ts[-7:] == ["agent_start", "turn_start", "message_start", "message_end", "auto_retry_end", "turn_end",
                          "agent_end"], ts)
        are = [o for o in objs if o["type"] == "auto_retry_end"][0]
        check(are == {"type": "auto_retry_end", "success": True, "attempt": 1}, are)
        check([m["role"] for m in objs[-1]["messages"]] == ["assistant"], "continue() adds no user message")
        check(objs[-1]["messages"][0]["content"][0]["text"] == "Recovered after 1 retry.")
        msgs = p.request({"type": "get_messages"})["data"]["messages"]
        check([m["role"] for m in msgs] == ["user", "assistant"], "error message removed from the context")
    finally:
        p.close()


@test
def scenario_error_exhausted_and_abort_retry():
    p = Pi(settings={"retry": {"baseDelayMs": 20, "maxRetries": 2}})
    try:
        p.send({"type": "prompt", "id": "p", "message": "!scenario error-exhausted"})
        objs = p.collect_until(lambda o: o.get("type") == "auto_retry_end", timeout=10)
        starts = [o for o in objs if o["type"] == "auto_retry_start"]
        check([(s["attempt"], s["delayMs"]) for s in starts] == [(1, 20), (2, 40)], starts)
        end = objs[-1]
        check(end["success"] is False and end["attempt"] == 2 and "overloaded" in end["finalError"], end)
        check(types(objs)[-2] == "agent_end")
    finally:
        p.close()
    p = Pi(settings={"retry": {"baseDelayMs": 5000}})
    try:
        p.send({"type": "prompt", "id": "p", "message": "!scenario error-retry"})
        p.wait(lambda o: o.get("type") == "auto_retry_start")
        r = p.request({"type": "abort_retry"})
        check(r["success"])
        e = p.wait(lambda o: o.get("type") == "auto_retry_end")
        check(e == {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": "Retry cancelled"}, e)
        # abort also cancels a pending retry, and answers after the cancellation event
        p.send({"type": "prompt", "id": "p2", "message": "!scenario error-retry"})
        p.wait(lambda o: o.get("type") == "auto_retry_start")
        p.send({"type": "abort", "id": "ab"})
        objs = p.collect_until(lambda o: o.get("id") == "ab")
        check(types(objs) == ["auto_retry_end", "response"], types(objs))
        time.sleep(0.1)
        check(p.request({"type": "get_state"})["data"]["isStreaming"] is False)
    finally:
        p.close()


@test
def scenario_overflow_and_threshold_compaction():
    p = Pi()
    try:
        p.send({"type": "prompt", "id": "p", "message": "!scenario overflow"})
        objs = p.collect_until(lambda o: o.get("type") == "auto_compaction_end")
        check(types(objs)[-3:] == ["agent_end", "auto_compaction_start", "auto_compaction_end"], types(objs))
        check(objs[-2] == {"type": "auto_compaction_start", "reason": "overflow"})
        end = objs[-1]
        check(list(end.keys()) == ["type", "result", "aborted", "willRetry"] and end["willRetry"] is True)
        check(list(end["result"].keys()) == ["summary", "firstKeptEntryId", "tokensBefore", "details"])
        t0 = time.time()
        objs = p.collect_until(lambda o: o.get("type") == "agent_end")
        check(time.time() - t0 >= 0.08, "agent_start ~100 ms after auto_compaction_end")
        check(objs[0]["type"] == "agent_start")
        check(objs[-1]["messages"][-1]["content"][0]["text"] == "Continuing after the context was compacted.")
        msgs = p.request({"type": "get_messages"})["data"]["messages"]
        check(msgs[0]["role"] == "compactionSummary" and list(msgs[0].keys()) == ["role", "summary", "tokensBefore",
                                                                                  "timestamp"])
        check([m["role"] for m in msgs] == ["compactionSummary", "user", "assistant"], [m["role"] for m in msgs])
        objs = p.run_prompt("!scenario threshold-compaction")
        more = p.collect_until(lambda o: o.get("type") == "auto_compaction_end")
        check(more[0] == {"type": "auto_compaction_start", "reason": "threshold"}, more[0])
        check(more[-1]["willRetry"] is False and more[-1]["aborted"] is False and "result" in more[-1])
        sf = p.request({"type": "get_state"})["data"]["sessionFile"]
        kinds = [json.loads(l)["type"] for l in open(sf, encoding="utf-8")]
        check(kinds.count("compaction") == 2, kinds)
    finally:
        p.close()


@test
def manual_compact_and_errors():
    p = Pi()
    try:
        p.run_prompt("first question")
        r = p.request({"type": "compact", "customInstructions": "focus on tests"})
        d = r["data"]
        check(r["success"] and list(d.keys()) == ["summary", "firstKeptEntryId", "tokensBefore", "details"], r)
        check(d["tokensBefore"] > 0 and d["details"] == {"readFiles": [], "modifiedFiles": []}, d)
        check("focus on tests" in d["summary"])
        # compacting again right away: the catch-all error has no id and the wrong command
        p.send({"type": "compact", "id": "c2"})
        r = p.wait(lambda o: o.get("type") == "response")
        check(r == {"type": "response", "command": "parse", "success": False,
                    "error": "Failed to parse command: Already compacted"}, r)
        st = p.request({"type": "get_state"})["data"]
        check(st["isCompacting"] is False and st["messageCount"] == 3)
        # compact is slow: a later fast command answers first; isCompacting is true meanwhile
        p.run_prompt("more")
        p.send({"type": "compact", "id": "c3"})
        p.send({"type": "get_state", "id": "g"})
        first = p.wait(lambda o: o.get("type") == "response")
        check(first["id"] == "g" and first["data"]["isCompacting"] is True, first)
        check(p.wait(lambda o: o.get("type") == "response")["id"] == "c3")
    finally:
        p.close()
    p = Pi(env={"FAKE_PI_CANCEL_COMPACT": "1"})  # an extension vetoes compaction
    try:
        p.send({"type": "compact", "id": "c"})
        r = p.wait(lambda o: o.get("type") == "response")
        check(r["error"] == "Failed to parse command: Compaction cancelled" and "id" not in r, r)
        p.send({"type": "prompt", "id": "p", "message": "!scenario overflow"})
        e = p.wait(lambda o: o.get("type") == "auto_compaction_end")
        check(e == {"type": "auto_compaction_end", "aborted": True, "willRetry": False}, e)
    finally:
        p.close()


# ---------------------------------------------------------------------------------------
# extension UI sub-protocol
# ---------------------------------------------------------------------------------------


def ui_req(p, method, timeout=10):
    return p.wait(lambda o: o.get("type") == "extension_ui_request" and o.get("method") == method, timeout,
                  f"extension_ui_request {method}")


def final_text(p, timeout=10):
    ae = p.wait(lambda o: o.get("type") == "agent_end", timeout, "agent_end")
    return ae["messages"][-1]["content"][-1]["text"]


@test
def ui_select_gate_answers():
    p = Pi()
    try:
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui select"})
        r = ui_req(p, "select")
        check(list(r.keys()) == ["type", "id", "method", "title", "options", "timeout"], list(r.keys()))
        check(r["title"] == "Dangerous command: rm -rf ./build" and r["options"] == ["Allow", "Block"])
        check(r["timeout"] == 30000 and len(r["id"]) == 36)
        p.send({"type": "extension_ui_response", "id": "stale-id", "value": "Block"})  # silently dropped
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "Allow"})
        n = ui_req(p, "notify")
        check(n["message"] == "Command allowed" and n["notifyType"] == "info")
        check(final_text(p) == 'select answer: "Allow"')
        # Block
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui select"})
        r = ui_req(p, "select")
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "Block"})
        check(ui_req(p, "notify")["notifyType"] == "warning")
        check(final_text(p) == 'select answer: "Block"')
        # wrong shape (confirmed to a select) -> default undefined
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui select 0"})
        r = ui_req(p, "select")
        check("timeout" not in r, "no timeout field when the dialog has none")
        p.send({"type": "extension_ui_response", "id": r["id"], "confirmed": True})
        check(final_text(p) == "select answer: null")
        # timeout: resolved silently with the default; a late answer is ignored
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui select 200"})
        r = ui_req(p, "select")
        check(r["timeout"] == 200)
        t0 = time.time()
        check(final_text(p) == "select answer: null")
        check(time.time() - t0 >= 0.15)
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "Allow"})
        check(p.request({"type": "get_state"})["success"])
    finally:
        p.close()


@test
def ui_confirm_input_editor_dialogs():
    p = Pi()
    try:
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui confirm"})
        r = ui_req(p, "confirm")
        check(list(r.keys()) == ["type", "id", "method", "title", "message", "timeout"], r)
        p.send({"type": "extension_ui_response", "id": r["id"], "confirmed": True})
        check(final_text(p) == "confirm answer: true")
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui confirm"})
        r = ui_req(p, "confirm")
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "yes"})  # wrong shape -> false
        check(final_text(p) == "confirm answer: false")
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui confirm 150"})
        ui_req(p, "confirm")
        check(final_text(p) == "confirm answer: false")
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui input"})
        r = ui_req(p, "input")
        check(list(r.keys()) == ["type", "id", "method", "title", "placeholder"], r)
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "feature/x ✓"})
        check(final_text(p) == 'input answer: "feature/x ✓"')
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui input"})
        r = ui_req(p, "input")
        p.send({"type": "extension_ui_response", "id": r["id"], "cancelled": True})
        check(final_text(p) == "input answer: null")
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui editor"})
        r = ui_req(p, "editor")
        check(list(r.keys()) == ["type", "id", "method", "title", "prefill"] and "\n" in r["prefill"], r)
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "line1\nline2"})
        check(final_text(p) == 'editor answer: "line1\\nline2"')
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui ask-select 0"})
        r = ui_req(p, "select")
        check(r["options"] == ["red", "green", "blue"] and "timeout" not in r, r)
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "purple"})  # not validated
        check(final_text(p) == 'select answer: "purple"')
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui ask-select 0 24"})
        r = ui_req(p, "select")
        check(len(r["options"]) == 24 and r["options"][:4] == ["red", "green", "blue", "colour 4"]
              and r["options"][-1] == "colour 24", r)
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "colour 24"})
        check(final_text(p) == 'select answer: "colour 24"')
        # abort while an ask_user dialog is open: the tool's signal dismisses it silently
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui input"})
        ui_req(p, "input")
        r = p.request({"type": "abort"})
        check(r["success"])
    finally:
        p.close()


@test
def ui_fire_and_forget():
    p = Pi()
    try:
        objs = p.run_prompt("!scenario ui fire")
        reqs = [o for o in objs if o["type"] == "extension_ui_request"]
        check(types(objs)[-3:] == ["extension_ui_request", "extension_ui_request", "agent_end"],
              "agent_end handler output precedes agent_end")
        by = {}
        for r in reqs:
            by.setdefault(r["method"], []).append(r)
        notes = by["notify"]
        check([n.get("notifyType") for n in notes] == ["info", "warning", "error", None], notes)
        check("notifyType" not in notes[3])
        st = by["setStatus"]
        check(st[0]["statusKey"] == "fake-pi" and st[0]["statusText"].startswith("Turn"))
        check("statusText" not in st[-1], "cleared status omits statusText")
        w = by["setWidget"]
        check(w[0]["widgetLines"] == ["Widget line 1", "Widget line 2"] and w[0]["widgetPlacement"] == "aboveEditor")
        check(w[1]["widgetPlacement"] == "belowEditor" and "widgetPlacement" not in w[2])
        check("widgetLines" not in w[-1] and "widgetPlacement" not in w[-1], "cleared widget")
        check(by["setTitle"][0]["title"] == "pi: fake scenario")
        check(by["set_editor_text"][0]["text"] == "Draft reply from the fake extension")
        # requests from the turn_start handler precede the turn_start event
        i_req = next(i for i, o in enumerate(objs) if o["type"] == "extension_ui_request")
        check(i_req < types(objs).index("turn_start"))
    finally:
        p.close()


@test
def extension_commands_and_errors():
    p = Pi()
    try:
        cmds = p.request({"type": "get_commands"})["data"]["commands"]
        check({"foo", "fail", "rpc-input", "rpc-editor", "rpc-prefill"} <= {c["name"] for c in cmds})
        check(all(c["source"] == "extension" and c["path"].endswith("fake-pi-ext.ts") for c in cmds), cmds)
        p.send({"type": "prompt", "id": "f", "message": "/foo bar baz"})
        objs = p.collect_until(lambda o: o.get("type") == "response" and o.get("id") == "f")
        check(objs[-2]["type"] == "extension_ui_request" and objs[-2]["message"] == "foo: bar baz",
              "command's synchronous UI output precedes the response")
        time.sleep(0.2)
        p.send({"type": "prompt", "id": "x", "message": "/fail"})
        e = p.wait(lambda o: o.get("type") == "extension_error")
        check(e == {"type": "extension_error", "extensionPath": "command:fail", "event": "command",
                    "error": "fail command exploded"}, e)
        p.send({"type": "prompt", "id": "i", "message": "/rpc-input"})
        r = ui_req(p, "input")
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "42"})
        check(ui_req(p, "notify")["message"] == "You entered: 42")
        time.sleep(0.1)
        check(not any(o and o.get("type") == "agent_start" for _, o in p.lines), "extension commands start no run")
        # steer with an extension command -> catch-all parse error without id
        p.send({"type": "steer", "id": "s", "message": "/foo"})
        r = p.wait(lambda o: o.get("type") == "response" and o.get("command") in ("parse", "steer"))
        check(r == {"type": "response", "command": "parse", "success": False, "error":
                    'Failed to parse command: Extension command "/foo" cannot be queued. Use prompt() or execute '
                    'the command when not streaming.'}, r)
        # unknown slash command goes to the LLM as text
        objs = p.run_prompt("/model sonnet")
        check(objs[-1]["messages"][-1]["content"][0]["text"] == "Echo: /model sonnet")
    finally:
        p.close()
    p = Pi("--no-extensions")
    try:
        check(p.request({"type": "get_commands"})["data"]["commands"] == [])
        objs = p.run_prompt("/foo")
        check("agent_start" in types(objs))
    finally:
        p.close()


@test
def scenario_agent_throw_extension_error_custom_message():
    p = Pi()
    try:
        objs = p.run_prompt("!scenario agent-throw")
        check(types(objs) == ["response", "agent_start", "turn_start", "message_start", "message_end", "agent_end"],
              types(objs))
        ms = objs[-1]["messages"]
        check(len(ms) == 1 and ms[0]["role"] == "assistant" and ms[0]["stopReason"] == "error", ms)
        check(ms[0]["content"] == [{"type": "text", "text": ""}] and ms[0]["errorMessage"])
        objs = p.run_prompt("!scenario extension-error")
        ee = [o for o in objs if o["type"] == "extension_error"]
        check(len(ee) == 1 and ee[0]["event"] == "turn_start" and ee[0]["extensionPath"].endswith("fake-pi-ext.ts"))
        check(objs[-1]["messages"][-1]["stopReason"] == "stop")
        objs = p.run_prompt("!scenario custom-message")
        roles = [o["message"]["role"] for o in objs if o["type"] == "message_start"]
        check(roles[:3] == ["user", "custom", "assistant"], roles)
        cm = [o for o in objs if o["type"] == "message_start"][1]["message"]
        check(list(cm.keys()) == ["role", "customType", "content", "display", "details", "timestamp"], cm)
    finally:
        p.close()


# ---------------------------------------------------------------------------------------
# busy agent: abort, queueing, concurrent commands, silent aborts
# ---------------------------------------------------------------------------------------


def start_slow(p, n=40, ms=50):
    p.send({"type": "prompt", "id": "slow", "message": f"!scenario slow {n} {ms}"})
    p.wait(lambda o: ame(o) == "text_delta", what="first delta")


@test
def abort_in_flight_message():
    p = Pi()
    try:
        start_slow(p)
        p.send({"type": "abort", "id": "a"})
        objs = p.collect_until(lambda o: o.get("type") == "response" and o.get("id") == "a")
        ts = [t for t in types(objs) if t != "message_update"]
        check(ts == ["message_end", "turn_end", "agent_end", "response"], ts)
        m = objs[ts.index("message_end") + sum(1 for t in types(objs)[:types(objs).index("message_end")]
                                               if t == "message_update")]["message"]
        m = [o for o in objs if o["type"] == "message_end"][0]["message"]
        check(m["stopReason"] == "aborted" and m["errorMessage"] == "Request was aborted", m)
        check(m["content"][0]["type"] == "text" and "index" not in m["content"][0])
        check(objs[-1] == {"id": "a", "type": "response", "command": "abort", "success": True})
        check(p.request({"type": "get_state"})["data"]["isStreaming"] is False)
        r = p.request({"type": "abort"})  # idle abort answers at once
        check(r["success"])
        # aborted message with content is still the "last assistant text"
        check(p.request({"type": "get_last_assistant_text"})["data"]["text"].startswith("chunk 1"))
    finally:
        p.close()


@test
def busy_prompt_without_streaming_behavior_gets_two_responses():
    p = Pi()
    try:
        start_slow(p, 20, 30)
        p.send({"type": "prompt", "id": "dup", "message": "second"})
        r1 = p.wait(lambda o: o.get("id") == "dup")
        r2 = p.wait(lambda o: o.get("id") == "dup")
        check(r1 == {"id": "dup", "type": "response", "command": "prompt", "success": False, "error":
                     "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the "
                     "message."}, r1)
        check(r2 == {"id": "dup", "type": "response", "command": "prompt", "success": True}, r2)
        p.wait(lambda o: o.get("type") == "agent_end")
    finally:
        p.close()
    p = Pi(env={"FAKE_PI_INPUT_HANDLER": "1"})  # with an extension input handler the failure comes second
    try:
        start_slow(p, 20, 30)
        p.send({"type": "prompt", "id": "dup", "message": "second"})
        r1 = p.wait(lambda o: o.get("id") == "dup")
        r2 = p.wait(lambda o: o.get("id") == "dup")
        check(r1["success"] is True and r2["success"] is False, (r1, r2))
    finally:
        p.close()


@test
def steer_and_follow_up_queue_semantics():
    p = Pi()
    try:
        start_slow(p, 30, 30)
        check(p.request({"type": "steer", "message": "steer me"})["success"])
        check(p.request({"type": "prompt", "message": "later please", "streamingBehavior": "followUp"})["success"])
        st = p.request({"type": "get_state"})["data"]
        check(st["pendingMessageCount"] == 2 and st["isStreaming"] is True, st)
        objs = p.collect_until(lambda o: o.get("type") == "agent_end", timeout=15)
        ts = [t for t in types(objs) if t not in ("message_update", "response")]
        # turn 1 ends, steering starts turn 2 (user message then assistant), follow-up starts turn 3
        check(ts.count("turn_start") == 2 and ts.count("agent_start") == 0, ts)
        users = [o["message"] for o in objs if o["type"] == "message_start" and o["message"]["role"] == "user"]
        check([u["content"][0]["text"] for u in users] == ["steer me", "later please"], users)
        texts = [o["message"]["content"][0]["text"] for o in objs if o["type"] == "message_end" and
                 o["message"]["role"] == "assistant"]
        check(texts[-2:] == ["Echo: steer me", "Echo: later please"], texts)
        check(p.request({"type": "get_state"})["data"]["pendingMessageCount"] == 0)
        # steer while idle waits in the queue and is injected right after the next prompt
        check(p.request({"type": "steer", "message": "queued steer"})["success"])
        check(p.request({"type": "get_state"})["data"]["pendingMessageCount"] == 1)
        objs = p.run_prompt("next prompt", streamingBehavior="steer")  # ignored when idle
        users = [o["message"]["content"][0]["text"] for o in objs if o["type"] == "message_start" and
                 o["message"]["role"] == "user"]
        check(users == ["next prompt", "queued steer"], users)
        check(types(objs).count("turn_start") == 1)
    finally:
        p.close()


@test
def steer_all_mode_and_skipped_tools():
    p = Pi(settings={"steeringMode": "all", "retry": {"baseDelayMs": 40}})
    try:
        check(p.request({"type": "get_state"})["data"]["steeringMode"] == "all")
        # a steer that arrives while a tool_call gate (select dialog) is open skips the remaining tools
        p.send({"type": "prompt", "id": "p", "message": "!scenario ui select"})
        r = ui_req(p, "select")
        check(p.request({"type": "steer", "message": "stop, do this instead"})["success"])
        check(p.request({"type": "steer", "message": "and this"})["success"])
        p.send({"type": "extension_ui_response", "id": r["id"], "value": "Allow"})
        objs = p.collect_until(lambda o: o.get("type") == "agent_end")
        ends = [o for o in objs if o["type"] == "tool_execution_end"]
        check([e["toolName"] for e in ends] == ["bash", "read"] and all(e["isError"] for e in ends), ends)
        check(all(e["result"]["content"][0]["text"] == "Skipped due to queued user message." for e in ends))
        starts = [o for o in objs if o["type"] == "tool_execution_start"]
        check([s["toolName"] for s in starts] == ["read"], "the gated call already had its start")
        users = [o["message"]["content"][0]["text"] for o in objs if o["type"] == "message_start" and
                 o["message"]["role"] == "user"]
        check(users == ["stop, do this instead", "and this"], users)
    finally:
        p.close()


@test
def compact_and_new_session_abort_silently():
    p = Pi()
    try:
        p.run_prompt("warm up")
        start_slow(p, 40, 40)
        p.send({"type": "compact", "id": "c"})
        objs = p.collect_until(lambda o: o.get("type") == "response" and o.get("id") == "c")
        bad = [t for t in types(objs) if t in ("message_end", "turn_end", "agent_end")]
        check(bad == [], f"aborted run must be silent, got {bad}")
        check(objs[-1]["success"] and "summary" in objs[-1]["data"])
        time.sleep(0.2)
        check(not any(o and o.get("type") in ("agent_end", "turn_end") for _, o in p.lines[-5:]))
        st = p.request({"type": "get_state"})["data"]
        check(st["isStreaming"] is False)
        sf = st["sessionFile"]
        start_slow(p, 40, 40)
        p.send({"type": "new_session", "id": "n", "parentSession": sf})
        objs = p.collect_until(lambda o: o.get("type") == "response" and o.get("id") == "n")
        check([t for t in types(objs) if t in ("message_end", "turn_end", "agent_end")] == [])
        check(objs[-1]["data"] == {"cancelled": False}, objs[-1])
        st2 = p.request({"type": "get_state"})["data"]
        check(st2["sessionFile"] != sf and st2["messageCount"] == 0 and st2["sessionId"] != st["sessionId"])
        p.run_prompt("in the new session")
        hdr = json.loads(open(st2["sessionFile"], encoding="utf-8").readline())
        check(hdr["parentSession"] == sf, hdr)
    finally:
        p.close()


@test
def confirm_on_new_session_can_cancel():
    p = Pi(env={"FAKE_PI_CONFIRM_NEW_SESSION": "1"})
    try:
        p.send({"type": "new_session", "id": "n"})
        r = ui_req(p, "confirm")
        check(r["title"] == "Clear session?" and "timeout" not in r)
        p.send({"type": "extension_ui_response", "id": r["id"], "confirmed": False})
        resp = p.wait(lambda o: o.get("id") == "n")
        check(resp["data"] == {"cancelled": True})
        p.send({"type": "new_session", "id": "n2"})
        r = ui_req(p, "confirm")
        p.send({"type": "extension_ui_response", "id": r["id"], "confirmed": True})
        check(p.wait(lambda o: o.get("id") == "n2")["data"] == {"cancelled": False})
    finally:
        p.close()


@test
def bash_command_concurrency_and_abort_bash():
    p = Pi()
    try:
        r = p.request({"type": "bash", "command": "echo hello; echo err >&2; exit 3"})
        check(r["data"] == {"output": "hello\nerr\n", "exitCode": 3, "cancelled": False, "truncated": False}, r)
        msgs = p.request({"type": "get_messages"})["data"]["messages"]
        check(msgs[-1]["role"] == "bashExecution" and msgs[-1]["command"].startswith("echo hello"), msgs)
        # slow bash answers after a later fast command
        p.send({"type": "bash", "id": "b", "command": "sleep 0.4; echo done"})
        p.send({"type": "get_state", "id": "g"})
        first = p.wait(lambda o: o.get("type") == "response")
        check(first["id"] == "g", first)
        check(p.wait(lambda o: o.get("id") == "b")["data"]["output"] == "done\n")
        p.send({"type": "bash", "id": "k", "command": "sleep 5"})
        time.sleep(0.2)
        check(p.request({"type": "abort_bash"})["success"])
        r = p.wait(lambda o: o.get("id") == "k", timeout=4)
        check(r["data"] == {"output": "", "cancelled": True, "truncated": False}, r)
        # the bash output is in the LLM context on the next prompt
        objs = p.run_prompt("what did bash say?")
        check(objs[-1]["messages"][0]["role"] == "user")
        r = p.request({"type": "bash", "command": "seq 1 30000"})
        d = r["data"]
        check(d["truncated"] is True and d["fullOutputPath"].startswith(tempfile.gettempdir()), d.keys())
        check(d["output"].endswith("30000\n") or d["output"].endswith("30000"), d["output"][-20:])
    finally:
        p.close()


# ---------------------------------------------------------------------------------------
# models, thinking, settings persistence
# ---------------------------------------------------------------------------------------


@test
def custom_models_json_text_only():
    agent = tempfile.mkdtemp(prefix="fakepi-models-")
    with open(os.path.join(agent, "models.json"), "w") as f:
        json.dump({"providers": {"ollama": {"baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions",
                                            "apiKey": "ollama", "models": [{"id": "llama3.1:8b"}]}}}, f)
    p = Pi("--provider", "ollama", "--model", "llama3.1:8b", agent_dir=agent)
    try:
        model = p.request({"type": "get_state"})["data"]["model"]
        check(model["provider"] == "ollama" and model["id"] == "llama3.1:8b", model)
        check(model["input"] == ["text"] and model["reasoning"] is False, model)
        ids = [m["id"] for m in p.request({"type": "get_available_models"})["data"]["models"]]
        check("llama3.1:8b" in ids and "claude-opus-4-6" in ids, ids)
    finally:
        p.close()


@test
def models_and_thinking():
    p = Pi(env={"FAKE_PI_AUTH": "anthropic,openai:broken"})
    try:
        models = p.request({"type": "get_available_models"})["data"]["models"]
        check([m["id"] for m in models] == ["claude-haiku-4-5", "claude-opus-4-6", "claude-sonnet-4-5",
                                            "gpt-5.1-codex", "gpt-5.4"], [m["id"] for m in models])
        check(list(models[0].keys()) == ["id", "name", "api", "provider", "baseUrl", "reasoning", "input", "cost",
                                         "contextWindow", "maxTokens"])
        r = p.request({"type": "set_model", "provider": "google", "modelId": "gemini"})
        check(r == {"id": r["id"], "type": "response", "command": "set_model", "success": False,
                    "error": "Model not found: google/gemini"}, r)
        p.send({"type": "set_model", "id": "sm", "provider": "openai", "modelId": "gpt-5.4"})
        r = p.wait(lambda o: o.get("type") == "response")
        check(r == {"type": "response", "command": "parse", "success": False,
                    "error": "Failed to parse command: No API key for openai/gpt-5.4"}, r)
        r = p.request({"type": "set_model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
        check(r["data"]["id"] == "claude-sonnet-4-5" and r["data"]["contextWindow"] == 200000, r)
        check(p.request({"type": "get_state"})["data"]["model"]["id"] == "claude-sonnet-4-5")
        check(p.request({"type": "set_thinking_level", "level": "xhigh"})["success"])
        check(p.request({"type": "get_state"})["data"]["thinkingLevel"] == "high", "clamped: sonnet has no xhigh")
        r = p.request({"type": "cycle_thinking_level"})
        check(r["data"] == {"level": "off"}, r)
        p.send({"type": "cycle_model", "id": "cm"})  # next available model has broken credentials
        r = p.wait(lambda o: o.get("type") == "response")
        check(r["error"] == "Failed to parse command: No API key for openai/gpt-5.1-codex", r)
        settings = json.load(open(os.path.join(p.agent_dir, "settings.json")))
        check(settings["defaultProvider"] == "anthropic" and settings["defaultThinkingLevel"] == "off", settings)
        check(p.request({"type": "set_steering_mode", "mode": "all"})["success"])
        check(p.request({"type": "set_follow_up_mode", "mode": "all"})["success"])
        check(p.request({"type": "set_auto_compaction", "enabled": False})["success"])
        check(p.request({"type": "set_auto_retry", "enabled": False})["success"])
        st = p.request({"type": "get_state"})["data"]
        check(st["steeringMode"] == "all" and st["followUpMode"] == "all" and st["autoCompactionEnabled"] is False)
        settings = json.load(open(os.path.join(p.agent_dir, "settings.json")))
        check(settings["retry"]["enabled"] is False and settings["compaction"]["enabled"] is False, settings)
    finally:
        p.close()
    p = Pi("--model", "openai/gpt-5.4", env={"FAKE_PI_AUTH": "anthropic,openai:broken"})
    try:
        # prompt with unusable credentials: success first, then the failure (after an await)
        p.send({"type": "prompt", "id": "k", "message": "hi"})
        r1 = p.wait(lambda o: o.get("id") == "k")
        r2 = p.wait(lambda o: o.get("id") == "k")
        check(r1["success"] is True and r2["success"] is False and r2["error"].startswith("No API key found for openai"))
    finally:
        p.close()
    p = Pi("--model", "sonnet:low", "--thinking", "high")
    try:
        st = p.request({"type": "get_state"})["data"]
        check(st["model"]["id"] == "claude-sonnet-4-5" and st["thinkingLevel"] == "high", st)
        r = p.request({"type": "cycle_model"})
        check(list(r["data"].keys()) == ["model", "thinkingLevel", "isScoped"], r)
        check(r["data"]["model"]["id"] == "claude-haiku-4-5" and r["data"]["isScoped"] is False, r)
    finally:
        p.close()


# ---------------------------------------------------------------------------------------
# sessions
# ---------------------------------------------------------------------------------------


@test
def session_resume_continue_dir_and_memory():
    tmp = tempfile.mkdtemp(prefix="fakepi-sessions-")
    try:
        sdir = os.path.join(tmp, "sess")
        p = Pi("--session-dir", sdir)
        p.run_prompt("one")
        sf = p.request({"type": "get_state"})["data"]["sessionFile"]
        check(os.path.dirname(sf) == sdir and os.path.exists(sf))
        p.close()
        p = Pi("--session", sf)
        st = p.request({"type": "get_state"})["data"]
        check(st["sessionFile"] == sf and st["messageCount"] == 2, st)
        p.run_prompt("two")
        check(p.request({"type": "get_state"})["data"]["messageCount"] == 4)
        p.close()
        entries = [json.loads(l) for l in open(sf, encoding="utf-8")]
        check(sum(1 for e in entries if e["type"] == "message") == 4)
        check(sum(1 for e in entries if e["type"] == "session") == 1)
        p = Pi("--continue", "--session-dir", sdir)
        check(p.request({"type": "get_state"})["data"]["messageCount"] == 4)
        forks = p.request({"type": "get_fork_messages"})["data"]["messages"]
        check([f["text"] for f in forks] == ["one", "two"] and all(len(f["entryId"]) == 8 for f in forks), forks)
        r = p.request({"type": "fork", "entryId": forks[1]["entryId"]})
        check(r["data"] == {"text": "two", "cancelled": False}, r)
        st = p.request({"type": "get_state"})["data"]
        check(st["messageCount"] == 2 and st["sessionFile"] != sf, st)
        p.send({"type": "fork", "id": "bad", "entryId": "nope"})
        r = p.wait(lambda o: o.get("type") == "response")
        check(r["command"] == "parse" and r["error"] == "Failed to parse command: Invalid entry ID for forking")
        r = p.request({"type": "switch_session", "sessionPath": sf})
        check(r["data"] == {"cancelled": False})
        check(p.request({"type": "get_state"})["data"]["messageCount"] == 4)
        out = os.path.join(tmp, "out.html")
        r = p.request({"type": "export_html", "outputPath": out})
        check(r["data"] == {"path": out} and os.path.exists(out))
        p.close()
        p = Pi("--no-session")
        st = p.request({"type": "get_state"})["data"]
        check("sessionFile" not in st and st["sessionId"], st)
        p.run_prompt("nothing persisted")
        check("sessionFile" not in p.request({"type": "get_session_stats"})["data"])
        p.send({"type": "export_html", "id": "e"})
        r = p.wait(lambda o: o.get("type") == "response")
        check(r["error"] == "Failed to parse command: Cannot export in-memory session to HTML", r)
        p.close()
        # default location: $PI_CODING_AGENT_DIR/sessions/--<cwd>--/
        p = Pi()
        sf = p.request({"type": "get_state"})["data"]["sessionFile"]
        check(sf.startswith(os.path.join(p.agent_dir, "sessions", "--")), sf)
        p.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------------
# startup quirks, process lifecycle, big lines
# ---------------------------------------------------------------------------------------


@test
def startup_quirks():
    p = Pi(env={"FAKE_PI_STARTUP_UI": "1", "FAKE_PI_MIGRATION_LINE": "1"})
    try:
        raw, obj = p.next()
        check(obj is None and raw == "Migrated global commands/ → prompts/".encode(), raw)
        got = [p.next()[1] for _ in range(3)]
        check([g["method"] for g in got] == ["setTitle", "setWidget", "setStatus"], got)
        check(all(g["type"] == "extension_ui_request" for g in got))
        check(p.request({"type": "get_state"})["success"])
    finally:
        p.close()
    p = Pi(env={"FAKE_PI_NO_MODELS": "1"})
    code = p.proc.wait(5)
    p.wait_stderr()
    check(code == 1 and b"No models available." in p.stderr, p.stderr)
    p.kill()
    p = Pi(env={"FAKE_PI_AUTH": ""})
    check(p.proc.wait(5) == 1)
    p.kill()
    p = Pi(env={"FAKE_PI_DIE_AFTER_MS": "150"})
    check(p.request({"type": "get_state"})["success"])
    code = p.proc.wait(5)
    p.wait_stderr()
    check(code == 1 and p.stderr, (code, p.stderr))
    p.kill()
    p = Pi("@file.txt")
    check(p.proc.wait(5) == 1)
    p.kill()
    log = tempfile.mktemp(prefix="fakepi-log-")
    p = Pi(env={"FAKE_PI_LOG": log})
    try:
        p.request({"type": "get_state"})
        p.send(b'{"type":"prompt","message":"x","streamingBehavior":"followUp","id":"L"}\r\n')
        p.wait(lambda o: o.get("type") == "agent_end")
    finally:
        p.close()
    lines = open(log, encoding="utf-8", newline="").read().split("\n")
    os.unlink(log)
    check(lines[0] == '{"type": "get_state", "id": "req_1"}', lines)
    check(json.loads(lines[1])["streamingBehavior"] == "followUp" and lines[1].endswith("\r"), "logged raw")


@test
def lifecycle_sigterm_and_eof_while_busy():
    p = Pi()
    check(p.request({"type": "get_state"})["success"])
    p.proc.send_signal(signal.SIGTERM)
    check(p.proc.wait(5) == -signal.SIGTERM)
    p.kill()
    p = Pi()
    start_slow(p, 10, 40)
    p.proc.stdin.close()
    objs = p.collect_until(lambda o: o.get("type") == "agent_end")  # the run still finishes
    check(p.proc.wait(5) == 0)
    p.kill()
    p = Pi()  # zero-delay streaming keeps the process alive too (an open HTTP stream)
    p.send({"type": "prompt", "id": "s", "message": "!scenario stream 3"})
    p.proc.stdin.close()
    p.collect_until(lambda o: o.get("type") == "agent_end", timeout=20)
    check(p.proc.wait(5) == 0)
    p.kill()
    p = Pi()  # a run that only awaits an un-timed dialog keeps nothing alive: Node exits
    p.send({"type": "prompt", "id": "s", "message": "!scenario ui input"})
    ui_req(p, "input")
    p.proc.stdin.close()
    check(p.proc.wait(5) == 0)
    check(not any(o and o.get("type") == "agent_end" for _, o in p.lines))
    p.kill()


@test
def scenario_huge_and_garbage_lines():
    p = Pi()
    try:
        p.send({"type": "prompt", "id": "h", "message": "!scenario huge 3"})
        big = None
        while True:
            raw, obj = p.next(30)
            if obj and obj.get("type") == "message_update" and len(raw) > 2_500_000 and big is None:
                big = raw
            if obj and obj.get("type") == "agent_end":
                break
        check(big is not None, "a multi-MB message_update line")
        check("\u2028".encode() in big and "\u2029".encode() in big and b"\\u2028" not in big)
        check(3_000_000 <= len(big) <= 3_400_000, len(big))
        objs = p.run_prompt("!scenario stdout-garbage")
        garbage = [o for o in objs if o["type"] == "__raw__"]
        check(garbage and garbage[0]["raw"] == "Migrated global commands/ → prompts/".encode(), garbage)
        i = types(objs).index("__raw__")
        check(0 < i < types(objs).index("message_end", 6), "garbage appears mid-stream")
    finally:
        p.close()


@test
def scenario_stream_volume():
    p = Pi()
    try:
        t0 = time.time()
        p.send({"type": "prompt", "id": "s", "message": "!scenario stream 8"})
        total = 0
        n = 0
        while True:
            raw, obj = p.next(30)
            total += len(raw) + 1
            n += 1
            if obj and obj.get("type") == "agent_end":
                break
        dt = time.time() - t0
        check(total >= 8 * 1024 * 1024, total)
        check(dt < 10, f"stream too slow: {dt:.1f}s")
        if VERBOSE:
            print(f"   stream: {total / 1e6:.1f} MB, {n} lines in {dt:.2f}s")
    finally:
        p.close()


# ---------------------------------------------------------------------------------------
# gen_stream.py
# ---------------------------------------------------------------------------------------


@test
def gen_stream_counts_and_shapes():
    out = tempfile.mktemp(prefix="fakepi-stream-", suffix=".jsonl")
    try:
        t0 = time.time()
        r = subprocess.run([sys.executable, os.path.join(HERE, "gen_stream.py"), "--mb", "12", "--out", out,
                            "--seed", "7"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, r.stderr)
        dt = time.time() - t0
        check(dt < 10, f"gen_stream too slow: {dt:.1f}s")
        head = r.stderr.strip().splitlines()[0]
        kv = dict(x.split("=") for x in head.split())
        size = os.path.getsize(out)
        check(12 * 1024 * 1024 <= size <= 14 * 1024 * 1024, size)
        n = 0
        dchars = 0
        texts = {}
        runs = 0
        kinds = set()
        with open(out, "rb") as f:
            for line in f:
                check(line.endswith(b"\n"))
                o = json.loads(line)
                n += 1
                t = o["type"]
                kinds.add(t)
                if t == "message_update":
                    ev = o["assistantMessageEvent"]
                    kinds.add(ev["type"])
                    check(ev["partial"] == o["message"])
                    if ev["type"] == "text_delta":
                        dchars += len(ev["delta"])
                        texts[ev["contentIndex"]] = texts.get(ev["contentIndex"], "") + ev["delta"]
                    elif ev["type"] == "text_end":
                        check(texts.pop(ev["contentIndex"]) == ev["content"])
                elif t == "agent_end":
                    runs += 1
        check(int(kv["events"]) == n and int(kv["deltaChars"]) == dchars, (kv, n, dchars))
        check(runs >= 2, runs)
        check({"thinking_delta", "toolcall_delta", "tool_execution_update", "tool_execution_end", "turn_end",
               "agent_end"} <= kinds, kinds)
        r2 = subprocess.run([sys.executable, os.path.join(HERE, "gen_stream.py"), "--mb", "12", "--out", "-",
                             "--seed", "7"], capture_output=True, timeout=60)
        check(r2.stdout == open(out, "rb").read(), "deterministic for a seed")
    finally:
        if os.path.exists(out):
            os.unlink(out)


# ---------------------------------------------------------------------------------------
# runner
# ---------------------------------------------------------------------------------------


def main():
    only = None
    if "-k" in sys.argv:
        only = sys.argv[sys.argv.index("-k") + 1]
    jobs = int(sys.argv[sys.argv.index("-j") + 1]) if "-j" in sys.argv else (1 if VERBOSE else 4)
    selected = [fn for fn in TESTS if not only or only in fn.__name__]
    t0 = time.time()

    def run_one(fn):
        t = time.time()
        try:
            fn()
            return fn.__name__, None, time.time() - t
        except Exception:
            return fn.__name__, traceback.format_exc(), time.time() - t

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        results = list(ex.map(run_one, selected))
    failed = []
    for name, err, dt in results:
        if err is None:
            print(f"ok   {name} ({dt:.2f}s)")
        else:
            failed.append(name)
            print(f"FAIL {name} ({dt:.2f}s)\n{err}")
    print(f"\n{len(selected) - len(failed)}/{len(selected)} passed in {time.time() - t0:.1f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""A scripted LLM provider that streams exactly like pi-ai's anthropic-messages provider.

Shapes reproduced (packages/ai/src/providers/anthropic.ts):
- "start" is pushed before the HTTP stream is iterated, so message_start carries an empty
  assistant message with zero usage and stopReason "stop".
- in-progress content blocks carry the provider-internal `index` (and toolCall blocks a
  `partialJson`) until their content_block_stop; they are deleted at *_end.
- thinking blocks carry `thinkingSignature` (filled just before thinking_end).
- usage: input known from the first SSE event, output at message_delta; totalTokens is the sum.
- errors/aborts end the stream with an "error" event: stopReason "error"/"aborted" and
  errorMessage appended as the last key.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import string
from dataclasses import dataclass, field

from .jsonio import dumps, jsnum
from .runtime import sleep_ms
from .session import now_ms

DEFAULT_DELTA_MS = float(os.environ.get("FAKE_PI_DELTA_MS", "4"))


@dataclass
class Reply:
    blocks: list = field(default_factory=list)  # dicts: {"kind": "text"|"thinking"|"tool", ...}
    stop: str = "stop"  # stopReason when the reply completes
    error: str | None = None  # provider error after the blocks -> stopReason "error"
    throw: str | None = None  # the stream function throws (agent loop catch path)
    delta_ms: float | None = None  # pause between deltas
    usage_input: int | None = None  # override prompt tokens (threshold compaction)
    repeat: bool = False  # not consumed (keeps failing)
    garbage: tuple | None = None  # (after_n_updates, raw stdout line)
    first_ms: float = 0  # latency before the first content block
    tag: str = ""


_TOKEN_RE = re.compile(r"\s*\S+\s*|\s+")


def split_deltas(text: str, rng: random.Random, lo=1, hi=4, max_piece=12):
    """Split text into realistic streaming deltas (a few words / CJK characters each)."""
    toks = []
    for t in _TOKEN_RE.findall(text):
        while len(t) > max_piece:
            toks.append(t[:max_piece])
            t = t[max_piece:]
        if t:
            toks.append(t)
    out = []
    i = 0
    while i < len(toks):
        n = rng.randint(lo, hi)
        out.append("".join(toks[i : i + n]))
        i += n
    if not out and text:
        out = [text]
    return out


def split_json_fragments(s: str, rng: random.Random):
    out = []
    i = 0
    while i < len(s):
        n = rng.randint(4, 24)
        out.append(s[i : i + n])
        i += n
    return out


def parse_streaming_json(s: str):
    """Best-effort partial JSON parse (like the partial-json package used by pi-ai)."""
    if not s.strip():
        return {}
    try:
        v = json.loads(s)
        return v if isinstance(v, dict) else {}
    except ValueError:
        pass
    stack = []
    in_str = False
    esc = False
    last_safe = 0
    for i, ch in enumerate(s):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if stack:
                stack.pop()
        last_safe = i
    candidates = []
    body = s
    if in_str:
        if body.endswith("\\"):
            body = body[:-1]
        candidates.append(body + '"' + "".join(reversed(stack)))
    candidates.append(s + "".join(reversed(stack)))
    trimmed = s.rstrip()
    for _ in range(4):
        trimmed = re.sub(r'(,\s*"[^"]*"?\s*:?\s*|,\s*|:\s*|"[^"]*$)$', "", trimmed)
        candidates.append(trimmed + "".join(reversed(stack)))
    for c in candidates:
        try:
            v = json.loads(c)
            if isinstance(v, dict):
                return v
        except ValueError:
            continue
    return {}


_B62 = string.ascii_letters + string.digits


def tool_call_id(rng: random.Random) -> str:
    return "toolu_01" + "".join(rng.choice(_B62) for _ in range(22))


def calculate_cost(model, usage):
    c = model["cost"]
    usage["cost"]["input"] = jsnum((c["input"] / 1000000) * usage["input"])
    usage["cost"]["output"] = jsnum((c["output"] / 1000000) * usage["output"])
    usage["cost"]["cacheRead"] = jsnum((c["cacheRead"] / 1000000) * usage["cacheRead"])
    usage["cost"]["cacheWrite"] = jsnum((c["cacheWrite"] / 1000000) * usage["cacheWrite"])
    usage["cost"]["total"] = jsnum(
        usage["cost"]["input"] + usage["cost"]["output"] + usage["cost"]["cacheRead"] + usage["cost"]["cacheWrite"]
    )


def new_assistant(model):
    return {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "stop",
        "timestamp": now_ms(),
    }


def _usage_total(u):
    u["totalTokens"] = u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"]


def update_line(ev_type: str, index: int, extra_key: str | None, extra_json: str | None, partial_json: str) -> str:
    """message_update line with key order {type, assistantMessageEvent, message} (agent-loop.ts)."""
    mid = f',"{extra_key}":{extra_json}' if extra_key else ""
    return (
        '{"type":"message_update","assistantMessageEvent":{"type":"' + ev_type + '","contentIndex":' + str(index)
        + mid + ',"partial":' + partial_json + '},"message":' + partial_json + "}"
    )


def output_chars(msg) -> int:
    n = 0
    for b in msg["content"]:
        if b["type"] == "text":
            n += len(b["text"])
        elif b["type"] == "thinking":
            n += len(b["thinking"])
        elif b["type"] == "toolCall":
            n += len(b["name"]) + len(dumps(b["arguments"]))
    return n


class StreamThrow(Exception):
    pass


async def stream_reply(reply: Reply, model, context_tokens: int, signal, rng: random.Random, write_garbage=None):
    """Async generator of ("start", msg) / ("update", raw_line) / ("end", final_msg)."""
    if reply.throw:
        raise StreamThrow(reply.throw)
    output = new_assistant(model)
    yield ("start", output)
    delta_ms = DEFAULT_DELTA_MS if reply.delta_ms is None else reply.delta_ms
    updates = 0
    aborted = False
    since_yield = 0

    async def pause(ms):
        nonlocal since_yield
        if ms > 0:
            return await sleep_ms(ms, signal)
        since_yield += 1
        if since_yield >= 64:  # let stdin commands in even on zero-delay streams
            since_yield = 0
            return await sleep_ms(0, signal)
        return not signal.aborted

    try:
        if not await pause(reply.first_ms):
            raise _Abort()
        u = output["usage"]
        if reply.blocks or reply.error is None:
            # anthropic message_start: prompt tokens known, output_tokens small
            u["input"] = reply.usage_input if reply.usage_input is not None else max(1, context_tokens)
            u["output"] = 1
            _usage_total(u)
            calculate_cost(model, u)
        blocks = output["content"]
        for spec in reply.blocks:
            kind = spec["kind"]
            idx = len(blocks)
            if kind == "text":
                block = {"type": "text", "text": "", "index": idx}
                blocks.append(block)
                yield ("update", update_line("text_start", idx, None, None, dumps(output)))
                deltas = spec.get("deltas") or split_deltas(spec["text"], rng)
                for d in deltas:
                    if not await pause(spec.get("delta_ms", delta_ms)):
                        raise _Abort()
                    block["text"] += d
                    updates += 1
                    yield ("update", update_line("text_delta", idx, "delta", dumps(d), dumps(output)))
                    if reply.garbage and updates == reply.garbage[0] and write_garbage:
                        write_garbage(reply.garbage[1])
                del block["index"]
                yield ("update", update_line("text_end", idx, "content", dumps(block["text"]), dumps(output)))
            elif kind == "thinking":
                block = {"type": "thinking", "thinking": "", "thinkingSignature": "", "index": idx}
                blocks.append(block)
                yield ("update", update_line("thinking_start", idx, None, None, dumps(output)))
                for d in spec.get("deltas") or split_deltas(spec["text"], rng):
                    if not await pause(delta_ms):
                        raise _Abort()
                    block["thinking"] += d
                    updates += 1
                    yield ("update", update_line("thinking_delta", idx, "delta", dumps(d), dumps(output)))
                # signature_delta arrives before content_block_stop (no event of its own)
                block["thinkingSignature"] = "Eq" + "".join(rng.choice(_B62) for _ in range(86)) + "=="
                del block["index"]
                yield ("update", update_line("thinking_end", idx, "content", dumps(block["thinking"]), dumps(output)))
            elif kind == "tool":
                block = {"type": "toolCall", "id": spec.get("id") or tool_call_id(rng), "name": spec["name"],
                         "arguments": {}, "partialJson": "", "index": idx}
                blocks.append(block)
                yield ("update", update_line("toolcall_start", idx, None, None, dumps(output)))
                for frag in split_json_fragments(dumps(spec["args"]), rng):
                    if not await pause(delta_ms):
                        raise _Abort()
                    block["partialJson"] += frag
                    block["arguments"] = parse_streaming_json(block["partialJson"])
                    updates += 1
                    yield ("update", update_line("toolcall_delta", idx, "delta", dumps(frag), dumps(output)))
                block["arguments"] = parse_streaming_json(block["partialJson"])
                del block["partialJson"]
                del block["index"]
                yield ("update", update_line("toolcall_end", idx, "toolCall", dumps(block), dumps(output)))
        if reply.error is not None:
            raise _ProviderError(reply.error)
        if not await pause(0):
            raise _Abort()
        # message_delta: stop reason + final usage
        output["stopReason"] = reply.stop
        u["output"] = max(1, math.ceil(output_chars(output) / 4))
        _usage_total(u)
        calculate_cost(model, u)
        yield ("end", output)
        return
    except _Abort:
        aborted = True
        err = "Request was aborted"
    except _ProviderError as e:
        err = str(e)
    for b in output["content"]:
        b.pop("index", None)  # anthropic.ts deletes only `index` here (partialJson survives)
    output["stopReason"] = "aborted" if (aborted or signal.aborted) else "error"
    output["errorMessage"] = err
    yield ("end", output)


class _Abort(Exception):
    pass


class _ProviderError(Exception):
    pass

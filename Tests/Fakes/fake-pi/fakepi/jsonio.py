"""JSONL framing that mirrors pi's `jsonl.ts` (serializeJsonLine / attachJsonlLineReader).

Output: ``JSON.stringify(obj) + "\\n"``: no ASCII escaping, compact separators, raw
U+2028/U+2029, lone surrogates escaped as ``\\udXXX`` (well-formed JSON.stringify),
numbers formatted like JavaScript's Number#toString for the ranges pi produces.

Input: split on LF only, strip one trailing CR, emit an unterminated final line at EOF.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import sys
import threading

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# Python writes 1.2e-05 where JavaScript writes 0.000012, and 1e-07 where JS writes 1e-7.
_EXP_RE = re.compile(r"(?<=[:,\[])(-?)(\d)(?:\.(\d+))?e-0?(\d+)(?=[,}\]])")


def _fix_exp(m: re.Match) -> str:
    sign, lead, frac, exp = m.group(1), m.group(2), m.group(3) or "", int(m.group(4))
    if exp <= 6:
        return f"{sign}0.{'0' * (exp - 1)}{lead}{frac}"
    return f"{sign}{lead}{'.' + frac if frac else ''}e-{exp}"


_COST_KEY = '"cost":{"input":'


def _js_numbers(s: str) -> str:
    """Rewrite Python exponent forms of small numbers the JavaScript way inside usage/model
    `cost` objects (the only place pi emits tiny floats). Inside JSON strings every quote is
    escaped, so a raw `"cost":{"input":` is always structural; this keeps text untouched and
    costs one str.find per line."""
    i = s.find(_COST_KEY)
    if i < 0:
        return s
    out = []
    last = 0
    while i >= 0:
        j = s.find("}", i) + 1
        if j <= 0:
            break
        seg = s[i:j]
        if "e-" in seg:
            out.append(s[last:i])
            out.append(_EXP_RE.sub(_fix_exp, seg))
            last = j
        i = s.find(_COST_KEY, j)
    if not out:
        return s
    out.append(s[last:])
    return "".join(out)


def dumps(obj) -> str:
    """JSON.stringify(obj) (no trailing newline)."""
    return _js_numbers(json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def jsnum(x):
    """Return an int for integral floats so they serialize like JavaScript numbers."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def encode_line(line: str) -> bytes:
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        fixed = _SURROGATE_RE.sub(lambda m: "\\u%04x" % ord(m.group(0)), line)
        return fixed.encode("utf-8")


class StdoutWriter:
    """Synchronous writes to fd 1, like Node's process.stdout on a Linux pipe."""

    def __init__(self, fd: int = 1):
        self.fd = fd
        self.lock = threading.Lock()
        self.bytes_written = 0

    def write_raw(self, data: bytes) -> None:
        with self.lock:
            view = memoryview(data)
            while view:
                try:
                    n = os.write(self.fd, view)
                except BrokenPipeError:
                    # Reader is gone: Node would die on the EPIPE error event.
                    os._exit(1)
                except InterruptedError:
                    continue
                view = view[n:]
            self.bytes_written += len(data)

    def write_line(self, line: str) -> None:
        self.write_raw(encode_line(line + "\n"))

    def write_obj(self, obj) -> None:
        self.write_line(dumps(obj))


def stdin_reader_thread(on_line, on_eof, fd: int = 0, log_path: str | None = None):
    """Read fd in a thread; call on_line(str) for every LF-terminated record and for an
    unterminated tail at EOF; then on_eof(). Callbacks are invoked from the thread, the
    caller must marshal them onto its loop."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    log_fd = None
    if log_path:
        try:
            log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as e:  # pragma: no cover - diagnostics only
            sys.stderr.write(f"fake-pi: cannot open FAKE_PI_LOG {log_path}: {e}\n")

    def emit(line: str):
        if log_fd is not None:  # the record exactly as received (a CR of CRLF is kept)
            os.write(log_fd, encode_line(line + "\n"))
        if line.endswith("\r"):
            line = line[:-1]
        on_line(line)

    buf = ""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        buf += decoder.decode(chunk)
        while True:
            i = buf.find("\n")
            if i < 0:
                break
            emit(buf[:i])
            buf = buf[i + 1 :]
    buf += decoder.decode(b"", final=True)
    if buf:
        emit(buf)
    on_eof()


_V8_TOKEN_RE = re.compile(r"^\s*$")


def js_parse(line: str):
    """JSON.parse(line). Raises ValueError with a V8-like message on failure."""

    def bad_constant(name):
        raise ValueError(f"Unexpected token '{name[0]}', \"{_snippet(line)}\" is not valid JSON")

    try:
        return json.loads(line, parse_constant=bad_constant)
    except ValueError as e:
        if isinstance(e, json.JSONDecodeError):
            raise ValueError(_v8_message(line, e)) from None
        raise


def _snippet(s: str) -> str:
    return s if len(s) <= 30 else s[:10] + "..." + s[-10:]


def _v8_message(line: str, e: json.JSONDecodeError) -> str:
    if _V8_TOKEN_RE.match(line):
        return "Unexpected end of JSON input"
    pos = e.pos
    if e.msg.startswith("Extra data"):
        return f"Unexpected non-whitespace character after JSON at position {pos}"
    if pos >= len(line) or e.msg.startswith("Unterminated string"):
        if e.msg.startswith("Unterminated string"):
            return f"Unterminated string in JSON at position {len(line)}"
        return "Unexpected end of JSON input"
    if e.msg.startswith("Expecting property name"):
        return f"Expected property name or '}}' in JSON at position {pos}"
    ch = line[pos]
    return f"Unexpected token '{ch}', \"{_snippet(line)}\" is not valid JSON"

"""Self-check for the fake plugins in this folder and for examples/echo-plugin.py.

Run: python3 Tests/Fakes/plugins/selftest.py [-v] [test-name-substring ...]

It plays the supervisor: starts each plugin as pi-relayd would (PI_RELAY_PLUGIN=1, its own
process group, cwd = a temporary state directory), reads the hello, sends a welcome and
exercises it, asserting the behaviour each fake is meant to have. Its framing code is written
independently of _proto.py on purpose. Not executable (so a supervisor scanning this folder for
plugins skips it); standard library only.
"""

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
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "echo-plugin.py")
MAX_LINE = 8 * 1024 * 1024
MiB = 1024 * 1024
VERBOSE = False


def fake(name):
    return os.path.join(HERE, name)


class Fail(AssertionError):
    pass


def check(condition, what):
    if not condition:
        raise Fail(what)


# ---- a plugin under test ---------------------------------------------------------------------


class Plugin:
    """One plugin process, seen from the supervisor's side."""

    def __init__(self, path, state_dir, env=None, plugin_env=True):
        self.path = path
        self.name = os.path.basename(path)
        environment = {k: v for k, v in os.environ.items()
                       if not k.startswith(("PI_RELAY", "FAKE_"))}
        if plugin_env:
            environment.update({"PI_RELAY_PLUGIN": "1", "PI_RELAY_PROTOCOL": "1"})
        environment.update(env or {})
        self.state_dir = state_dir
        os.makedirs(state_dir, exist_ok=True)
        self.started = time.monotonic()
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=state_dir, env=environment,
                                     start_new_session=True, close_fds=True, bufsize=0)
        self.events = queue.Queue()  # ("msg", dict) ("junk", bytes) ("oversized", n) ("tail", n) ("eof",)
        self.inbox = []  # messages read but not yet claimed
        self.junk = []  # lines that were not protocol messages
        self.oversized = []
        self.tails = []
        self.eof = False
        self.stderr = bytearray()
        self.stderr_lock = threading.Lock()
        self.next_id = 0
        self.readers = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self.readers:
            reader.start()

    # reading, LF only

    def _read_stdout(self):
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        skipped = None  # bytes skipped so far of an over-long line
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buf += chunk
            while True:
                nl = buf.find(b"\n")
                if nl < 0:
                    break
                line = bytes(buf[:nl])
                del buf[:nl + 1]
                if skipped is not None:
                    self.events.put(("oversized", skipped + len(line)))
                    skipped = None
                elif len(line) > MAX_LINE:
                    self.events.put(("oversized", len(line)))
                else:
                    self._classify(line[:-1] if line.endswith(b"\r") else line)
            if skipped is not None:
                skipped += len(buf)
                buf.clear()
            elif len(buf) > MAX_LINE:
                skipped = len(buf)
                buf.clear()
        if skipped is not None or buf:
            self.events.put(("tail", skipped if skipped is not None else len(buf)))
        self.events.put(("eof",))

    def _classify(self, line):
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            self.events.put(("junk", line))
            return
        if isinstance(message, dict) and isinstance(message.get("type"), str):
            self.events.put(("msg", message))
        else:
            self.events.put(("junk", line))

    def _read_stderr(self):
        fd = self.proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            with self.stderr_lock:
                self.stderr += chunk

    def stderr_text(self):
        with self.stderr_lock:
            return self.stderr.decode("utf-8", "replace")

    def last_stderr_line(self):
        lines = [l for l in self.stderr_text().split("\n") if l]
        return lines[-1] if lines else None

    def _pump(self, timeout):
        """Moves one event from the reader into inbox/junk/...; False on timeout or at EOF."""
        if self.eof:
            return False
        try:
            event = self.events.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return False
        kind = event[0]
        if kind == "msg":
            self.inbox.append(event[1])
        elif kind == "junk":
            self.junk.append(event[1])
        elif kind == "oversized":
            self.oversized.append(event[1])
        elif kind == "tail":
            self.tails.append(event[1])
        else:
            self.eof = True
        return True

    def expect(self, match, timeout=5.0, what="a message"):
        """Waits for (and removes from the inbox) the first message for which match(msg)."""
        deadline = time.monotonic() + timeout
        while True:
            for i, message in enumerate(self.inbox):
                if match(message):
                    return self.inbox.pop(i)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (self.eof and self.events.empty()):
                raise Fail(f"{self.name}: no {what} within {timeout} s; inbox={self.inbox[:5]!r} "
                           f"stderr tail={self.stderr_text()[-400:]!r}")
            self._pump(remaining)

    def drain(self, seconds):
        """Reads whatever arrives for `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self._pump(deadline - time.monotonic()) and self.eof:
                time.sleep(0.01)

    def first_event(self, timeout=5.0):
        """The first thing that comes out of stdout (an event tuple) or None on timeout."""
        try:
            event = self.events.get(timeout=timeout)
        except queue.Empty:
            return None
        # put it back into the right list as well
        kind = event[0]
        if kind == "msg":
            self.inbox.append(event[1])
        elif kind == "junk":
            self.junk.append(event[1])
        elif kind == "oversized":
            self.oversized.append(event[1])
        elif kind == "tail":
            self.tails.append(event[1])
        else:
            self.eof = True
        return event

    # writing

    def send_raw(self, data):
        # stdin is unbuffered (bufsize=0): one write() may take only part of a large line (CI saw
        # an 8 MiB junk line cut at 258 KB and the next line glued to it), so write the rest too.
        view = memoryview(data)
        try:
            while view:
                written = self.proc.stdin.write(view)
                if written is None:  # a non-blocking pipe that is full
                    time.sleep(0.001)
                    continue
                view = view[written:]
        except (BrokenPipeError, ValueError):
            pass

    def send(self, message, ascii_only=True):
        text = json.dumps(message, ensure_ascii=ascii_only, separators=(",", ":"))
        self.send_raw(text.encode("utf-8") + b"\n")

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    # conversations

    def hello(self, timeout=5.0):
        event = self.first_event(timeout)
        check(event is not None, f"{self.name}: no output within {timeout} s")
        check(event[0] == "msg" and event[1]["type"] == "hello",
              f"{self.name}: first line is not a hello: {event!r}")
        return self.inbox.pop()

    def welcome(self, config=None):
        self.send({"type": "welcome", "protocol": 1, "plugin": self.name,
                   "config": config if config is not None else {}, "stateDir": self.state_dir,
                   "spoolDir": os.path.join(self.state_dir, "spool"),
                   "home": os.path.dirname(self.state_dir), "sessions": [], "bindings": []})

    def handshake(self, config=None):
        hello = self.hello()
        check(hello.get("protocol") == 1, f"{self.name}: hello protocol {hello.get('protocol')!r}")
        check(isinstance(hello.get("name"), str) and isinstance(hello.get("version"), str),
              f"{self.name}: hello without name/version")
        check(isinstance(hello.get("roles"), list), f"{self.name}: hello without roles")
        self.welcome(config)
        return hello

    def new_id(self, prefix="r"):
        self.next_id += 1
        return f"{prefix}{self.next_id}"

    def send_request(self, method, params=None, rid=None, **extra):
        rid = rid or self.new_id()
        message = {"type": "request", "id": rid, "method": method,
                   "params": {} if params is None else params}
        message.update(extra)
        self.send(message)
        return rid

    def response(self, rid, timeout=5.0):
        return self.expect(lambda m: m["type"] == "response" and m.get("id") == rid, timeout,
                           f"response {rid}")

    def request(self, method, params=None, timeout=5.0):
        return self.response(self.send_request(method, params), timeout)

    def result(self, method, params=None, timeout=5.0):
        answer = self.request(method, params, timeout)
        check("result" in answer, f"{self.name}: {method} failed: {answer!r}")
        return answer["result"]

    def ping(self, pid="p1", timeout=5.0):
        self.send({"type": "ping", "id": pid})
        return self.expect(lambda m: m["type"] == "pong" and m.get("id") == pid, timeout,
                           f"pong {pid}")

    def deliver(self, did, method="chat.post", params=None, timeout=5.0):
        self.send({"type": "deliver", "id": did, "method": method,
                   "params": params if params is not None else {"text": f"message {did}"}})
        return self.expect(lambda m: m["type"] == "ack" and m.get("id") == did, timeout,
                           f"ack {did}")

    def wait_exit(self, timeout=5.0):
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Fail(f"{self.name}: still running after {timeout} s")
        # Once it is gone its pipes reach EOF: let the readers take in everything it wrote.
        for reader in self.readers:
            reader.join(2)
        return status

    def alive(self):
        return self.proc.poll() is None

    def kill(self, sig=signal.SIGKILL):
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def cleanup(self):
        self.kill()  # the whole group, even if the leader has exited
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        # The readers end at EOF once every process holding the pipes is gone. Close the fds
        # only then: a closed fd number can be reused by another test running in parallel.
        for reader in self.readers:
            reader.join(5)
        if any(reader.is_alive() for reader in self.readers):
            return  # leak the fds rather than risk a reader on a reused fd number
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


class Case:
    """Per-test scratch space; kills every plugin it started when the test ends."""

    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix=f"relay-selftest-{name}-")
        self.plugins = []

    def start(self, path, state="state", env=None, plugin_env=True):
        plugin = Plugin(path, os.path.join(self.dir, state), env, plugin_env)
        self.plugins.append(plugin)
        return plugin

    def path(self, name):
        return os.path.join(self.dir, name)

    def close(self):
        for plugin in self.plugins:
            plugin.cleanup()
        shutil.rmtree(self.dir, ignore_errors=True)


def read_jsonl(path):
    with open(path, "rb") as f:
        return [json.loads(line) for line in f.read().split(b"\n") if line]


# ---- tests: every plugin ---------------------------------------------------------------------

ALL = [EXAMPLE] + [fake(n) for n in sorted(os.listdir(HERE)) if n.startswith("fake-")]


def test_started_by_hand_exits_64(case):
    for path in ALL:
        check(os.access(path, os.X_OK), f"{path} is not executable")
        with open(path, "rb") as f:
            check(f.readline() == b"#!/usr/bin/env python3\n", f"{path}: wrong shebang")
    plugins = [case.start(p, state=f"by-hand-{os.path.basename(p)}", plugin_env=False)
               for p in ALL]
    for plugin in plugins:
        plugin.close_stdin()
    for plugin in plugins:
        status = plugin.wait_exit(10)
        check(status == 64, f"{plugin.name}: by hand exited {status}, not 64")
        plugin.drain(0.05)
        check(not plugin.inbox and not plugin.junk, f"{plugin.name}: wrote protocol by hand")
        check("pi-relayd" in plugin.stderr_text(), f"{plugin.name}: says nothing useful by hand")


# ---- tests: the example ----------------------------------------------------------------------


def test_example_protocol(case):
    plugin = case.start(EXAMPLE)
    hello = plugin.handshake()
    check(hello["name"] == "echo" and hello["roles"] == ["observer"], f"hello: {hello!r}")
    check(plugin.ping("p1")["id"] == "p1", "pong id")

    # echo, with a raw U+2028 in a string (must not be split)
    params = {"text": "a\u2028b\u2029c", "n": [1, 2.5, None, True], "nested": {"k": "é"}}
    rid = plugin.new_id()
    plugin.send({"type": "request", "id": rid, "method": "echo", "params": params},
                ascii_only=False)
    answer = plugin.response(rid)
    check(answer.get("result") == {"echo": params}, f"echo: {answer!r}")

    status = plugin.result("status")
    check(isinstance(status.get("requests"), int) and status["requests"] >= 1, f"status {status!r}")

    answer = plugin.request("no.such.method", {})
    check(answer.get("error", {}).get("code") == "method_not_found", f"unknown: {answer!r}")
    answer = plugin.request("echo", [1, 2])
    check(answer.get("error", {}).get("code") == "invalid_params", f"list params: {answer!r}")
    answer = plugin.request("slow", {"ms": "soon"})
    check(answer.get("error", {}).get("code") == "invalid_params", f"bad slow: {answer!r}")

    # junk of every kind: skipped, never fatal
    big = b'{"type":"request","id":"big","method":"echo","params":{"pad":"' + \
        b"y" * (MAX_LINE + 100) + b'"}}\n'
    for junk in [b"not json\n", b"[1,2]\n", b"\"str\"\n", b"{\"no\":\"type\"}\n",
                 b"{\"type\":7}\n", b"{\"type\":\"mystery\",\"id\":\"m\"}\n", b"\xff\xfe{\n",
                 b"\n", b"{\"type\":\"notify\",\"method\":\"who.knows\",\"params\":{}}\n",
                 b"{\"type\":\"response\",\"id\":\"nobody\",\"result\":1}\n",
                 b"{\"type\":\"request\",\"id\":\"nan\",\"method\":\"echo\",\"params\":{\"x\":NaN}}\n",
                 big, b"{\"type\":\"ping\",\"id\":\"crlf\"}\r\n"]:
        plugin.send_raw(junk)
    plugin.expect(lambda m: m["type"] == "pong" and m["id"] == "crlf", what="pong after junk")
    check(plugin.result("echo", {"still": "here"}) == {"echo": {"still": "here"}}, "echo after junk")
    plugin.drain(0.1)
    check(not any(m.get("id") in ("big", "nan", "m") for m in plugin.inbox),
          f"answered a line it should have skipped: {plugin.inbox!r}")
    status = plugin.result("status")
    check(status.get("malformedLines", 0) >= 7, f"malformed count: {status!r}")

    # a slow request does not delay pongs, and responses can come out of order
    slow = plugin.send_request("slow", {"ms": 600})
    t0 = time.monotonic()
    plugin.ping("during-slow")
    check(time.monotonic() - t0 < 0.4, "pong waited for the slow request")
    check(plugin.result("echo", {"fast": 1}) == {"echo": {"fast": 1}}, "echo during slow")
    check(plugin.response(slow).get("result") == {"slept": 600}, "slow result")

    # everything on stdout was protocol; the deliberate print went to stderr
    check(not plugin.junk and not plugin.oversized, f"junk on the example's stdout: {plugin.junk!r}")
    check("stdout now goes to stderr" in plugin.stderr_text(), "the print did not reach stderr")

    # shutdown finishes in-flight work, then exits 0 (stdin still open)
    slow = plugin.send_request("slow", {"ms": 400})
    plugin.send({"type": "shutdown", "graceMs": 3000})
    check(plugin.response(slow).get("result") == {"slept": 400}, "in-flight answer on shutdown")
    check(plugin.wait_exit(3) == 0, "shutdown exit status")


def test_example_dedupe_across_restart(case):
    received = case.path("state/received.jsonl")
    odd_id = "odd\nid \u2028 \"quoted\""
    first = case.start(EXAMPLE)
    first.handshake()
    for did in ["d1", "d2", odd_id]:
        first.deliver(did, params={"text": f"hello {did}"})
    first.deliver("d1")  # a duplicate in the same run
    check([r["id"] for r in read_jsonl(received)] == ["d1", "d2", odd_id], "first run records")
    check(read_jsonl(received)[0] == {"id": "d1", "method": "chat.post",
                                      "params": {"text": "hello d1"}}, "record shape")
    first.close_stdin()
    check(first.wait_exit(3) == 0, "exit 0 at end of input")

    second = case.start(EXAMPLE)
    second.handshake()
    for did in ["d1", "d2", odd_id, "d3"]:  # redelivered in the original order, then a new one
        second.deliver(did)
    records = read_jsonl(received)
    check([r["id"] for r in records] == ["d1", "d2", odd_id, "d3"], f"after restart: {records!r}")
    status = second.result("status")
    check(status["delivered"] == 1 and status["duplicates"] == 3, f"status {status!r}")
    with open(case.path("state/seen-ids"), "rb") as f:
        check(len([l for l in f.read().split(b"\n") if l]) == 4, "seen-ids has 4 lines")
    second.send({"type": "shutdown"})
    check(second.wait_exit(5) == 0, "shutdown exit status")


def test_example_crash_requests(case):
    plugin = case.start(EXAMPLE)
    plugin.handshake()
    rid = plugin.send_request("crash")
    check(plugin.wait_exit(3) == 3, "crash exit status")
    plugin.drain(0.1)
    check(not any(m.get("id") == rid for m in plugin.inbox), "crash answered")

    marker = case.path("crashed-once")
    first = case.start(EXAMPLE, state="s2")
    first.handshake()
    first.send_request("crash-once-file", {"path": marker}, rid="retry-1")
    check(first.wait_exit(3) == 3, "crash-once-file: first exit status")
    check(os.path.exists(marker), "crash-once-file: marker not created")
    second = case.start(EXAMPLE, state="s2")
    second.handshake()
    second.send_request("crash-once-file", {"path": marker}, rid="retry-1")
    answer = second.response("retry-1")
    check(answer.get("result") == {"path": marker, "existed": True}, f"retried: {answer!r}")
    second.close_stdin()
    check(second.wait_exit(3) == 0, "exit 0 at end of input")


def test_example_handshake_edges(case):
    plugin = case.start(EXAMPLE, state="a")
    plugin.hello()
    plugin.send({"type": "goodbye", "reason": "unsupported protocol 1; this pi-relayd speaks 2"})
    check(plugin.wait_exit(3) == 0, "goodbye before welcome: exit 0")
    check("unsupported protocol" in plugin.stderr_text(), "goodbye reason not logged")

    plugin = case.start(EXAMPLE, state="b")
    plugin.hello()
    plugin.close_stdin()
    check(plugin.wait_exit(3) == 0, "EOF before welcome: exit 0")

    plugin = case.start(EXAMPLE, state="c")
    plugin.handshake()
    plugin.send({"type": "goodbye", "reason": "go away"})
    check(plugin.wait_exit(3) == 0, "goodbye after welcome: exit 0")


# ---- tests: the fakes ------------------------------------------------------------------------


def test_fake_good(case):
    log = case.path("fake.log")
    plugin = case.start(fake("fake-good"), env={"FAKE_PLUGIN_LOG": log,
                                                "FAKE_ROLES": "messenger,formatter"})
    hello = plugin.handshake({"anything": 1})
    check(hello["name"] == "fake-good" and hello["roles"] == ["messenger", "formatter"],
          f"hello {hello!r}")
    plugin.ping("x")
    check(plugin.result("echo", {"a": [1, "\u2028"]}) == {"echo": {"a": [1, "\u2028"]}}, "echo")
    answer = plugin.request("nope")
    check(answer.get("error", {}).get("code") == "method_not_found", f"unknown {answer!r}")
    check(isinstance(plugin.result("status").get("requests"), int), "status")
    plugin.deliver("m1", params={"text": "one"})
    plugin.deliver("m1", params={"text": "one"})
    plugin.send({"type": "notify", "method": "chat.typing", "params": {}})
    plugin.send({"type": "shutdown", "graceMs": 1000})
    check(plugin.wait_exit(3) == 0, "shutdown exit status")
    check(not plugin.junk, "junk on stdout")

    again = case.start(fake("fake-good"), env={"FAKE_PLUGIN_LOG": log})
    again.handshake()
    again.deliver("m1")
    again.deliver("m2")
    again.close_stdin()
    check(again.wait_exit(3) == 0, "EOF exit status")

    entries = read_jsonl(log)
    delivers = [(e["id"], e["duplicate"], e["pid"]) for e in entries if e["event"] == "deliver"]
    p1, p2 = plugin.proc.pid, again.proc.pid
    check(delivers == [("m1", False, p1), ("m1", True, p1), ("m1", True, p2), ("m2", False, p2)],
          f"deliver log {delivers!r}")
    first = [e for e in entries if e["event"] == "deliver"][0]
    check(first["method"] == "chat.post" and first["params"] == {"text": "one"}, "deliver entry")
    events = [e["event"] for e in entries]
    for wanted in ("welcome", "request", "notify", "shutdown", "eof"):
        check(wanted in events, f"{wanted} not in the log: {events!r}")


def test_fake_crash(case):
    plugin = case.start(fake("fake-crash"), state="timer")
    plugin.handshake()
    t0 = time.monotonic()
    check(plugin.wait_exit(5) == 3, "timer crash status")
    elapsed = time.monotonic() - t0
    check(0.2 <= elapsed <= 2.5, f"crashed after {elapsed:.2f} s, not ~0.3 s")

    plugin = case.start(fake("fake-crash"), state="config")
    plugin.handshake({"crashAfterMs": 50})
    t0 = time.monotonic()
    check(plugin.wait_exit(5) == 3, "config crash status")
    check(time.monotonic() - t0 < 0.25 + 1.0, "crashAfterMs from config ignored")

    plugin = case.start(fake("fake-crash"), state="never", env={"FAKE_CRASH_AFTER_MS": "-1"})
    plugin.handshake()
    plugin.drain(0.5)
    check(plugin.alive(), "crashed although FAKE_CRASH_AFTER_MS=-1")
    check(plugin.result("echo", {"k": 1}) == {"echo": {"k": 1}}, "echo")
    rid = plugin.send_request("crash")
    check(plugin.wait_exit(3) == 3, "crash request status")
    plugin.drain(0.1)
    check(not any(m.get("id") == rid for m in plugin.inbox), "crash request answered")


def test_fake_hang(case):
    plugin = case.start(fake("fake-hang"), state="a")
    plugin.handshake()
    plugin.send({"type": "ping", "id": "h1"})
    plugin.drain(1.0)
    check(not plugin.inbox, f"hung plugin answered: {plugin.inbox!r}")
    check(plugin.alive(), "hung plugin exited")
    plugin.kill(signal.SIGTERM)
    check(plugin.wait_exit(3) == -signal.SIGTERM, "SIGTERM did not end it")

    plugin = case.start(fake("fake-hang"), state="b", env={"FAKE_IGNORE_SIGTERM": "1"})
    plugin.handshake()
    deadline = time.monotonic() + 3
    while "ignoring SIGTERM" not in plugin.stderr_text() and time.monotonic() < deadline:
        time.sleep(0.02)
    plugin.kill(signal.SIGTERM)
    time.sleep(0.3)
    check(plugin.alive(), "FAKE_IGNORE_SIGTERM=1 but SIGTERM ended it")
    plugin.kill(signal.SIGKILL)
    check(plugin.wait_exit(3) == -signal.SIGKILL, "SIGKILL did not end it")


def test_fake_noread(case):
    plugin = case.start(fake("fake-noread"))
    plugin.handshake()
    time.sleep(0.2)  # let it read the welcome
    fd = plugin.proc.stdin.fileno()
    os.set_blocking(fd, False)
    written, blocked = 0, False
    ping = b'{"type":"ping","id":"q"}\n' * 2000
    while written < 16 * MiB:
        try:
            written += os.write(fd, ping)
        except BlockingIOError:
            blocked = True
            break
    check(blocked, f"wrote {written} bytes without filling the pipe")
    plugin.drain(1.2)
    check(plugin.alive(), "fake-noread exited")
    check(not plugin.inbox, "fake-noread answered")
    check("alive, not reading stdin" in plugin.stderr_text(), "no heartbeat on stderr")


def test_fake_garbage(case):
    plugin = case.start(fake("fake-garbage"))
    plugin.handshake()
    check(plugin.result("echo", {"after": "junk"}, timeout=10) == {"echo": {"after": "junk"}},
          "echo after junk")
    check(plugin.oversized == [10 * MiB], f"over-long lines: {plugin.oversized!r}")
    check(len(plugin.junk) == 9, f"junk lines: {len(plugin.junk)} {[j[:40] for j in plugin.junk]!r}")
    check(any(b"\xff" in j for j in plugin.junk), "no invalid UTF-8 line")
    check(b"this is not json" in plugin.junk and b"[1,2,3]" in plugin.junk, "text/array junk")
    types = [m["type"] for m in plugin.inbox]
    check("frobnicate" in types, f"no unknown type: {types!r}")
    methods = {m.get("method"): m for m in plugin.inbox if m["type"] == "notify"}
    check(methods.get("fake.garbage.u2028", {}).get("params") == {"s": "a\u2028b"}, "U+2028 line")
    check("fake.garbage.crlf" in methods, "CRLF line")
    plugin.ping("g")
    plugin.send({"type": "shutdown"})
    check(plugin.wait_exit(5) == 0, "shutdown exit status")


def test_fake_halfline(case):
    plugin = case.start(fake("fake-halfline"))
    check(plugin.wait_exit(5) == 1, "exit status")
    plugin.drain(0.2)
    check(not plugin.inbox and not plugin.junk, f"complete lines: {plugin.inbox!r} {plugin.junk!r}")
    check(len(plugin.tails) == 1 and plugin.tails[0] > 10, f"tail: {plugin.tails!r}")


def test_fake_badfirst(case):
    plugin = case.start(fake("fake-badfirst"))
    event = plugin.first_event(5)
    check(event == ("junk", b"not json at all"), f"first line {event!r}")
    time.sleep(0.1)
    check(plugin.alive(), "exited right after its bad line")
    plugin.close_stdin()
    check(plugin.wait_exit(3) == 0, "EOF exit status")


def test_fake_wrongversion(case):
    log = case.path("fake.log")
    plugin = case.start(fake("fake-wrongversion"), env={"FAKE_PLUGIN_LOG": log})
    hello = plugin.hello()
    check(hello.get("protocol") == 2, f"hello {hello!r}")
    reason = "unsupported protocol 2; this pi-relayd speaks 1"
    plugin.send({"type": "goodbye", "reason": reason})
    plugin.close_stdin()
    check(plugin.wait_exit(3) == 0, "exit status after goodbye")
    check([e.get("reason") for e in read_jsonl(log) if e["event"] == "goodbye"] == [reason],
          "goodbye not recorded")


def test_fake_silent(case):
    plugin = case.start(fake("fake-silent"))
    check(plugin.first_event(1.0) is None, "fake-silent wrote something")
    check(plugin.alive(), "fake-silent exited")
    check(plugin.stderr_text() == "", "fake-silent wrote to stderr")


def test_fake_early_exit(case):
    plugin = case.start(fake("fake-early-exit"))
    check(plugin.wait_exit(5) == 2, "exit status")
    plugin.drain(0.2)
    check(plugin.eof and not plugin.inbox and not plugin.junk and not plugin.tails, "wrote stdout")
    time.sleep(0.05)
    check(plugin.last_stderr_line() == "boom: missing dependency", f"stderr {plugin.stderr_text()!r}")


def test_fake_notconfigured(case):
    plugin = case.start(fake("fake-notconfigured"))
    plugin.hello()
    time.sleep(0.2)
    check(plugin.alive(), "exited before the welcome")
    plugin.welcome()
    check(plugin.wait_exit(5) == 78, "exit status")
    time.sleep(0.05)
    check(plugin.last_stderr_line() == "no token configured", f"stderr {plugin.stderr_text()!r}")


def test_fake_poison(case):
    for attempt in range(2):
        plugin = case.start(fake("fake-poison"))
        plugin.handshake()
        check(plugin.result("echo", {"poison": False}) == {"echo": {"poison": False}}, "echo")
        rid = plugin.send_request("echo", {"poison": True}, rid="poison-1")
        check(plugin.wait_exit(3) == 3, f"poison exit status (attempt {attempt + 1})")
        plugin.drain(0.1)
        check(not any(m.get("id") == rid for m in plugin.inbox), "poison answered")
    plugin = case.start(fake("fake-poison"))
    plugin.handshake()
    check(plugin.result("echo", {"x": 1}) == {"echo": {"x": 1}}, "echo after poison")
    plugin.close_stdin()
    check(plugin.wait_exit(3) == 0, "EOF exit status")


def test_fake_big_stderr(case):
    plugin = case.start(fake("fake-big-stderr"), state="default")
    plugin.handshake()
    check(plugin.result("echo", {"big": 1}, timeout=15) == {"echo": {"big": 1}}, "echo after flood")
    time.sleep(0.1)
    text = plugin.stderr_text()
    check(f"stderr done: {3 * MiB} bytes" in text, "no done line with 3 MiB")
    check(len(plugin.stderr) >= 3 * MiB, f"only {len(plugin.stderr)} bytes of stderr")
    check(all(len(l) < 200 for l in text.split("\n")), "a stderr line is too long")

    plugin = case.start(fake("fake-big-stderr"), state="small", env={"FAKE_STDERR_BYTES": "1000"})
    plugin.handshake()
    plugin.ping("s")
    check(plugin.result("echo", {}) == {"echo": {}}, "echo")
    time.sleep(0.05)
    check("stderr done: 1000 bytes" in plugin.stderr_text(), "FAKE_STDERR_BYTES ignored")
    plugin.send({"type": "shutdown"})
    check(plugin.wait_exit(5) == 0, "shutdown exit status")


# ---- runner ----------------------------------------------------------------------------------


def run(test):
    name = test.__name__[len("test_"):]
    case = Case(name)
    t0 = time.monotonic()
    try:
        test(case)
        return name, None, time.monotonic() - t0
    except Exception as error:
        detail = str(error) if isinstance(error, Fail) else traceback.format_exc()
        if VERBOSE:
            for plugin in case.plugins:
                detail += f"\n--- {plugin.name} stderr ---\n{plugin.stderr_text()[-2000:]}"
        return name, detail, time.monotonic() - t0
    finally:
        case.close()


def main(argv):
    global VERBOSE
    VERBOSE = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    tests = [f for n, f in globals().items() if n.startswith("test_") and callable(f)
             and (not wanted or any(w in n for w in wanted))]
    t0 = time.monotonic()
    failures = 0
    with ThreadPoolExecutor(max_workers=8) as pool:
        for name, failure, seconds in pool.map(run, tests):
            if failure is None:
                print(f"PASS {name} ({seconds:.2f} s)")
            else:
                failures += 1
                print(f"FAIL {name} ({seconds:.2f} s): {failure}")
    total = time.monotonic() - t0
    print(f"{len(tests) - failures}/{len(tests)} passed in {total:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Protocol v1 plumbing shared by the fake plugins in this folder (test-only code).

Not a plugin itself: it is not executable, so a supervisor pointed at this folder skips it.
The fakes import it from the folder their real path is in; copy it along with them (or symlink
the fakes) when you put them in a plugins folder.

Settings a fake reads (the environment wins, then the plugin's `config` from the welcome):

  FAKE_PLUGIN_LOG   / config "log"    JSON-lines file recording what the fake received
  FAKE_ROLES                          comma-separated roles for the hello (default "observer")
"""

import json
import os
import sys
import threading
import time

PROTOCOL = 1
MAX_LINE = 8 * 1024 * 1024
NAME = os.path.basename(sys.argv[0]) or "fake"

_stderr_lock = threading.Lock()


def log(text):
    """One line on stderr, prefixed with the fake's name."""
    raw_line(f"{NAME}: {text}")


def raw_line(text):
    """Exactly `text` as one stderr line (used where a test compares the last stderr line)."""
    data = (text.replace("\n", "\\n") + "\n").encode("utf-8", "backslashreplace")
    with _stderr_lock:
        _write_all(2, data)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except InterruptedError:
            continue


def die(status):
    os._exit(status)


def crash(wire, status=3):
    """Exits with `status` between two protocol lines (never leaves a torn line behind)."""
    wire._lock.acquire()
    die(status)


def require_plugin_env(about):
    """Section 1: run by hand, say what this is and exit 64."""
    if os.environ.get("PI_RELAY_PLUGIN") != "1":
        sys.stderr.write(f"{NAME}: a fake pi-relayd plugin for the supervisor's tests. {about} "
                         "It speaks pi-relayd plugin protocol v1 on stdin/stdout and is only "
                         "useful when started by pi-relayd (PI_RELAY_PLUGIN=1).\n")
        sys.stderr.flush()
        die(64)


def roles():
    text = os.environ.get("FAKE_ROLES", "observer")
    return [r.strip() for r in text.split(",") if r.strip()] or ["observer"]


def setting(env_name, config_key, default, config=None, kind=int):
    """An integer (or `kind`) setting from the environment, else the welcome config."""
    value = os.environ.get(env_name)
    if value is None and isinstance(config, dict):
        value = config.get(config_key)
    if value is None or value == "":
        return default
    try:
        return kind(value)
    except (TypeError, ValueError):
        log(f"ignored bad {env_name}={value!r}")
        return default


# ---- recording ---------------------------------------------------------------------------

_log_path = os.environ.get("FAKE_PLUGIN_LOG") or None
_log_lock = threading.Lock()


def set_log_path_from(config):
    global _log_path
    if _log_path is None and isinstance(config, dict) and isinstance(config.get("log"), str):
        _log_path = config["log"]


def record(event, **fields):
    """Appends {"plugin","pid","t","event",...} as one JSON line to FAKE_PLUGIN_LOG, if set."""
    if not _log_path:
        return
    entry = {"plugin": NAME, "pid": os.getpid(), "t": time.time(), "event": event}
    entry.update(fields)
    data = (json.dumps(entry, ensure_ascii=True, separators=(",", ":")) + "\n").encode()
    with _log_lock:
        fd = os.open(_log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)


# ---- wire ----------------------------------------------------------------------------------


class Wire:
    """The protocol connection: reads fd 0, writes a private copy of fd 1."""

    def __init__(self):
        self.out = os.dup(1)
        os.dup2(2, 1)  # stray prints go to stderr
        sys.stdout.reconfigure(line_buffering=True)
        self._lock = threading.Lock()
        self._buf = bytearray()
        self._skipping = 0  # bytes of an over-long line dropped so far (0: not skipping)
        self._eof = False

    # writing

    def raw(self, data):
        """Writes bytes as they are (garbage, half lines...)."""
        with self._lock:
            try:
                _write_all(self.out, data)
            except OSError as error:
                log(f"protocol write failed ({error}); exiting 0")
                die(0)

    def send(self, message):
        self.raw((json.dumps(message, ensure_ascii=True, separators=(",", ":"),
                             allow_nan=False) + "\n").encode())

    # reading

    def next_line(self):
        """The next LF-terminated line as bytes (LF and one CR stripped), or None at EOF."""
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[:nl + 1]
                if self._skipping:
                    log(f"skipped an over-long line of {self._skipping + nl} bytes")
                    self._skipping = 0
                    continue
                if len(line) > MAX_LINE:
                    log(f"skipped an over-long line of {len(line)} bytes")
                    continue
                return line[:-1] if line.endswith(b"\r") else line
            if self._skipping or len(self._buf) > MAX_LINE:
                self._skipping += len(self._buf)
                self._buf.clear()
            if self._eof:
                if self._buf or self._skipping:
                    log(f"ignored an unterminated tail of {len(self._buf) or self._skipping} bytes")
                return None
            try:
                chunk = os.read(0, 1 << 16)
            except InterruptedError:
                continue
            if chunk:
                self._buf += chunk
            else:
                self._eof = True

    def next_message(self):
        """The next well-formed message (dict with a string type), or None at EOF."""
        while True:
            line = self.next_line()
            if line is None:
                return None
            try:
                message = json.loads(line.decode("utf-8"), parse_constant=_not_json)
            except ValueError as error:
                log(f"skipped a malformed line: {error}")
                continue
            if isinstance(message, dict) and isinstance(message.get("type"), str):
                return message
            log("skipped a line that is not an object with a string type")


def _not_json(constant):
    raise ValueError(f"{constant} is not JSON")


def hello(wire, protocol=PROTOCOL, description="fake plugin for tests"):
    wire.send({"type": "hello", "protocol": protocol, "name": NAME, "version": "0.0.0-fake",
               "roles": roles(), "limits": {}, "description": description})


def handshake(wire, description="fake plugin for tests"):
    """Sends hello, returns the welcome; exits 0 on goodbye or EOF."""
    hello(wire, description=description)
    while True:
        message = wire.next_message()
        if message is None:
            log("end of input before the welcome")
            die(0)
        kind = message["type"]
        if kind == "welcome":
            config = message.get("config")
            set_log_path_from(config)
            record("welcome", config=config, stateDir=message.get("stateDir"))
            return message
        if kind == "goodbye":
            log(f"goodbye before welcome: {message.get('reason')}")
            record("goodbye", reason=message.get("reason"))
            die(0)
        if kind == "ping":
            wire.send({"type": "pong", "id": message.get("id")})
        else:
            log(f"ignored {kind!r} before the welcome")


def sleep_forever():
    while True:
        time.sleep(3600)


# ---- a correct plugin ------------------------------------------------------------------------


class Reply(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


class GoodPlugin:
    """Serves protocol v1 correctly.

    Requests (each in its own thread): echo -> {"echo": params}; status -> counters;
    slow {ms} -> {"slept": ms}; unknown -> method_not_found. Subclasses add methods by adding to
    `self.methods` (a handler gets params and returns a result or raises Reply).
    Deliveries: recorded to FAKE_PLUGIN_LOG ({"event":"deliver","id","method","params",
    "duplicate"}), deduped by id across restarts (<stateDir>/fake-seen-ids), then acked.
    """

    def __init__(self, wire, welcome):
        self.wire = wire
        self.welcome = welcome
        self.config = welcome.get("config") if isinstance(welcome.get("config"), dict) else {}
        state = welcome.get("stateDir")
        self.state_dir = state if isinstance(state, str) and state else os.getcwd()
        os.makedirs(self.state_dir, exist_ok=True)
        self.seen_path = os.path.join(self.state_dir, "fake-seen-ids")
        self.seen = set()
        try:
            with open(self.seen_path, "rb") as f:
                data = f.read()
            if data and not data.endswith(b"\n"):  # torn by a crash: end it before appending
                with open(self.seen_path, "ab") as f:
                    f.write(b"\n")
            for raw in data.split(b"\n"):
                try:
                    value = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(value, str):
                    self.seen.add(value)
        except FileNotFoundError:
            pass
        self.lock = threading.Condition()
        self.in_flight = 0
        self.stats = {"requests": 0, "delivered": 0, "duplicates": 0, "pings": 0}
        self.methods = {"echo": lambda p: {"echo": p}, "status": self.status, "slow": self.slow}

    def status(self, params):
        with self.lock:
            return dict(self.stats, pid=os.getpid(), inFlight=self.in_flight, name=NAME)

    def slow(self, params):
        ms = params.get("ms")
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
            raise Reply("invalid_params", "ms must be a non-negative number")
        time.sleep(ms / 1000)
        return {"slept": ms}

    def serve(self):
        while True:
            message = self.wire.next_message()
            if message is None:
                record("eof")
                self.exit_after_in_flight(3000, "end of input")
            kind = message["type"]
            if kind == "ping":
                with self.lock:
                    self.stats["pings"] += 1
                self.wire.send({"type": "pong", "id": message.get("id")})
            elif kind == "request":
                self.start_request(message)
            elif kind == "deliver":
                self.deliver(message)
            elif kind == "shutdown":
                record("shutdown", graceMs=message.get("graceMs"))
                grace = message.get("graceMs")
                self.exit_after_in_flight(grace if isinstance(grace, (int, float)) else 3000,
                                          "shutdown")
            elif kind == "goodbye":
                record("goodbye", reason=message.get("reason"))
                log(f"goodbye: {message.get('reason')}")
                die(0)
            elif kind == "notify":
                record("notify", method=message.get("method"))
            # responses and unknown types: ignored

    def exit_after_in_flight(self, grace_ms, why):
        deadline = time.monotonic() + max(0.0, grace_ms / 1000 - 0.5)
        with self.lock:
            while self.in_flight and time.monotonic() < deadline:
                self.lock.wait(max(0.0, deadline - time.monotonic()))
        log(f"{why}: exiting 0")
        die(0)

    def start_request(self, message):
        request_id = message.get("id")
        if not isinstance(request_id, str):
            log("skipped a request without a string id")
            return
        with self.lock:
            self.stats["requests"] += 1
            self.in_flight += 1
        record("request", id=request_id, method=message.get("method"))
        threading.Thread(target=self.run_request, args=(request_id, message), daemon=True).start()

    def run_request(self, request_id, message):
        try:
            method = message.get("method")
            params = message.get("params")
            params = {} if params is None else params
            try:
                handler = self.methods.get(method) if isinstance(method, str) else None
                if handler is None:
                    raise Reply("method_not_found", f"unknown method {method!r}")
                if not isinstance(params, dict):
                    raise Reply("invalid_params", "params must be an object")
                answer = {"type": "response", "id": request_id, "result": handler(params)}
            except Reply as error:
                answer = {"type": "response", "id": request_id,
                          "error": {"code": error.code, "message": error.message}}
            except Exception as error:
                answer = {"type": "response", "id": request_id,
                          "error": {"code": "internal", "message": repr(error)}}
            self.wire.send(answer)
        finally:
            with self.lock:
                self.in_flight -= 1
                self.lock.notify_all()

    def deliver(self, message):
        delivery_id = message.get("id")
        if not isinstance(delivery_id, str):
            log("skipped a deliver without a string id")
            return
        duplicate = delivery_id in self.seen
        record("deliver", id=delivery_id, method=message.get("method"),
               params=message.get("params"), duplicate=duplicate)
        if not duplicate:
            with open(self.seen_path, "ab") as f:
                f.write(json.dumps(delivery_id).encode() + b"\n")
                f.flush()
                os.fsync(f.fileno())
            self.seen.add(delivery_id)
        with self.lock:
            self.stats["duplicates" if duplicate else "delivered"] += 1
        self.wire.send({"type": "ack", "id": delivery_id})


def run_good(plugin_class=GoodPlugin, after_welcome=None, description="a correct fake plugin"):
    """Handshake, optional `after_welcome(wire, welcome)`, then serve as `plugin_class`."""
    wire = Wire()
    welcome = handshake(wire, description)
    if after_welcome is not None:
        after_welcome(wire, welcome)
    plugin_class(wire, welcome).serve()

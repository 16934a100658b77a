#!/usr/bin/env python3
"""echo: an example pi-relayd plugin, written from docs/PROTOCOL.md alone.

Copy this file to start a plugin of your own. It uses only the Python 3 standard library and
shows every part of protocol v1 that a plugin must get right:

  * start-up: refuse to run by hand (exit 64) unless PI_RELAY_PLUGIN=1      (PROTOCOL.md section 1)
  * framing: one JSON object per line, split on LF only, 8 MiB line cap,
    malformed lines logged and skipped, stdout reserved for the protocol     (section 2)
  * handshake: hello first, then wait for welcome (or goodbye)               (section 3)
  * messages: ping/pong, request/response, deliver/ack with dedupe by id,
    notify, shutdown, goodbye, unknown types ignored                         (section 4)
  * exit statuses: 0 after shutdown or at end of input                       (section 5)

What the "echo" plugin does (role "observer", so pi-relayd only sends it what it asks for):

  requests     echo             -> {"echo": params}
               status           -> counters (shown by `pi-relayd plugin call echo status`)
               slow {ms}        -> sleeps ms milliseconds, then {"slept": ms}
               crash            -> exits with status 3 at once, without answering
               crash-once-file {path}
                                -> if `path` does not exist: creates it and exits 3 without
                                   answering; otherwise answers {"path": path, "existed": true}
               anything else    -> error method_not_found
  deliveries   any method       -> appended as one JSON line {"id","method","params"} to
                                   <stateDir>/received.jsonl, then acked. Ids already seen
                                   (kept in <stateDir>/seen-ids, across restarts) are acked
                                   without being appended again.

Logs go to stderr, one line per entry; pi-relayd adds the timestamps.
"""

import json
import logging
import os
import sys
import threading
import time

# --------------------------------------------------------------------------------------------
# Identity
# --------------------------------------------------------------------------------------------

NAME = "echo"
VERSION = "1.0.0"
ROLES = ["observer"]
DESCRIPTION = "example plugin: echoes requests and records deliveries"

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 8 * 1024 * 1024  # 8 MiB, LF excluded (section 2)
DEFAULT_GRACE_MS = 3000  # how long pi-relayd waits after `shutdown` when it gives no graceMs
MAX_SLOW_MS = 10 * 60 * 1000  # an upper bound for the `slow` method, so a typo cannot hang us

ABOUT = f"""\
{NAME} {VERSION}: {DESCRIPTION}.
This is a pi-relayd plugin (roles: {", ".join(ROLES)}). It speaks the pi-relayd plugin protocol \
v{PROTOCOL_VERSION} as JSON lines on stdin/stdout and is meant to be started by pi-relayd, which \
finds it in $PI_RELAYD_HOME/plugins/. It is not useful to run by hand; see docs/PROTOCOL.md.
"""

# Exit statuses (section 5).
EXIT_OK = 0
EXIT_CRASH = 3  # any status other than 0, 64 and 78 counts as a crash and is restarted
EXIT_USAGE = 64  # started by hand

log = logging.getLogger(NAME)


class OneLineFormatter(logging.Formatter):
    """Formats a record as exactly one line: pi-relayd files stderr line by line."""

    def format(self, record):
        text = super().format(record)
        return text.replace("\r", "\\r").replace("\n", "\\n")


def setup_logging():
    handler = logging.StreamHandler(sys.stderr)  # fd 2: never the protocol stream
    # No timestamp: pi-relayd adds one to every stderr line.
    handler.setFormatter(OneLineFormatter("%(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


def finish(status):
    """Exits now with `status`, from any thread.

    os._exit does not wait for worker threads or run atexit handlers; everything this plugin
    writes goes straight to the file descriptors, so only stderr needs a flush.
    """
    try:
        sys.stdout.flush()  # fd 1 is stderr by now (see setup_protocol_fd)
        sys.stderr.flush()
    finally:
        os._exit(status)


# --------------------------------------------------------------------------------------------
# Framing (section 2)
# --------------------------------------------------------------------------------------------


class ProtocolWriter:
    """Writes protocol messages, one JSON object per line, to the private protocol fd.

    Several threads answer requests concurrently, so every line is written under a lock: two
    messages can never interleave inside one line.
    """

    def __init__(self, fd):
        self.fd = fd
        self.lock = threading.Lock()

    def send(self, message):
        # Compact JSON on one line (never pretty-printed, never a blank line). ensure_ascii=True
        # escapes every non-ASCII character, so the line is valid UTF-8 even when a string holds
        # a lone surrogate that came in as a "\ud800" escape, and a raw LF can never appear
        # inside it. allow_nan=False refuses NaN/Infinity, which are not JSON.
        line = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        data = (line + "\n").encode("ascii")
        with self.lock:
            view = memoryview(data)
            while view:
                try:
                    written = os.write(self.fd, view)
                except InterruptedError:
                    continue
                except OSError as error:  # BrokenPipeError: pi-relayd is gone
                    log.warning("cannot write to pi-relayd (%s); exiting", error)
                    finish(EXIT_OK)
                view = view[written:]


def read_lines(stream):
    """Yields the lines of a binary stream as bytes, split on LF only.

    `stream.readline()` on a *binary* stream splits on b"\\n" alone (text-mode iteration would
    also split on other separators). Each yielded line has its LF and one trailing CR removed.
    Lines longer than MAX_LINE_BYTES are skipped up to the next LF, reading them in pieces of at
    most that size (a huge line never sits whole in memory), and an unterminated tail at end of
    input is logged and never parsed.
    """
    limit = MAX_LINE_BYTES + 1  # room for the LF
    while True:
        chunk = stream.readline(limit)
        if not chunk:
            return  # end of input
        if chunk.endswith(b"\n"):
            line = chunk[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
            yield line
            continue
        if len(chunk) < limit:
            log.warning("ignored an unterminated tail of %d bytes at end of input", len(chunk))
            return
        # Longer than the cap: drop it, in pieces, up to and including the next LF.
        size = len(chunk)
        while True:
            chunk = stream.readline(limit)
            if not chunk:
                log.warning("skipped an over-long line of %d bytes (unterminated at end of input)",
                            size)
                return
            if chunk.endswith(b"\n"):
                size += len(chunk) - 1
                break
            size += len(chunk)
        log.warning("skipped an over-long line of %d bytes (limit %d)", size, MAX_LINE_BYTES)


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def parse_message(line):
    """Returns the message on `line` as a dict, or None (after logging) if it is not one.

    A line that is not UTF-8, not JSON, not a JSON object, or has no string `type`, is logged
    and skipped; it never ends the connection.
    """
    try:
        text = line.decode("utf-8")  # strict: invalid UTF-8 is a malformed line
        message = json.loads(text, parse_constant=_reject_constant)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        log.warning("skipped a malformed line (%d bytes): %s", len(line), error)
        return None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        log.warning("skipped a line that is not an object with a string type: %.200r", text)
        return None
    return message


def setup_protocol_fd():
    """Moves the protocol off fd 1 and returns the private fd it now lives on.

    After this, fd 1 (and so sys.stdout and print()) writes to stderr, so a stray print from
    this plugin or a library it uses lands in the log instead of corrupting the protocol.
    """
    sys.stdout.flush()
    protocol_fd = os.dup(1)  # the pipe pi-relayd reads; os.dup makes it non-inheritable
    os.dup2(2, 1)  # fd 1 now points where fd 2 points: stderr
    # sys.stdout still wraps fd 1; flush it at every line so stray prints show up in the log
    # promptly (and are not lost in a buffer when we exit).
    sys.stdout.reconfigure(line_buffering=True)
    return protocol_fd


# --------------------------------------------------------------------------------------------
# Files in the state directory
# --------------------------------------------------------------------------------------------


def append_line(path, line):
    """Appends one line to `path` durably (write + fsync) before returning.

    If an earlier run crashed in the middle of an append, the file ends without LF; that torn
    tail is terminated first so the new line stays a line of its own.
    """
    data = line.encode("utf-8") + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def load_seen_ids(path):
    """Reads the delivery ids handled by earlier runs: one JSON string per line.

    Ids are stored JSON-encoded so an id containing a newline still takes exactly one line.
    Lines that do not parse (a torn write from a crash) are ignored: that delivery was never
    acked, so pi-relayd delivers it again.
    """
    seen = set()
    try:
        with open(path, "rb") as f:
            for raw in f.read().split(b"\n"):
                if not raw:
                    continue
                try:
                    value = json.loads(raw.decode("utf-8"))
                except ValueError:
                    log.warning("ignored a damaged line in %s", path)
                    continue
                if isinstance(value, str):
                    seen.add(value)
    except FileNotFoundError:
        pass
    return seen


# --------------------------------------------------------------------------------------------
# The plugin
# --------------------------------------------------------------------------------------------


class RequestError(Exception):
    """Raised by a request handler to answer with {"error": {"code", "message"}}."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class EchoPlugin:
    def __init__(self, writer, welcome):
        self.writer = writer
        self.started = time.monotonic()
        self.config = welcome.get("config") if isinstance(welcome.get("config"), dict) else {}

        # pi-relayd starts us with the state directory as working directory and also names it in
        # the welcome; prefer the welcome.
        state_dir = welcome.get("stateDir")
        self.state_dir = state_dir if isinstance(state_dir, str) and state_dir else os.getcwd()
        os.makedirs(self.state_dir, mode=0o700, exist_ok=True)
        self.received_path = os.path.join(self.state_dir, "received.jsonl")
        self.seen_path = os.path.join(self.state_dir, "seen-ids")
        self.seen = load_seen_ids(self.seen_path)

        self.lock = threading.Lock()  # guards the counters below
        self.idle = threading.Condition(self.lock)  # notified when in_flight drops
        self.in_flight = 0
        self.counters = {"requests": 0, "delivered": 0, "duplicates": 0, "pings": 0,
                         "notifications": 0, "ignored": 0, "malformedLines": 0}

        self.request_handlers = {
            "echo": self.request_echo,
            "status": self.request_status,
            "slow": self.request_slow,
            "crash": self.request_crash,
            "crash-once-file": self.request_crash_once_file,
        }

    def count(self, name):
        with self.lock:
            self.counters[name] += 1

    # ---- the main loop ----------------------------------------------------------------------

    def serve(self, lines):
        """Handles messages until shutdown or end of input, then exits."""
        for line in lines:
            message = parse_message(line)
            if message is None:
                self.count("malformedLines")
                continue
            kind = message["type"]
            if kind == "ping":
                # Answer at once, from this thread: a slow request must never delay a pong.
                self.count("pings")
                self.writer.send({"type": "pong", "id": message.get("id")})
            elif kind == "request":
                self.start_request(message)
            elif kind == "deliver":
                # Deliveries are handled here, one at a time, so they take effect in order.
                self.handle_deliver(message)
            elif kind == "notify":
                # This plugin knows no notifications; unknown ones are ignored (section 4).
                self.count("notifications")
            elif kind == "shutdown":
                self.stop("shutdown", message.get("graceMs"))
            elif kind == "goodbye":
                log.error("pi-relayd said goodbye: %s", message.get("reason"))
                finish(EXIT_OK)
            else:
                # `response` (we send no requests), `welcome` again, or a type from a later
                # protocol revision: ignored.
                self.count("ignored")
        self.stop("end of input", None)

    def stop(self, why, grace_ms):
        """Finishes in-flight requests (within the grace period) and exits 0."""
        if not isinstance(grace_ms, (int, float)) or isinstance(grace_ms, bool) or grace_ms < 0:
            grace_ms = DEFAULT_GRACE_MS
        # Leave pi-relayd a little margin before it sends SIGTERM.
        deadline = time.monotonic() + max(0.0, grace_ms / 1000.0 - 0.5)
        with self.idle:
            if self.in_flight:
                log.info("%s: waiting for %d request(s) in flight", why, self.in_flight)
            while self.in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    log.warning("%s: giving up on %d request(s) in flight", why, self.in_flight)
                    break
                self.idle.wait(remaining)
        log.info("%s: exiting", why)
        finish(EXIT_OK)

    # ---- requests ---------------------------------------------------------------------------

    def start_request(self, message):
        request_id = message.get("id")
        if not isinstance(request_id, str):
            log.warning("skipped a request without a string id: %.200r", message)
            self.count("malformedLines")
            return
        with self.lock:
            self.counters["requests"] += 1
            self.in_flight += 1
        # Each request runs in its own thread: responses may go out in any order (section 4).
        # Daemon threads do not keep the process alive once we decide to exit.
        threading.Thread(target=self.run_request, args=(request_id, message), daemon=True,
                         name=f"request {request_id}").start()

    def run_request(self, request_id, message):
        try:
            method = message.get("method")
            params = message.get("params", {})
            if params is None:
                params = {}
            handler = self.request_handlers.get(method) if isinstance(method, str) else None
            try:
                if handler is None:
                    raise RequestError("method_not_found", f"{NAME} has no method {method!r}")
                if not isinstance(params, dict):
                    raise RequestError("invalid_params", "params must be a JSON object")
                response = {"type": "response", "id": request_id, "result": handler(params)}
            except RequestError as error:
                response = {"type": "response", "id": request_id,
                            "error": {"code": error.code, "message": error.message}}
            except Exception as error:  # a bug in a handler must not take the plugin down
                log.exception("request %s (%s) failed", request_id, method)
                response = {"type": "response", "id": request_id,
                            "error": {"code": "internal", "message": f"{type(error).__name__}: {error}"}}
            self.writer.send(response)
        finally:
            with self.idle:
                self.in_flight -= 1
                self.idle.notify_all()

    def request_echo(self, params):
        return {"echo": params}

    def request_status(self, params):
        with self.lock:
            status = dict(self.counters)
            status["inFlight"] = self.in_flight
            status["seenIds"] = len(self.seen)
        status.update({"name": NAME, "version": VERSION, "pid": os.getpid(),
                       "uptimeMs": int((time.monotonic() - self.started) * 1000),
                       "stateDir": self.state_dir})
        return status

    def request_slow(self, params):
        ms = params.get("ms")
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or not 0 <= ms <= MAX_SLOW_MS:
            raise RequestError("invalid_params", f"ms must be a number from 0 to {MAX_SLOW_MS}")
        time.sleep(ms / 1000.0)
        return {"slept": ms}

    def request_crash(self, params):
        log.warning("crash requested: exiting with status %d", EXIT_CRASH)
        finish(EXIT_CRASH)

    def request_crash_once_file(self, params):
        path = params.get("path")
        if not isinstance(path, str) or not path:
            raise RequestError("invalid_params", "path must be a non-empty string")
        if os.path.exists(path):
            return {"path": path, "existed": True}
        # Create the marker first (and make sure it is on disk), so the restarted instance
        # finds it and answers the retried request.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"crashed once, pid {os.getpid()}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        log.warning("crash-once-file: created %s, exiting with status %d", path, EXIT_CRASH)
        finish(EXIT_CRASH)

    # ---- deliveries -------------------------------------------------------------------------

    def handle_deliver(self, message):
        delivery_id = message.get("id")
        if not isinstance(delivery_id, str):
            log.warning("skipped a deliver without a string id: %.200r", message)
            self.count("malformedLines")
            return
        if delivery_id in self.seen:
            # Delivered again after a restart (or the ack got lost): ack without acting again.
            self.count("duplicates")
            self.writer.send({"type": "ack", "id": delivery_id})
            return
        record = {"id": delivery_id, "method": message.get("method"),
                  "params": message.get("params", {})}
        try:
            # 1. the effect, 2. remember the id, 3. ack. A crash between 1 and 2 means the
            # message is delivered again and recorded twice (at least once); a crash before 1
            # loses nothing, because nothing was acked.
            append_line(self.received_path,
                        json.dumps(record, ensure_ascii=True, separators=(",", ":")))
            append_line(self.seen_path, json.dumps(delivery_id, ensure_ascii=True))
        except OSError as error:
            # Not acked: pi-relayd keeps the message and delivers it again later.
            log.error("could not record delivery %s: %s", delivery_id, error)
            return
        self.seen.add(delivery_id)
        self.count("delivered")
        self.writer.send({"type": "ack", "id": delivery_id})


# --------------------------------------------------------------------------------------------
# Start-up and handshake
# --------------------------------------------------------------------------------------------


def await_welcome(lines, writer):
    """Reads until the welcome and returns it; exits on goodbye or end of input."""
    for line in lines:
        message = parse_message(line)
        if message is None:
            continue
        kind = message["type"]
        if kind == "welcome":
            if message.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
                log.warning("welcome names protocol %r; this plugin speaks %d",
                            message.get("protocol"), PROTOCOL_VERSION)
            return message
        if kind == "goodbye":
            log.error("pi-relayd refused this plugin: %s", message.get("reason"))
            finish(EXIT_OK)
        if kind == "ping":  # not expected before the welcome, but harmless to answer
            writer.send({"type": "pong", "id": message.get("id")})
            continue
        log.warning("ignored a %r message that came before the welcome", kind)
    log.info("end of input before the welcome: exiting")
    finish(EXIT_OK)


def main():
    # 1. Started by hand? Say what this is and exit 64 (section 1).
    if os.environ.get("PI_RELAY_PLUGIN") != "1":
        sys.stderr.write(ABOUT)
        sys.stderr.flush()
        return EXIT_USAGE

    setup_logging()

    # 2. Keep the protocol on a private fd; fd 1 becomes stderr (section 2).
    writer = ProtocolWriter(setup_protocol_fd())
    # This print is deliberate: thanks to the fd move it lands in the log, not in the protocol.
    print(f"{NAME}: stdout now goes to stderr; the protocol has its own fd")

    # 3. hello must be the first line, within 10 seconds of start (section 3).
    writer.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": NAME, "version": VERSION,
                 "roles": ROLES, "limits": {}, "description": DESCRIPTION})

    # 4. Wait for the welcome, then serve until shutdown or end of input.
    lines = read_lines(sys.stdin.buffer)
    welcome = await_welcome(lines, writer)
    plugin = EchoPlugin(writer, welcome)
    log.info("welcomed as %r; state in %s; %d delivery id(s) already seen",
             welcome.get("plugin"), plugin.state_dir, len(plugin.seen))
    plugin.serve(lines)  # does not return


if __name__ == "__main__":
    sys.exit(main())

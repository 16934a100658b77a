#!/usr/bin/env python3
"""Self-test for the fake Discord server. Standard library only.

Starts fake_discord.py as a subprocess and drives it over real sockets with a
tiny WebSocket client written here (independently of the server's framing
code) plus urllib for REST and the control API. Exits non-zero on failure.

  python3 Tests/Fakes/fake_discord/selftest.py [--spec PATH] [--keep-log]
"""

import argparse
import base64
import hashlib
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = "selftest.bot.token"
GUILD = "1100000000000000001"
CHAN = "1200000000000000001"
CHAN2 = "1200000000000000002"
ALICE = "1400000000000000001"
BOT = "1300000000000000001"
UA = "DiscordBot (https://example.invalid/pi-relayd, 0.1)"
RELAXED = {"limit": 100, "window_s": 1.0}
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


# ------------------------------------------------------------------ WS client
class WSClosed(Exception):
    def __init__(self, code, reason):
        super().__init__("closed %s %s" % (code, reason))
        self.code = code
        self.reason = reason


class WSClient:
    def __init__(self, url, timeout=5.0):
        u = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        target = (u.path or "/") + ("?" + u.query if u.query else "")
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (target, u.hostname, u.port, key))
        self.sock.sendall(req.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise AssertionError("handshake: connection closed")
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        assert lines[0].split(" ")[1] == "101", "handshake status: %s" % lines[0]
        hdrs = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
        expect = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        assert hdrs.get("sec-websocket-accept") == expect, "bad Sec-WebSocket-Accept"
        self.buf = bytearray(rest)
        self.closed = None

    def _send_frame(self, opcode, payload, fin=True):
        mask = os.urandom(4)
        n = len(payload)
        b0 = (0x80 if fin else 0) | opcode
        if n < 126:
            head = struct.pack("!BB", b0, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", b0, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", b0, 0x80 | 127, n)
        masked = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send_text(self, text, fragments=1):
        data = text.encode()
        if fragments <= 1:
            return self._send_frame(0x1, data)
        step = max(1, len(data) // fragments)
        pieces = [data[i:i + step] for i in range(0, len(data), step)]
        for i, p in enumerate(pieces):
            self._send_frame(0x1 if i == 0 else 0x0, p, fin=(i == len(pieces) - 1))
            if i == 0:
                self._send_frame(0x9, b"mid-fragment-ping")  # control frame interleaved

    def send(self, obj, fragments=1):
        self.send_text(json.dumps(obj), fragments)

    def close(self, code=1000):
        try:
            self._send_frame(0x8, struct.pack("!H", code))
        except OSError:
            pass

    def _need(self, n, deadline):
        while len(self.buf) < n:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError("no frame before timeout")
            if not chunk:
                raise WSClosed(None, "tcp closed without close frame")
            self.buf += chunk

    def recv_frame(self, timeout=5.0):
        deadline = time.monotonic() + timeout
        self._need(2, deadline)
        b0, b1 = self.buf[0], self.buf[1]
        assert not (b1 & 0x80), "server frames must not be masked"
        n = b1 & 0x7F
        off = 2
        if n == 126:
            self._need(4, deadline)
            n = struct.unpack_from("!H", self.buf, 2)[0]
            off = 4
        elif n == 127:
            self._need(10, deadline)
            n = struct.unpack_from("!Q", self.buf, 2)[0]
            off = 10
        self._need(off + n, deadline)
        payload = bytes(self.buf[off:off + n])
        del self.buf[:off + n]
        return b0 & 0x0F, payload

    def recv(self, timeout=5.0):
        """Next gateway payload (dict). Raises WSClosed on close frame/EOF."""
        deadline = time.monotonic() + timeout
        while True:
            op, payload = self.recv_frame(max(0.01, deadline - time.monotonic()))
            if op == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                self.closed = code
                raise WSClosed(code, payload[2:].decode(errors="replace"))
            if op == 0xA:
                continue
            if op == 0x9:
                self._send_frame(0xA, payload)
                continue
            if op == 0x1:
                return json.loads(payload.decode())
            raise AssertionError("unexpected opcode %d" % op)

    def recv_until(self, pred, timeout=5.0):
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            m = self.recv(max(0.01, deadline - time.monotonic()))
            seen.append(m)
            if pred(m):
                return m, seen

    def expect_close(self, timeout=5.0):
        try:
            while True:
                self.recv(timeout)
        except WSClosed as e:
            return e.code

    def shutdown(self):
        try:
            self.sock.close()
        except OSError:
            pass


# ------------------------------------------------------------------ harness
class Fake:
    def __init__(self, spec):
        self.tmp = tempfile.mkdtemp(prefix="fake-discord-selftest-")
        self.portfile = os.path.join(self.tmp, "port.json")
        self.log = open(os.path.join(self.tmp, "fake.log"), "w")
        cmd = [sys.executable, os.path.join(HERE, "fake_discord.py"), "--port", "0",
               "--control-port-file", self.portfile, "--token", TOKEN, "--heartbeat-ms", "1000",
               "--guild", GUILD, "--channel", CHAN + ":general", "--channel", CHAN2 + ":random",
               "--user", ALICE + ":alice", "--bot-user-id", BOT,
               "--transcript", os.path.join(self.tmp, "transcript.txt")]
        if spec:
            cmd += ["--spec", spec]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.portfile):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("fake did not start; log: " + open(self.log.name).read())
            time.sleep(0.02)
        info = json.load(open(self.portfile))
        self.port = info["port"]
        self.base = info["base"]
        self.gateway = info["gateway"]
        self.root = "http://127.0.0.1:%d" % self.port

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def raw(self, method, url, body=None, headers=None):
        req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=15) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def api(self, method, path, body=None, *, token=TOKEN, ua=UA, ctype="application/json", raw=None):
        h = {}
        if token is not None:
            h["Authorization"] = "Bot " + token
        if ua is not None:
            h["User-Agent"] = ua
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None and ctype:
            h["Content-Type"] = ctype
        st, hd, b = self.raw(method, self.base + path, data, h)
        try:
            js = json.loads(b) if b else None
        except ValueError:
            js = b
        return st, hd, js

    def ctl(self, method, path, body=None, **query):
        url = self.root + "/_control" + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        st, hd, b = self.raw(method, url, json.dumps(body).encode() if body is not None else None,
                             {"Content-Type": "application/json"} if body is not None else {})
        return st, json.loads(b) if b else None

    def ok(self, method, path, body=None, **q):
        st, js = self.ctl(method, path, body, **q)
        assert st == 200, "control %s %s -> %s %s" % (method, path, st, js)
        return js


def gw_url(base, q="?v=10&encoding=json"):
    return base + "/" + q


def identify(ws, intents=37377, token=TOKEN, presence=None):
    d = {"token": token, "intents": intents, "properties": {"os": "linux", "browser": "selftest", "device": "selftest"}}
    if presence:
        d["presence"] = presence
    ws.send({"op": 2, "d": d})


def connect_ready(fake, intents=37377):
    ws = WSClient(gw_url(fake.gateway))
    hello = ws.recv()
    assert hello["op"] == 10
    identify(ws, intents)
    ready, _ = ws.recv_until(lambda m: m.get("t") == "READY")
    ws.recv_until(lambda m: m.get("t") == "GUILD_CREATE") if intents & 1 else None
    return ws, ready


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


# ------------------------------------------------------------------ tests
def t_identify_ready_heartbeat(f):
    ws = WSClient(gw_url(f.gateway))
    hello = ws.recv()
    check(hello["op"] == 10 and hello["d"]["heartbeat_interval"] == 1000, "hello: %r" % hello)
    ws.send({"op": 1, "d": None})
    ack = ws.recv()
    check(ack["op"] == 11, "heartbeat ack: %r" % ack)
    identify(ws, presence={"since": None, "activities": [{"name": "tests", "type": 3}], "status": "online", "afk": False})
    ready = ws.recv()
    check(ready["op"] == 0 and ready["t"] == "READY" and ready["s"] == 1, "READY first: %r" % ready)
    d = ready["d"]
    check(d["v"] == 10 and d["user"]["id"] == BOT and d["session_id"], "READY fields")
    check(d["resume_gateway_url"].endswith("/resume-gw") and d["resume_gateway_url"] != f.gateway, "resume url")
    check(d["guilds"] == [{"id": GUILD, "unavailable": True}], "READY guilds: %r" % d["guilds"])
    check(d["application"]["id"] == BOT and "flags" in d["application"], "READY application")
    gc = ws.recv()
    check(gc["t"] == "GUILD_CREATE" and gc["s"] == 2 and gc["d"]["id"] == GUILD, "GUILD_CREATE: %r" % gc.get("t"))
    check(any(c["id"] == CHAN for c in gc["d"]["channels"]), "guild channels")
    ws.send({"op": 1, "d": 2}, fragments=3)  # fragmented text + interleaved ping
    m, _ = ws.recv_until(lambda m: m["op"] == 11)
    ws.send({"op": 3, "d": {"since": None, "activities": [{"name": "the build", "type": 3}], "status": "idle", "afk": False}})
    f.ok("GET", "/wait", **{"for": "presence", "status": "idle", "timeout": 3})
    pres = f.ok("GET", "/presences")["presences"]
    check([p["status"] for p in pres] == ["online", "idle"], "presences recorded: %r" % pres)
    # server-requested heartbeat
    f.ok("POST", "/gateway/heartbeat_request")
    m = ws.recv()
    check(m["op"] == 1, "server op 1: %r" % m)
    # zombie switch: ACKs dropped
    f.ok("POST", "/gateway/drop_acks", {"enabled": True})
    ws.send({"op": 1, "d": 2})
    try:
        m = ws.recv(0.4)
        check(m["op"] != 11, "ack must be dropped")
    except TimeoutError:
        pass
    f.ok("POST", "/gateway/drop_acks", {"enabled": False})
    ws.close(1000)
    check(ws.expect_close() == 1000, "close echo")
    ws.shutdown()


def t_resume_replay(f):
    ws, ready = connect_ready(f)
    sid = ready["d"]["session_id"]
    resume_url = ready["d"]["resume_gateway_url"]
    last_seq = 2
    # drop the connection without a close frame (resumable), then inject while offline
    ws.shutdown()
    f.ok("GET", "/wait", **{"for": "disconnected", "timeout": 3})
    inj1 = f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE, "username": "alice"},
                                      "content": "sent while you were away"})
    check(inj1["delivered_to"] == [sid], "buffered for session: %r" % inj1["delivered_to"])
    f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "second"})
    ws = WSClient(gw_url(resume_url))
    check(ws.recv()["op"] == 10, "hello on resume url")
    ws.send({"op": 6, "d": {"token": TOKEN, "session_id": sid, "seq": last_seq}})
    a = ws.recv()
    b = ws.recv()
    c = ws.recv()
    check(a["t"] == "MESSAGE_CREATE" and a["s"] == 3 and a["d"]["content"] == "sent while you were away", "replay 1: %r" % a)
    check(b["t"] == "MESSAGE_CREATE" and b["s"] == 4 and b["d"]["content"] == "second", "replay 2")
    check(c["t"] == "RESUMED" and c["s"] == 5, "RESUMED: %r" % c)
    check(a["d"]["guild_id"] == GUILD and "member" in a["d"] and a["d"]["channel_type"] == 0, "guild message shape")
    # live event after resume
    f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "live"})
    m = ws.recv()
    check(m["t"] == "MESSAGE_CREATE" and m["s"] == 6, "live after resume")
    # op 7 reconnect -> client resumes from seq 6 with nothing missed
    f.ok("POST", "/gateway/reconnect", {"close_after_ms": 0})
    check(ws.recv()["op"] == 7, "op 7")
    ws.close(4000)
    ws.expect_close()
    ws.shutdown()
    ws = WSClient(gw_url(resume_url))
    ws.recv()
    ws.send({"op": 6, "d": {"token": TOKEN, "session_id": sid, "seq": 6}})
    m = ws.recv()
    check(m["t"] == "RESUMED" and m["s"] == 7, "resume with nothing missed: %r" % m)
    # client close 1000 invalidates the session -> resume gets op 9 false
    ws.close(1000)
    ws.expect_close()
    ws.shutdown()
    ws = WSClient(gw_url(resume_url))
    ws.recv()
    ws.send({"op": 6, "d": {"token": TOKEN, "session_id": sid, "seq": 7}})
    m = ws.recv()
    check(m["op"] == 9 and m["d"] is False, "op 9 false for invalidated session: %r" % m)
    ws.shutdown()
    ws = WSClient(gw_url(resume_url))
    ws.recv()
    ws.send({"op": 6, "d": {"token": TOKEN, "session_id": "nope", "seq": 1}})
    m = ws.recv()
    check(m["op"] == 9 and m["d"] is False, "op 9 false for unknown session")
    ws.shutdown()


def t_close_codes(f):
    def attempt(url, payloads, expect):
        ws = WSClient(url)
        try:
            first = ws.recv()
            check(first["op"] == 10, "hello")
            for p in payloads:
                if isinstance(p, str):
                    ws.send_text(p)
                else:
                    ws.send(p)
            code = ws.expect_close()
        except WSClosed as e:
            code = e.code
        ws.shutdown()
        check(code == expect, "expected close %s, got %s for %r" % (expect, code, payloads))

    props = {"os": "linux", "browser": "t", "device": "t"}
    attempt(gw_url(f.gateway), [{"op": 2, "d": {"token": "wrong", "intents": 513, "properties": props}}], 4004)
    f.ok("POST", "/config", {"message_content_enabled": False})
    attempt(gw_url(f.gateway), [{"op": 2, "d": {"token": TOKEN, "intents": 37377, "properties": props}}], 4014)
    f.ok("POST", "/config", {"message_content_enabled": True})
    attempt(gw_url(f.gateway), [{"op": 2, "d": {"token": TOKEN, "intents": 1 << 30, "properties": props}}], 4013)
    attempt(gw_url(f.gateway), [{"op": 3, "d": {"since": None, "activities": [], "status": "online", "afk": False}}], 4003)
    attempt(gw_url(f.gateway), ["{not json"], 4002)
    attempt(gw_url(f.gateway), [{"op": 1, "d": "x" * 5000}], 4002)
    attempt(gw_url(f.gateway), [{"op": 99, "d": None}], 4001)
    good = {"op": 2, "d": {"token": TOKEN, "intents": 513, "properties": props}}
    attempt(gw_url(f.gateway), [good, good], 4005)
    # wrong version: closed with 4012 right after the handshake, no Hello
    ws = WSClient(gw_url(f.gateway, "?v=9&encoding=json"))
    check(ws.expect_close() == 4012, "4012 for v=9")
    ws.shutdown()
    # scripted close code from the control API
    ws, _ = connect_ready(f, intents=513)
    f.ok("POST", "/gateway/close", {"code": 4009})
    check(ws.expect_close() == 4009, "scripted 4009")
    ws.shutdown()
    v = f.ok("GET", "/violations")["violations"]
    kinds = {x["kind"] for x in v}
    check({"gateway_identify", "gateway_decode", "gateway_unknown_op", "gateway_payload_size"} <= kinds, "violations: %s" % kinds)


def t_intents(f):
    ws, ready = connect_ready(f, intents=(1 << 0) | (1 << 9))  # no DIRECT_MESSAGES, no MESSAGE_CONTENT
    f.ok("POST", "/messages", {"dm": True, "author": {"id": ALICE}, "content": "secret dm"})
    f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "no content intent"})
    f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "hey bot", "mention_bot": True})
    a = ws.recv()
    b = ws.recv()
    check(a["t"] == "MESSAGE_CREATE" and a["d"]["content"] == "" and a["d"]["guild_id"] == GUILD, "blank content: %r" % a["d"]["content"])
    check(b["d"]["content"] == "<@%s> hey bot" % BOT, "mention keeps content: %r" % b["d"]["content"])
    ws.close(1000)
    ws.shutdown()


def t_rest_basics(f):
    st, hd, js = f.api("GET", "/users/@me", token="nope")
    check(st == 401 and js == {"message": "401: Unauthorized", "code": 0}, "401: %s %r" % (st, js))
    st, hd, js = f.api("GET", "/users/@me", ua="curl/8")
    check(st == 400, "missing DiscordBot UA -> 400")
    st, hd, js = f.api("GET", "/gateway/bot")
    check(st == 200 and js["url"] == f.gateway and js["shards"] == 1 and "session_start_limit" in js, "gateway/bot %r" % js)
    for h in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Reset-After", "X-RateLimit-Bucket"):
        check(h in hd, "header %s on 200" % h)
    st, hd, dm = f.api("POST", "/users/@me/channels", {"recipient_id": ALICE})
    st2, _, dm2 = f.api("POST", "/users/@me/channels", {"recipient_id": ALICE})
    check(st == 200 and dm["type"] == 1 and dm["id"] == dm2["id"], "DM idempotent")
    st, _, _ = f.api("POST", "/channels/%s/typing" % CHAN)
    check(st == 204, "typing 204")
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, {})
    check(st == 400 and js["code"] == 50006, "empty message 50006: %r" % js)
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, {"content": "x" * 2001})
    check(st == 400 and js["code"] == 50035 and "content" in js["errors"], "2001 chars -> 50035")
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, raw=b"content=hi", ctype="text/plain")
    check(st == 400 and js["code"] == 50035, "bad content type -> 50035")
    st, _, msg = f.api("POST", "/channels/%s/messages" % CHAN, {"content": "status: working"})
    check(st == 200 and msg["author"]["id"] == BOT and msg["channel_id"] == CHAN and msg["id"].isdigit(), "create")
    st, _, ed = f.api("PATCH", "/channels/%s/messages/%s" % (CHAN, msg["id"]), {"content": "status: done"})
    check(st == 200 and ed["content"] == "status: done" and ed["edited_timestamp"], "edit")
    inj = f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "mine"})
    st, _, js = f.api("PATCH", "/channels/%s/messages/%s" % (CHAN, inj["id"]), {"content": "hijack"})
    check(st == 403 and js["code"] == 50005, "cannot edit others' message: %r" % js)
    st, _, th = f.api("POST", "/channels/%s/messages/%s/threads" % (CHAN, msg["id"]), {"name": "work log"})
    check(st == 201 and th["id"] == msg["id"] and th["type"] == 11, "thread from message")
    st, _, js = f.api("POST", "/channels/%s/messages/%s/threads" % (CHAN, msg["id"]), {"name": "again"})
    check(st == 400 and js["code"] == 160004, "second thread 160004")
    st, _, th2 = f.api("POST", "/channels/%s/threads" % CHAN, {"name": "private"})
    check(st == 201 and th2["type"] == 12, "thread without message defaults to 12")
    st, _, js = f.api("POST", "/channels/%s/messages" % th["id"], {"content": "in thread"})
    check(st == 200 and js["channel_id"] == th["id"], "post in thread")
    view = f.ok("GET", "/channels/%s/messages" % CHAN)["messages"]
    check(any(v["content"] == "status: done" and v["edit_count"] == 1 for v in view), "control view after edit")
    txt = f.raw("GET", f.root + "/_control/transcript.txt")[2].decode()
    check("bot edited m%s: status: done" % msg["id"] in txt and "user alice: mine" in txt, "human transcript:\n" + txt)


def t_schema(f):
    body = {"content": "pick", "components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "L" * 81, "custom_id": "ok"},
        {"type": 2, "style": 2, "label": "no id"}]}]}
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, body)
    check(st == 400 and js["code"] == 50035, "schema -> 50035: %r" % js)
    row = js["errors"]["components"]["0"]["components"]
    check("label" in row["0"] and "custom_id" in row["1"], "nested error paths: %r" % js["errors"])
    six = {"content": "x", "components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": str(i), "custom_id": "c%d" % i} for i in range(6)]}]}
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, six)
    check(st == 400 and js["code"] == 50035, "6 buttons in a row rejected")
    rows = {"content": "x", "components": [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "b", "custom_id": "r%d" % i}]} for i in range(6)]}
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, rows)
    check(st == 400 and js["code"] == 50035, "6 rows rejected")
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, {"content": "x", "nonce": "n" * 26})
    check(st == 400 and "nonce" in js.get("errors", {}), "nonce > 25 chars")
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, {"content": 5})
    check(st == 400 and js["code"] == 50035, "content must be string")
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, raw=b"{bad json")
    check(st == 400 and js["code"] == 50109, "invalid JSON 50109")
    v = f.ok("GET", "/violations")["violations"]
    check(any(x["kind"] == "schema" for x in v), "schema violation recorded")


def t_nonce(f):
    b = {"content": "once", "nonce": "relay-123", "enforce_nonce": True}
    _, _, m1 = f.api("POST", "/channels/%s/messages" % CHAN2, b)
    _, _, m2 = f.api("POST", "/channels/%s/messages" % CHAN2, b)
    check(m1["id"] == m2["id"] and m1["nonce"] == "relay-123", "enforce_nonce dedupe")
    _, _, m3 = f.api("POST", "/channels/%s/messages" % CHAN2, {"content": "twice", "nonce": "dup"})
    _, _, m4 = f.api("POST", "/channels/%s/messages" % CHAN2, {"content": "twice", "nonce": "dup"})
    check(m3["id"] != m4["id"], "without enforce_nonce duplicates are created")
    msgs = f.ok("GET", "/messages", channel_id=CHAN2)["messages"]
    check([m["content"] for m in msgs] == ["once", "twice", "twice"], "messages in channel: %r" % [m["content"] for m in msgs])


def t_ratelimit(f):
    f.ok("POST", "/ratelimits", {"routes": {"POST /channels/{channel_id}/messages": {"limit": 2, "window_s": 1.5}}})
    path = "/channels/%s/messages" % CHAN
    st1, h1, _ = f.api("POST", path, {"content": "rl 1"})
    st2, h2, _ = f.api("POST", path, {"content": "rl 2"})
    st3, h3, js = f.api("POST", path, {"content": "rl 3"})
    check(st1 == st2 == 200 and h1["X-RateLimit-Limit"] == "2" and h1["X-RateLimit-Remaining"] == "1"
          and h2["X-RateLimit-Remaining"] == "0", "bucket headers: %r" % h2)
    check(h1["X-RateLimit-Bucket"] == h2["X-RateLimit-Bucket"], "same bucket")
    check(st3 == 429 and js["global"] is False and isinstance(js["retry_after"], float) and 0 < js["retry_after"] <= 1.5,
          "429 body: %s %r" % (st3, js))
    check(h3["X-RateLimit-Scope"] == "user" and int(h3["Retry-After"]) >= 1 and h3["X-RateLimit-Remaining"] == "0"
          and float(h3["X-RateLimit-Reset-After"]) <= 1.5, "429 headers: %r" % h3)
    # other channel = other major parameter = own bucket
    st4, _, _ = f.api("POST", "/channels/%s/messages" % CHAN2, {"content": "other channel"})
    check(st4 == 200, "bucket keyed by channel_id")
    time.sleep(float(h3["X-RateLimit-Reset-After"]) + 0.05)
    st5, _, _ = f.api("POST", path, {"content": "after reset"})
    check(st5 == 200, "bucket resets")
    # scripted global storm
    f.ok("POST", "/ratelimits/storm", {"scope": "global", "count": 1, "retry_after": 0.25})
    st6, h6, js6 = f.api("GET", "/users/@me")
    check(st6 == 429 and js6["global"] is True and h6.get("X-RateLimit-Global") == "true"
          and h6.get("X-RateLimit-Scope") == "global", "global 429: %r %r" % (js6, h6))
    time.sleep(0.3)  # the global retry window it announced holds every route until then
    # scripted 502
    f.ok("POST", "/faults", {"route": "POST /channels/{channel_id}/messages", "status": 502, "count": 1})
    st7, _, _ = f.api("POST", path, {"content": "will 502"})
    check(st7 == 502, "injected 502")
    stats = f.ok("GET", "/stats")
    check(stats["rate_limited_429"] >= 2 and stats["invalid_requests"] >= 3, "counters: %r" % stats)
    f.ok("POST", "/ratelimits", {"routes": {"message_create": RELAXED}})


def t_retry_window(f):
    # A 429 holds its bucket (and a global one every route) for the retry_after it announced,
    # even when a scripted storm is used up; a request sent inside that window gets another 429
    # with what is left, and one sent well after the 429 (not one that may have been in flight)
    # is recorded as ignoring retry_after. After the window it passes.
    path = "/channels/%s/messages" % CHAN
    f.ok("POST", "/ratelimits/storm", {"route": "message_create", "major": CHAN, "count": 1, "retry_after": 0.8})
    st1, h1, js1 = f.api("POST", path, {"content": "storm 1"})
    st0, _, _ = f.api("POST", path, {"content": "in flight"})
    check(st0 == 429 and not [x for x in f.ok("GET", "/violations")["violations"] if x["kind"] == "retry_after_ignored"],
          "a request right after the 429 is held but not counted as ignoring it")
    time.sleep(0.15)
    st2, h2, js2 = f.api("POST", path, {"content": "too soon"})
    check(st1 == 429 and st2 == 429, "held inside the window: %s %s" % (st1, st2))
    check(0 < js2["retry_after"] <= js1["retry_after"] and h2["X-RateLimit-Bucket"] == h1["X-RateLimit-Bucket"]
          and h2["X-RateLimit-Scope"] == "user", "what is left of the window: %r %r" % (js2, h2))
    st3, _, _ = f.api("POST", "/channels/%s/messages" % CHAN2, {"content": "other channel, other bucket"})
    check(st3 == 200, "another major parameter is not held")
    v = [x for x in f.ok("GET", "/violations")["violations"] if x["kind"] == "retry_after_ignored"]
    check(len(v) == 1 and "POST /channels/{channel_id}/messages" in v[0]["detail"], "violation: %r" % v)
    time.sleep(0.7)
    st4, _, _ = f.api("POST", path, {"content": "after the window"})
    check(st4 == 200, "the window is over: %s" % st4)
    f.ok("POST", "/ratelimits/storm", {"scope": "global", "count": 1, "retry_after": 0.5})
    st5, _, js5 = f.api("GET", "/users/@me")
    time.sleep(0.15)
    st6, h6, js6 = f.api("POST", "/channels/%s/messages" % CHAN2, {"content": "global window"})
    check(st5 == 429 and st6 == 429 and js6["global"] is True and h6.get("X-RateLimit-Global") == "true",
          "a global window holds every route: %s %r" % (st6, js6))
    v = [x for x in f.ok("GET", "/violations")["violations"] if x["kind"] == "retry_after_ignored"]
    check(len(v) == 2, "second violation: %r" % v)
    time.sleep(0.4)
    st7, _, _ = f.api("GET", "/users/@me")
    check(st7 == 200, "the global window is over: %s" % st7)


def t_multipart(f):
    boundary = "----selftest%d" % os.getpid()
    png = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + struct.pack(">II", 3, 2) + b"\x08\x02\0\0\0" + os.urandom(300)
    payload = {"content": "report attached", "attachments": [{"id": 0, "filename": "shot.png", "description": "screen"},
                                                             {"id": 1, "filename": "log.txt"}]}
    parts = [("payload_json", None, "application/json", json.dumps(payload).encode()),
             ("files[0]", "shot.png", "image/png", png),
             ("files[1]", "log.txt", "text/plain", b"line1\nline2\n")]
    body = b""
    for name, fn, ct, data in parts:
        body += b"--" + boundary.encode() + b"\r\n"
        cd = 'form-data; name="%s"' % name + ('; filename="%s"' % fn if fn else "")
        body += ("Content-Disposition: %s\r\nContent-Type: %s\r\n\r\n" % (cd, ct)).encode() + data + b"\r\n"
    body += b"--" + boundary.encode() + b"--\r\n"
    st, _, msg = f.api("POST", "/channels/%s/messages" % CHAN, raw=body, ctype="multipart/form-data; boundary=" + boundary)
    check(st == 200 and len(msg["attachments"]) == 2, "multipart create: %s %r" % (st, msg))
    a0 = msg["attachments"][0]
    check(a0["filename"] == "shot.png" and a0["size"] == len(png) and a0["width"] == 3 and a0["height"] == 2
          and a0["description"] == "screen", "attachment object: %r" % a0)
    st, hd, data = f.raw("GET", a0["url"])
    check(st == 200 and data == png and hd["Content-Type"] == "image/png", "download attachment")
    st, _, _ = f.raw("GET", a0["url"].split("?")[0])
    check(st == 404, "unsigned CDN URL -> 404")
    # edit keeping only the first attachment
    st, _, ed = f.api("PATCH", "/channels/%s/messages/%s" % (CHAN, msg["id"]), {"attachments": [{"id": a0["id"]}]})
    check(st == 200 and [a["id"] for a in ed["attachments"]] == [a0["id"]], "edit keeps listed attachments")
    view = f.ok("GET", "/messages/%s" % msg["id"])
    check(view["attachments"][0]["bytes"] == len(png), "control view bytes size")
    # injected user message with downloadable attachment
    inj = f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "see file",
                                     "attachments": [{"filename": "notes.md", "data_b64": base64.b64encode(b"# hi").decode()}]})
    st, _, data = f.raw("GET", inj["attachments"][0]["url"])
    check(st == 200 and data == b"# hi", "injected attachment download")
    # a voice message: flag IS_VOICE_MESSAGE, one audio/ogg attachment with duration_secs and waveform
    ogg = b"OggS" + os.urandom(60)
    vm = f.ok("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "", "voice": True,
                                    "attachments": [{"filename": "voice-message.ogg", "content_type": "audio/ogg",
                                                     "duration_secs": 2.5, "waveform": "AAAA",
                                                     "data_b64": base64.b64encode(ogg).decode()}]})
    att = vm["message"]["attachments"][0]
    check(vm["message"]["flags"] == 8192 and att["duration_secs"] == 2.5 and att["waveform"] == "AAAA", "voice message: %r" % vm)
    st, _, data = f.raw("GET", att["url"])
    check(st == 200 and data == ogg, "voice message download")
    st, _ = f.ctl("POST", "/messages", {"channel_id": CHAN, "author": {"id": ALICE}, "content": "words", "voice": True,
                                      "attachments": [{"filename": "v.ogg", "duration_secs": 1, "data_b64": "T2dnUw=="}]})
    check(st == 400, "a voice message carries no text: %s" % st)


def t_interactions(f):
    cmds = [{"name": "run", "description": "Run a prompt", "options": [
        {"type": 3, "name": "prompt", "description": "what to do", "required": True}]}]
    st, _, out = f.api("PUT", "/applications/%s/guilds/%s/commands" % (BOT, GUILD), cmds)
    check(st == 200 and out[0]["name"] == "run" and out[0]["id"], "bulk overwrite: %s %r" % (st, out))
    st, _, js = f.api("PUT", "/applications/%s/commands" % BOT, [{"name": "Bad Name", "description": "x"}])
    check(st == 400 and js["code"] == 50035, "invalid command name rejected")
    ws, _ = connect_ready(f)
    inj = f.ok("POST", "/interactions", {"type": 2, "name": "run", "channel_id": CHAN,
                                         "user": {"id": ALICE, "username": "alice"}, "options": {"prompt": "fix it"}})
    ev = ws.recv()
    check(ev["t"] == "INTERACTION_CREATE" and ev["d"]["member"]["user"]["id"] == ALICE
          and ev["d"]["data"]["options"] == [{"name": "prompt", "type": 3, "value": "fix it"}], "INTERACTION_CREATE %r" % ev["d"].get("data"))
    cb = "/interactions/%s/%s/callback" % (inj["id"], inj["token"])
    st, _, js = f.api("POST", cb, {"type": 6})
    check(st == 400 and js["code"] == 50035, "type 6 invalid for slash commands")
    st, _, _ = f.api("POST", cb, {"type": 5})
    check(st == 204, "deferred ack 204")
    st, _, js = f.api("POST", cb, {"type": 4, "data": {"content": "again"}})
    check(st == 400 and js["code"] == 40060, "double ack 40060: %r" % js)
    st, _, orig = f.api("PATCH", "/webhooks/%s/%s/messages/@original" % (BOT, inj["token"]),
                        {"content": "Done.", "components": [{"type": 1, "components": [
                            {"type": 2, "style": 3, "label": "Approve", "custom_id": "approve:1"}]}]})
    check(st == 200 and orig["content"] == "Done." and not orig["flags"] & 128, "edit @original")
    st, _, fu = f.api("POST", "/webhooks/%s/%s" % (BOT, inj["token"]), {"content": "follow-up"})
    check(st == 200 and fu["id"] != orig["id"], "followup")
    # button click on the bot's message
    click = f.ok("POST", "/interactions", {"type": 3, "message_id": orig["id"], "custom_id": "approve:1",
                                           "user": {"id": ALICE}})
    ev, _ = ws.recv_until(lambda m: m.get("t") == "INTERACTION_CREATE")
    check(ev["d"]["data"]["custom_id"] == "approve:1" and ev["d"]["message"]["id"] == orig["id"], "click payload")
    st, _, _ = f.api("POST", "/interactions/%s/%s/callback" % (click["id"], click["token"]),
                     {"type": 7, "data": {"content": "Approved by alice", "components": []}})
    check(st == 204, "update message 204")
    check(f.ok("GET", "/messages/%s" % orig["id"])["content"] == "Approved by alice", "type 7 edited the message")
    # late ack
    f.ok("POST", "/config", {"interaction_deadline_s": 0.2})
    late = f.ok("POST", "/interactions", {"type": 2, "name": "run", "channel_id": CHAN, "user": {"id": ALICE},
                                          "options": {"prompt": "slow"}})
    time.sleep(0.3)
    st, _, js = f.api("POST", "/interactions/%s/%s/callback" % (late["id"], late["token"]), {"type": 4, "data": {"content": "late"}})
    check(st == 404 and js["code"] == 10062, "late ack 10062: %r" % js)
    f.ok("POST", "/config", {"interaction_deadline_s": 3.0})
    # token expiry via fake clock
    f.ok("POST", "/clock", {"advance_s": 901})
    st, _, js = f.api("POST", "/webhooks/%s/%s" % (BOT, inj["token"]), {"content": "too late"})
    check(st == 401 and js["code"] == 50027, "expired token 50027: %r" % js)
    # DM slash command shape (global command needed)
    f.api("PUT", "/applications/%s/commands" % BOT, [{"name": "status", "description": "Show status"}])
    dmi = f.ok("POST", "/interactions", {"type": 2, "name": "status", "dm": True, "user": {"id": ALICE}})
    check("user" in dmi["interaction"] and "member" not in dmi["interaction"] and dmi["interaction"]["context"] == 1,
          "DM interaction uses user")
    ws.close(1000)
    ws.shutdown()
    txt = f.raw("GET", f.root + "/_control/transcript.txt")[2].decode()
    check("click alice -> Approve (approve:1)" in txt and "slash alice: /run prompt:\"fix it\"" in txt, "transcript:\n" + txt)


def t_limits_misc(f):
    # gateway send rate limit -> 4008
    f.ok("POST", "/config", {"gateway_send_limit": 3, "gateway_send_window_s": 60})
    ws, _ = connect_ready(f, intents=513)  # identify = payload 1
    ws.send({"op": 1, "d": 2})
    ws.send({"op": 1, "d": 2})
    ws.send({"op": 1, "d": 2})
    check(ws.expect_close() == 4008, "4008 after exceeding the send limit")
    ws.shutdown()
    f.ok("POST", "/config", {"gateway_send_limit": 120})
    # heartbeat timeout -> 4009 (server stops waiting for a silent client)
    f.ok("POST", "/config", {"heartbeat_interval_ms": 150, "heartbeat_timeout_extra_ms": 50})
    ws = WSClient(gw_url(f.gateway))
    check(ws.recv()["d"]["heartbeat_interval"] == 150, "configured interval")
    check(ws.expect_close(3) == 4009, "4009 on missing heartbeats")
    ws.shutdown()
    f.ok("POST", "/config", {"heartbeat_interval_ms": 1000, "heartbeat_timeout_extra_ms": 1000})
    # file limits
    f.ok("POST", "/config", {"max_file_size": 1000})
    boundary = "b0undary"

    def mp(n, size):
        body = b"--%s\r\nContent-Disposition: form-data; name=\"payload_json\"\r\nContent-Type: application/json\r\n\r\n%s\r\n" % (
            boundary.encode(), json.dumps({"content": "files"}).encode())
        for i in range(n):
            body += b"--%s\r\nContent-Disposition: form-data; name=\"files[%d]\"; filename=\"f%d.bin\"\r\n" \
                    b"Content-Type: application/octet-stream\r\n\r\n%s\r\n" % (boundary.encode(), i, i, b"x" * size)
        return body + b"--%s--\r\n" % boundary.encode()
    ct = "multipart/form-data; boundary=" + boundary
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, raw=mp(1, 1001), ctype=ct)
    check(st == 413 and js["code"] == 40005, "file over the size limit: %s %r" % (st, js))
    st, _, js = f.api("POST", "/channels/%s/messages" % CHAN, raw=mp(11, 10), ctype=ct)
    check(st == 400 and js["code"] == 50035, "11 files: %s %r" % (st, js))
    f.ok("POST", "/config", {"max_file_size": 10 * 1024 * 1024})
    # DM with an unknown user, DMs closed
    st, _, js = f.api("POST", "/users/@me/channels", {"recipient_id": "1499999999999999999"})
    check(st == 400 and js["code"] == 50033, "unknown recipient: %r" % js)
    f.ok("POST", "/users", {"id": "1400000000000000009", "username": "bob", "dms_closed": True})
    _, _, dm = f.api("POST", "/users/@me/channels", {"recipient_id": "1400000000000000009"})
    st, _, js = f.api("POST", "/channels/%s/messages" % dm["id"], {"content": "hi bob"})
    check(st == 403 and js["code"] == 50007, "DMs closed: %r" % js)
    st, _, js = f.api("POST", "/channels/1299999999999999999/messages", {"content": "x"})
    check(st == 404 and js["code"] == 10003, "unknown channel")
    # injected thread, wait helper, old-message edit limit
    ws, _ = connect_ready(f)
    th = f.ok("POST", "/threads", {"parent_id": CHAN, "name": "user thread", "user": {"id": ALICE}})
    ev = ws.recv()
    check(ev["t"] == "THREAD_CREATE" and ev["d"]["newly_created"] is True and ev["d"]["id"] == th["id"], "THREAD_CREATE")
    cur = f.ok("GET", "/cursor")["cursor"]
    _, _, m = f.api("POST", "/channels/%s/messages" % th["id"], {"content": "build finished: 3 tests failed"})
    w = f.ok("GET", "/wait", **{"for": "message", "channel_id": th["id"], "contains": "tests failed", "author": "bot",
                                "since": cur, "timeout": 2})
    check(w["result"][0]["id"] == m["id"], "wait for message")
    st, js = f.ctl("GET", "/wait", **{"for": "message", "channel_id": th["id"], "contains": "never", "timeout": 0.2})
    check(st == 408 and js["ok"] is False, "wait timeout 408")
    f.ok("POST", "/config", {"old_message_edit_limit": {"enabled": True, "limit": 1, "window_s": 20}})
    f.ok("POST", "/clock", {"advance_s": 3700})
    st, _, _ = f.api("PATCH", "/channels/%s/messages/%s" % (th["id"], m["id"]), {"content": "edit 1"})
    st2, h2, js2 = f.api("PATCH", "/channels/%s/messages/%s" % (th["id"], m["id"]), {"content": "edit 2"})
    check(st == 200 and st2 == 429 and js2["code"] == 30046 and "Retry-After" in h2, "30046: %s %r" % (st2, js2))
    f.ok("POST", "/config", {"old_message_edit_limit": {"enabled": False}})
    ws.close(1000)
    ws.shutdown()


TESTS = [t_identify_ready_heartbeat, t_resume_replay, t_close_codes, t_intents, t_rest_basics, t_schema, t_nonce,
         t_ratelimit, t_retry_window, t_multipart, t_interactions, t_limits_misc]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=None)
    ap.add_argument("--keep-log", action="store_true")
    ap.add_argument("-k", default=None, help="run only tests whose name contains this")
    args = ap.parse_args()
    t0 = time.monotonic()
    fake = Fake(args.spec)
    fake.ok("POST", "/config", {"identify_window_s": 0})  # tests identify back-to-back
    # the functional tests post many messages to one channel quickly; t_ratelimit sets its own limits
    fake.ok("POST", "/ratelimits", {"routes": {"message_create": RELAXED, "message_edit": RELAXED, "default": RELAXED}})
    failed = []
    try:
        for t in TESTS:
            if args.k and args.k not in t.__name__:
                continue
            t1 = time.monotonic()
            try:
                t(fake)
                print("ok   %-28s %.2fs" % (t.__name__, time.monotonic() - t1))
            except Exception:
                failed.append(t.__name__)
                print("FAIL %s" % t.__name__)
                traceback.print_exc()
    finally:
        fake.stop()
    print("%d/%d passed in %.1fs (fake log and transcript: %s)" % (
        len(TESTS) - len(failed) if not args.k else -1, len(TESTS), time.monotonic() - t0, fake.tmp))
    if failed and args.keep_log is False:
        print(open(fake.log.name).read()[-4000:])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

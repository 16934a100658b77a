#!/usr/bin/env python3
"""Self-test of the fake Slack: its Web API rules, rate limits, the upload flow and Socket Mode
(hello, acks, retries, disconnects) against spec slack-api.md. Run before the integration tests
(make test): a broken fake would fail them for reasons that have nothing to do with pi-relayd."""

import base64
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BOT = "xoxb-1111-2222-fakeBotTokenSecret"
APP = "xapp-1-A0FAKEAPP-3333-fakeAppTokenSecret"
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def http(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Fake:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="fake-slack-selftest-")
        port_file = os.path.join(self.dir, "port.json")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_slack.py"), "--port", "0", "--control-port-file",
                                      port_file, "--retry-delays", "0.5,0.5,0.5"], stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        info = json.load(open(port_file))
        self.port, self.api = info["port"], info["base"]
        self.root = "http://127.0.0.1:%d" % self.port

    def call(self, method, args=None, token=BOT, form=False, charset=True):
        headers = {"Authorization": "Bearer " + token} if token else {}
        body = None
        if args is not None:
            if form:
                body = "&".join("%s=%s" % (k, urllib.request.quote(str(v))) for k, v in args.items()).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                body = json.dumps(args).encode()
                headers["Content-Type"] = "application/json" + ("; charset=utf-8" if charset else "")
        status, h, data = http("POST", self.api + "/" + method, body, headers)
        return status, h, json.loads(data)

    def control(self, method, path, body=None):
        status, _, data = http(method, self.root + "/_control" + path, json.dumps(body).encode() if body is not None else None,
                               {"Content-Type": "application/json"} if body is not None else {})
        return json.loads(data) if data else {}

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)


class Client:
    """A minimal masked-frame WebSocket client."""

    def __init__(self, url):
        rest = url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        self.status = int(head.split(b" ")[1])
        self.buf = b""

    def send(self, obj):
        data = json.dumps(obj).encode()
        mask = os.urandom(4)
        n = len(data)
        head = struct.pack("!BB", 0x81, 0x80 | n) if n < 126 else struct.pack("!BBH", 0x81, 0x80 | 126, n)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self, timeout=5):
        self.sock.settimeout(timeout)
        while True:
            while len(self.buf) < 2:
                self.buf += self.sock.recv(65536)
            op, n = self.buf[0] & 0x0F, self.buf[1] & 0x7F
            off = 2
            if n == 126:
                while len(self.buf) < 4:
                    self.buf += self.sock.recv(65536)
                n, off = struct.unpack("!H", self.buf[2:4])[0], 4
            while len(self.buf) < off + n:
                self.buf += self.sock.recv(65536)
            payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
            if op == 0x1:
                return json.loads(payload)
            if op == 0x8:
                return None


def main():
    fake = Fake()
    try:
        status, _, out = fake.call("auth.test", {})
        check(out["ok"] and out["user_id"] == "U0BOTUSER", "auth.test with the bot token")
        _, _, out = fake.call("auth.test", {}, token="xoxb-wrong-token-000000")
        check(out == {"ok": False, "error": "invalid_auth"}, "a wrong token is invalid_auth: %s" % out)
        _, _, out = fake.call("apps.connections.open", None, token=BOT)
        check(out.get("error") == "not_allowed_token_type", "the bot token cannot open a socket")
        _, _, out = fake.call("chat.postMessage", {"channel": "C1", "text": "x"}, token=None)
        check(out.get("error") == "not_authed", "no token: not_authed")
        _, _, out = fake.call("chat.postMessage", {"channel": "C1", "text": "hi"}, charset=False)
        check(out["ok"] and out.get("warning") == "missing_charset", "JSON without charset warns")
        _, _, out = fake.call("users.info", {"user": "U0BOTUSER"})
        check(out.get("error") == "user_not_found", "a read method drops JSON arguments")
        _, _, out = fake.call("users.info", {"user": "U0BOTUSER"}, form=True)
        check(out["ok"] and out["user"]["id"] == "U0BOTUSER", "a read method takes a form")

        # Posting, updating, the DM of a U id, own-message rules, mrkdwn sanity.
        _, _, out = fake.call("chat.postMessage", {"channel": "UALICE", "text": "hello"})
        dm, ts = out["channel"], out["ts"]
        check(dm.startswith("D"), "a U id posts to its DM")
        _, _, out = fake.call("chat.update", {"channel": "UALICE", "ts": ts, "text": "x"})
        check(out.get("error") == "channel_not_found", "chat.update needs the D id")
        _, _, out = fake.call("chat.update", {"channel": dm, "ts": ts, "text": "y" * 4001})
        check(out.get("error") == "msg_too_long", "chat.update over 4000: msg_too_long")
        _, _, out = fake.call("chat.update", {"channel": dm, "ts": ts, "text": "edited"})
        check(out["ok"], "chat.update of our message")
        user = fake.control("POST", "/messages", {"user": "UALICE", "text": "from alice"})
        # An audio clip (specs/slack-audio-clips.md §1): subtype slack_audio, media_display_type audio,
        # duration_ms, a video/* mimetype.
        clip = fake.control("POST", "/messages", {"user": "UALICE", "text": "", "files": [
            {"name": "audio_message.webm", "mimetype": "video/webm", "audio_clip": True, "duration_ms": 2300, "content_b64": "T2dnUw=="}]})
        shared = [m for m in fake.control("GET", "/messages?channel=%s" % dm)["messages"] if m.get("ts") == clip["ts"]]
        f = shared[0]["files"][0] if shared and shared[0].get("files") else {}
        check(f.get("subtype") == "slack_audio" and f.get("media_display_type") == "audio" and f.get("duration_ms") == 2300
              and f.get("mimetype") == "video/webm", "an audio clip's file object: %r" % f)
        _, _, out = fake.call("chat.update", {"channel": dm, "ts": user["ts"], "text": "x"})
        check(out.get("error") == "cant_update_message", "another's message cannot be updated")
        _, _, out = fake.call("reactions.add", {"channel": dm, "timestamp": user["ts"], "name": ":x:"})
        check(out.get("error") == "invalid_name", "reaction names without colons")
        _, _, out = fake.call("reactions.add", {"channel": dm, "timestamp": user["ts"], "name": "x"})
        _, _, again = fake.call("reactions.add", {"channel": dm, "timestamp": user["ts"], "name": "x"})
        check(out["ok"] and again.get("error") == "already_reacted", "already_reacted")
        bad = {"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "a"}, "action_id": "a", "disabled": True},
                                               {"type": "button", "text": {"type": "plain_text", "text": "b"}, "action_id": "a"}]}
        _, _, out = fake.call("chat.postMessage", {"channel": dm, "text": "t", "blocks": [bad]})
        check(out.get("error") == "invalid_blocks" and len(out["response_metadata"]["messages"]) == 2, "invalid_blocks names both: %s" % out)
        before = len(fake.control("GET", "/violations?severity=error")["violations"])
        fake.call("chat.postMessage", {"channel": dm, "text": "a < b"})
        check(len(fake.control("GET", "/violations?severity=error")["violations"]) == before + 1, "unescaped < is a violation")

        # The upload flow.
        _, _, out = fake.call("files.getUploadURLExternal", {"filename": "a.md", "length": 5}, form=True)
        status, _, _ = http("POST", out["upload_url"], b"hello", {"Content-Type": "application/octet-stream"})
        check(status == 200, "upload to the URL")
        _, _, done = fake.call("files.completeUploadExternal", {"files": [{"id": out["file_id"], "title": "a.md"}], "channel_id": dm})
        check(done["ok"] and done["files"][0]["id"] == out["file_id"], "complete shares the file")
        _, _, twice = fake.call("files.completeUploadExternal", {"files": [{"id": out["file_id"]}], "channel_id": dm})
        check(not twice["ok"], "complete only once")
        shared = [m for m in fake.control("GET", "/messages?channel=%s&from=bot" % dm)["messages"] if m.get("files")]
        check(len(shared) == 1, "the file is a message in the channel")
        url = shared[0]["files"][0]["url_private"]
        status, h, body = http("GET", url)
        check(status == 200 and body.startswith(b"<!DOCTYPE"), "url_private without the token: the sign-in page")
        status, h, body = http("GET", url, headers={"Authorization": "Bearer " + BOT})
        check(body == b"hello", "url_private with the bot token: the bytes")

        # Rate limits: a forced 429, then a call inside the window is a violation.
        fake.control("POST", "/rate_limit", {"method": "chat.update", "retry_after": 2, "count": 1})
        status, h, out = fake.call("chat.update", {"channel": dm, "ts": ts, "text": "z"})
        check(status == 429 and h.get("Retry-After") == "2" and out["error"] == "ratelimited", "forced 429 with Retry-After")
        before = len(fake.control("GET", "/violations?severity=error")["violations"])
        fake.call("chat.update", {"channel": dm, "ts": ts, "text": "zz"})
        check(len(fake.control("GET", "/violations?severity=error")["violations"]) == before + 1, "a call inside the window is a violation")
        codes = [fake.call("conversations.open", {"users": "UBOB"})[0] for _ in range(52)]
        check(429 in codes, "Tier 3 answers 429 past 50 a minute")

        # Socket Mode.
        _, _, out = fake.call("apps.connections.open", None, token=APP)
        client = Client(out["url"])
        check(client.status == 101, "WebSocket upgrade")
        hello = client.recv()
        check(hello["type"] == "hello", "hello first")
        again = Client(out["url"])
        check(again.status == 401, "a ticket is single use")
        # What happened while no socket was open comes first, as retries: acked and skipped.
        time.sleep(0.5)
        while True:
            try:
                queued = client.recv(timeout=0.5)
            except socket.timeout:
                break
            check(queued["retry_attempt"] >= 1, "an event from before the socket is a retry")
            client.send({"envelope_id": queued["envelope_id"]})
        sent = fake.control("POST", "/messages", {"user": "UALICE", "text": "ping"})
        envelope = client.recv()
        check(envelope["type"] == "events_api" and envelope["payload"]["event_id"] == sent["event_ids"][0], "the message as an event")
        check(envelope["retry_attempt"] == 0, "a first delivery")
        # Not acked: delivered again as a retry with the same event id.
        retry = client.recv(timeout=10)
        check(retry["retry_attempt"] == 1 and retry["retry_reason"] == "timeout"
              and retry["payload"]["event_id"] == envelope["payload"]["event_id"], "an unacked event is retried: %s" % retry)
        client.send({"envelope_id": retry["envelope_id"]})
        time.sleep(0.3)
        acked = fake.control("GET", "/envelopes")["envelopes"]
        check(any(e["envelope_id"] == retry["envelope_id"] and e["acked_at"] for e in acked), "the ack is recorded")
        check(any(e["envelope_id"] == envelope["envelope_id"] and e["late"] for e in acked), "the unacked one is late")
        cmd = fake.control("POST", "/command", {"user": "UALICE", "text": "sessions"})
        got = client.recv()
        check(got["type"] == "slash_commands" and got["payload"]["text"] == "sessions" and got["accepts_response_payload"], "a slash command")
        client.send({"envelope_id": got["envelope_id"]})
        fake.control("POST", "/disconnect", {"reason": "warning", "close_after": 0.5})
        got = client.recv()
        check(got["type"] == "disconnect" and got["reason"] == "warning", "a disconnect warning")
        check(client.recv(timeout=5) is None, "the socket closes after the warning")
        fake.control("POST", "/revoke", {})
        _, _, out = fake.call("auth.test", {})
        check(out.get("error") == "token_revoked", "a revoked token")
    finally:
        fake.stop()
    if FAILURES:
        print("fake_slack selftest: %d failure(s)" % len(FAILURES))
        sys.exit(1)
    print("fake_slack selftest: ok")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The driver of `pi-relayd plugin check` for the web dashboard: it plays a browser.

    pi-relayd plugin check web --driver "python3 Tests/Fakes/web_browser/check_driver.py"

The dashboard is its own service, so there is no fake to start: the driver gives the plugin a free
loopback port, signs in with a pairing code the check honours (the `pairing` key of `start`,
docs/PROTOCOL.md §10), and then does what the page's script does (Sources/plugins/web/Pages): POST
/api/sessions/SESSION/prompt and /answer with the cookie and the page's own Origin, and one
WebSocket to /ws that sends {"type":"watch"} and reads the session's items, live views and closed
questions. What the user sees is kept as posts: a live view is one post, edited in place by every
view after the first and by the final of its run (the page swaps the live box for the final); a
question's buttons are its options and Cancel until it is closed.

The WebSocket client follows RFC 6455: the opening handshake (§4.1), client frames masked (§5.3),
server frames unmasked, fragmented messages joined (§5.4), ping answered with pong (§5.5.2), close
ends the connection (§5.5.1). Standard library only.
"""

import base64
import html
import http.client
import json
import os
import re
import socket
import struct
import sys
import threading
import time

SESSION = "c4ec0001"  # the check's one session (docs/PROTOCOL.md §10)
state = {"port": None, "code": None, "cookie": None, "last_prompt": None}
lock = threading.Lock()
posts = []  # [{"id", "text", "buttons", "edits", "question"}], as the page shows them
reader = {"thread": None, "stop": False}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def origin():
    return f"http://127.0.0.1:{state['port']}"


def request(method, path, body=None, timeout=30):
    """One HTTP request as the page makes it: its own Origin, the cookie, JSON."""
    connection = http.client.HTTPConnection("127.0.0.1", state["port"], timeout=timeout)
    headers = {"Origin": origin()}
    if state["cookie"]:
        headers["Cookie"] = state["cookie"]
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    answer = (response.status, response.getheader("Set-Cookie"), response.read())
    connection.close()
    return answer


def signed_in():
    """Signs in with the pairing code once the plugin listens; then keeps the page's socket open."""
    if state["cookie"]:
        return
    deadline = time.monotonic() + 30
    while True:
        try:
            status, cookie, body = request("POST", "/pair/" + state["code"])
            break
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the dashboard did not listen on port {state['port']} within 30 s")
            time.sleep(0.1)
    if status != 303 or not cookie:
        raise RuntimeError(f"sign-in refused: {status} {body[:200]!r}")
    state["cookie"] = cookie.split(";")[0]
    reader["thread"] = threading.Thread(target=read_page, daemon=True)
    reader["thread"].start()


# MARK: The page's WebSocket (RFC 6455)

def connect():
    sock = socket.create_connection(("127.0.0.1", state["port"]), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{state['port']}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin()}\r\n"
                  f"Cookie: {state['cookie']}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise OSError("closed during the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise OSError("upgrade refused: " + head.split(b"\r\n")[0].decode(errors="replace"))
    sock.settimeout(None)
    return sock


def send_frame(sock, opcode, payload):
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


def messages(sock):
    """Text messages, fragments joined; pings answered."""
    parts = b""
    while True:
        first, second = exactly(sock, 2)
        opcode, length = first & 0x0F, second & 0x7F
        if length == 126:
            length = struct.unpack("!H", exactly(sock, 2))[0]
        elif length == 127:
            length = struct.unpack("!Q", exactly(sock, 8))[0]
        mask = exactly(sock, 4) if second & 0x80 else None
        payload = exactly(sock, length)
        if mask:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        if opcode == 0x8:
            return
        if opcode == 0x9:
            send_frame(sock, 0xA, payload)
            continue
        if opcode in (0x1, 0x0):
            parts += payload
            if first & 0x80:
                yield parts.decode()
                parts = b""


def read_page():
    """The page's socket, reopened after the plugin restarts; every open starts the page afresh."""
    while not reader["stop"]:
        try:
            sock = connect()
        except OSError:
            time.sleep(0.1)
            continue
        with lock:
            posts.clear()
        try:
            send_frame(sock, 0x1, json.dumps({"type": "watch", "session": SESSION}).encode())
            for text in messages(sock):
                receive(json.loads(text))
        except (OSError, ValueError):
            pass
        finally:
            sock.close()
        time.sleep(0.1)


def plain(markup):
    """The text a browser shows for the formatter's html."""
    return html.unescape(re.sub(r"<[^>]*>", "", markup))


def find(post_id):
    return next((p for p in posts if p["id"] == post_id), None)


def receive(message):
    if message.get("session") != SESSION:
        return
    kind = message.get("type")
    with lock:
        if kind == "live":
            live = find("live:" + message["runId"])
            if live:
                live["text"] = plain(message["html"])
                live["edits"] += 1
            else:
                posts.append({"id": "live:" + message["runId"], "text": plain(message["html"]), "buttons": [], "edits": 0})
        elif kind == "item":
            item = message["item"]
            if item.get("html") is not None:
                text = plain(item["html"])
            else:
                text = item.get("text", "")
            buttons, question = [], item.get("question")
            if question:
                text = "\n".join(t for t in [question.get("title", ""), question.get("message") or ""] if t)
                if item.get("closed"):
                    text += "\n" + item["closed"]
                else:
                    buttons = list(question.get("options") or []) + ["Cancel"]
            live = find("live:" + item["runId"]) if item.get("runId") and item.get("kind") == "final" else None
            if live:
                # The page removes the run's live box as its final arrives: one message, edited.
                live.update({"id": item["id"], "text": text, "edits": live["edits"] + 1})
            else:
                posts.append({"id": item["id"], "text": text, "buttons": buttons, "edits": 0,
                              "question": question.get("id") if question else None})
        elif kind == "closed":
            for post in posts:
                if post.get("question") == message.get("questionId"):
                    post["text"] += "\n" + message.get("text", "")
                    post["buttons"] = []


# MARK: The ops

def start(_request):
    state["port"] = free_port()
    state["code"] = base64.b32encode(os.urandom(10)).decode().rstrip("=")
    return {"env": {}, "config": {"listen": f"127.0.0.1:{state['port']}"},
            "chat": {"target": {"channel": "s:" + SESSION}, "userName": "the browser"}, "edits": True,
            "pairing": state["code"]}


def message(request_):
    signed_in()
    state["last_prompt"] = {"text": request_["text"], "id": base64.b32encode(os.urandom(5)).decode()}
    return prompt(state["last_prompt"])


def duplicate(_request):
    """The browser sends the same prompt again, as after a lost answer: the same id."""
    signed_in()
    if not state["last_prompt"]:
        return {"error": "no message to send again"}
    return prompt(state["last_prompt"])


def prompt(body):
    status, _, answer = request("POST", f"/api/sessions/{SESSION}/prompt", body)
    if status != 200:
        return {"error": f"the prompt was answered {status}: {answer[:200]!r}"}
    return {"ok": True}


def list_posts(_request):
    signed_in()
    with lock:
        return {"posts": [{"id": p["id"], "text": p["text"], "buttons": p["buttons"], "edits": p["edits"]} for p in posts]}


def press(request_):
    signed_in()
    with lock:
        post = find(request_["post"])
        question = post and post.get("question")
    if not question:
        return {"error": f"post {request_['post']} holds no question"}
    label = request_["label"]
    body = {"questionId": question, "cancelled": True} if label == "Cancel" else {"questionId": question, "value": label}
    status, _, answer = request("POST", f"/api/sessions/{SESSION}/answer", body)
    if status != 200:
        return {"error": f"the answer was answered {status}: {answer[:200]!r}"}
    return {"ok": True}


OPS = {"start": start, "message": message, "duplicate": duplicate, "posts": list_posts, "press": press}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        op = json.loads(line)
        handler = OPS.get(op.get("op"))
        try:
            answer = handler(op) if handler else {"unsupported": f"no op {op.get('op')!r}"}
        except Exception as error:  # reported to the check, which fails the step with it
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    reader["stop"] = True


if __name__ == "__main__":
    main()

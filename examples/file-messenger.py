#!/usr/bin/env python3
"""filechat: a messenger plugin for pi-relayd, written from docs/PROTOCOL.md alone.

A chat that lives in two files of the plugin's state directory, so you can drive pi with
`echo ... >> in.txt` and `tail -f transcript.txt` (or from another program):

  in.txt          each line you append is a chat message ("/sessions", "/use api", "fix the tests",
                  or the answer to an open question: "yes", "2", any text)
  transcript.txt  what the chat shows: replies, finals, notices, questions, live text as it grows

It is one DM-like chat (`dm: true`, no servers, no mentions) for one user: `user` in its config
section (default: $USER), who must be in `allowedUsers` or FILECHAT_ALLOWED_USERS.

    filechat:
      user: me
      allowedUsers: [me]

The plugin id is the file name, so install it as `filechat` (copied as it is, its id would be
`file-messenger.py`, and neither the section above nor FILECHAT_ALLOWED_USERS would apply):

    install -m 755 examples/file-messenger.py ~/.pi-relayd/plugins/filechat

then add the section above to ~/.pi-relayd/config.yaml and run `pi-relayd restart` (the
config is read only at start).

Only the Python standard library. Messenger contract: PROTOCOL.md section 6.
"""

import json
import os
import sys
import threading
import time

NAME = "filechat"
if os.environ.get("PI_RELAY_PLUGIN") != "1":
    print(f"{NAME}: a pi-relayd messenger plugin (a chat in two files). Start it through pi-relayd: "
          "install it as ~/.pi-relayd/plugins/filechat and see docs/PROTOCOL.md.", file=sys.stderr)
    sys.exit(64)

out_lock = threading.Lock()
pending = {}            # request id -> [threading.Event, response]
next_id = [0]


def send(message):
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"
    with out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def log(text):
    print(text, file=sys.stderr, flush=True)


def request(method, params, timeout=60):
    """A request to pi-relayd; waits for its response (the reader thread sets it)."""
    with out_lock:
        next_id[0] += 1
        rid = f"f{next_id[0]}"
    waiter = [threading.Event(), None]
    pending[rid] = waiter
    send({"type": "request", "id": rid, "method": method, "params": params, "deadlineMs": timeout * 1000})
    waiter[0].wait(timeout)
    pending.pop(rid, None)
    return waiter[1] or {"error": {"code": "timeout", "message": f"{method}: no answer"}}


class Chat:
    def __init__(self, state_dir, config):
        self.inbox = os.path.join(state_dir, "in.txt")
        self.transcript = os.path.join(state_dir, "transcript.txt")
        self.user = config.get("user") or os.environ.get("USER", "me")
        self.live_rev = {}      # runId -> newest rev shown
        open(self.inbox, "a").close()
        # Delivery ids acted on, kept on disk: after a crash pi-relayd delivers again whatever it
        # had not seen acked, and what this chat already showed must not show twice (PROTOCOL.md
        # section 4). Only the newest few thousand can come back.
        self.delivered = os.path.join(state_dir, "delivered.txt")
        ids = open(self.delivered).read().split() if os.path.exists(self.delivered) else []
        self.seen = set(ids[-4096:])
        with open(self.delivered, "w") as f:
            f.write("".join(i + "\n" for i in ids[-4096:]))

    def acted_on(self, delivery_id):
        self.seen.add(delivery_id)
        with open(self.delivered, "a") as f:
            f.write(delivery_id + "\n")

    def show(self, text):
        with open(self.transcript, "a", encoding="utf-8") as f:
            f.write(text.rstrip("\n") + "\n")

    def chat(self):
        return {"messenger": NAME, "channel": "local", "user": self.user, "userName": self.user, "dm": True}

    def show_reply(self, reply):
        if reply and reply.get("text"):
            self.show("bot: " + reply["text"])
        for row in (reply or {}).get("actions") or []:
            self.show("  buttons: " + ", ".join(f"{a['label']} (/press {a['id']})" for a in row))
        if reply and reply.get("openThread"):
            # No threads here: this chat watches the new session instead (PROTOCOL.md section 6).
            request("chat.bind", {"chat": self.chat(), "sessionId": reply["openThread"]["sessionId"]})

    def typed(self, n, text):
        if text.startswith("/press "):
            result = request("chat.command", {"chat": self.chat(), "name": "action", "args": {"id": text[7:].strip()}})
            return self.show_reply(result.get("result"))
        result = request("chat.message", {"chat": self.chat(), "messageId": f"line-{n}", "text": text, "attachments": []})
        if "error" in result:
            return self.show("error: " + result["error"]["message"])
        self.show_reply(result["result"].get("reply"))

    def deliver(self, method, params):
        if method == "chat.post":
            kind = params.get("kind")
            if kind == "final":
                self.show("bot (final):\n" + "\n".join(params.get("chunks") or [params.get("text", "")]))
            elif kind == "question":
                q = params["question"]
                options = "".join(f"\n  {i + 1}. {o}" for i, o in enumerate(q.get("options") or []))
                hint = {"confirm": "answer yes or no", "select": "answer with a number or the text"}.get(q["method"], "answer with text")
                self.show(f"question: {q['title']} {q.get('message') or ''}{options}\n  ({hint})")
            else:
                self.show(f"bot ({kind}): " + (params.get("text") or "\n".join(params.get("chunks") or [])))
            for f in params.get("files") or []:
                self.show(f"  file: {f['filename']} ({f['path']})")
        elif method == "chat.question.closed":
            self.show("question closed: " + params["text"])

    def notify(self, method, params):
        if method == "chat.live":
            run, rev = params["runId"], params["rev"]
            if rev <= self.live_rev.get(run, 0):
                return  # an older revision overtaken by a newer one
            self.live_rev[run] = rev
            self.show(f"live [{rev}]: " + "".join(params.get("chunks") or []) + params.get("tail", ""))

    def follow_inbox(self):
        n, offset = 0, 0
        while True:
            with open(self.inbox, "rb") as f:
                f.seek(offset)
                data = f.read()
            lines = data.split(b"\n")[:-1]   # an unfinished last line waits for its LF
            for raw in lines:
                offset += len(raw) + 1
                n += 1
                text = raw.decode("utf-8", "replace").strip()
                if text:
                    threading.Thread(target=self.typed, args=(n, text), daemon=True).start()
            time.sleep(0.1)


def main():
    send({"type": "hello", "protocol": 1, "name": NAME, "version": "1.0.0", "roles": ["messenger"],
          "limits": {"maxMessageLength": 4000}, "description": "a chat in two files of its state directory"})
    chat = None
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            log("skipped a line that is not JSON")
            continue
        kind = message.get("type")
        if kind == "welcome":
            chat = Chat(message["stateDir"], message.get("config") or {})
            threading.Thread(target=chat.follow_inbox, daemon=True).start()
            log(f"ready: write to {chat.inbox}, read {chat.transcript}")
        elif kind == "goodbye":
            log("pi-relayd refused us: " + message.get("reason", ""))
            return 1
        elif kind == "ping":
            send({"type": "pong", "id": message["id"]})
        elif kind == "shutdown":
            return 0
        elif kind == "response":
            waiter = pending.get(message.get("id"))
            if waiter:
                waiter[1] = message
                waiter[0].set()
        elif kind == "deliver" and chat:
            if message["id"] not in chat.seen:
                chat.deliver(message["method"], message.get("params") or {})
                chat.acted_on(message["id"])
            send({"type": "ack", "id": message["id"]})
        elif kind == "notify" and chat:
            chat.notify(message["method"], message.get("params") or {})
        elif kind == "request":
            if message.get("method") == "status":
                send({"type": "response", "id": message["id"], "result": {"chat": chat.transcript if chat else None}})
            else:
                send({"type": "response", "id": message["id"],
                      "error": {"code": "method_not_found", "message": f"unknown method {message.get('method')}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The driver of `pi-relayd plugin check` for the fake Telegram Bot API (fake_telegram.py here).

    pi-relayd plugin check telegram --driver "python3 Tests/Fakes/fake_telegram/check_driver.py"

It starts the fake, plays one user in a private chat with the bot through the fake's control
API (README.md §4), and reports the bot's messages as the user sees them. The driver protocol is
docs/PROTOCOL.md §10: one JSON object per line in, exactly one per line out. Standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.realpath(__file__))
TOKEN = "123456:TEST-telegram-token-abcdefghijklmnop"  # the fake's default token (README §1)
USER = {"id": 111000111, "first_name": "checker", "username": "checker"}
fake = {"process": None, "base": None, "folder": None}


def control(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(fake["base"] + "/_control" + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def start(_request):
    folder = tempfile.mkdtemp(prefix="fake-telegram-check-")
    port_file = os.path.join(folder, "port.json")
    log = open(os.path.join(folder, "fake.log"), "w")
    fake["folder"] = folder
    fake["process"] = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "fake_telegram.py"), "--port", "0", "--control-port-file", port_file],
        stdout=log, stderr=log, cwd=HERE)
    deadline = time.time() + 60
    while not os.path.exists(port_file):
        if fake["process"].poll() is not None or time.time() > deadline:
            return {"error": "the fake Telegram did not start: " + open(log.name).read()[-300:]}
        time.sleep(0.05)
    fake["base"] = json.load(open(port_file))["base"]
    # README §4: a private chat's id is its user's id; make it exist before anyone writes.
    control("POST", "/chats", {"id": USER["id"], "type": "private", "username": USER["username"]})
    return {
        "env": {"TELEGRAM_BOT_TOKEN": TOKEN},
        # A short long poll, so the plugin stops promptly when the check shuts it down.
        "config": {"apiBase": fake["base"], "pollTimeoutSeconds": 2},
        "chat": {"target": {"channel": str(USER["id"])}, "user": str(USER["id"]), "userName": USER["username"]},
        "edits": True,
    }


def message(request):
    control("POST", "/messages", {"from": USER, "text": request["text"]})
    return {"ok": True}


def bot_messages():
    # README §4, Reading: current text after edits (entities rendered), deleted ones left out.
    return control("GET", f"/messages?chat_id={USER['id']}&from=bot")["messages"]


def buttons(view):
    rows = (view.get("reply_markup") or {}).get("inline_keyboard") or []
    return [button for row in rows for button in row]


def posts(_request):
    return {"posts": [{"id": str(view["message_id"]), "text": view.get("text") or view.get("caption") or "",
                       "buttons": [b.get("text", "") for b in buttons(view)], "edits": view.get("edit_count", 0)}
                      for view in bot_messages()]}


def press(request):
    for view in bot_messages():
        if str(view["message_id"]) != request["post"]:
            continue
        for button in buttons(view):
            if button.get("text") == request["label"] and "callback_data" in button:
                # README §4, Injecting: a press is a callback query on that message.
                control("POST", "/callback", {"chat_id": USER["id"], "message_id": view["message_id"], "from": USER,
                                              "data": button["callback_data"]})
                return {"ok": True}
        return {"error": f"message {request['post']} has no button {request['label']!r}: {[b.get('text') for b in buttons(view)]}"}
    return {"error": f"no bot message {request['post']}"}


OPS = {
    "start": start,
    "message": message,
    "posts": posts,
    "press": press,
    # Telegram hands an update out until the bot confirms it with a higher getUpdates offset, and
    # never after (telegram-bot-api.md, getUpdates); a repeat comes only from the bot's own crash.
    "duplicate": lambda _: {"unsupported": "Telegram never delivers an update again once the bot has confirmed it"},
}


def main():
    try:
        for line in sys.stdin:
            request = json.loads(line)
            op = OPS.get(request.get("op"))
            try:
                answer = op(request) if op else {"error": f"unknown op {request.get('op')}"}
            except (OSError, ValueError, KeyError) as error:
                answer = {"error": f"{type(error).__name__}: {error}"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
    finally:
        if fake["process"]:
            fake["process"].terminate()
            fake["process"].wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())

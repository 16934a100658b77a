#!/usr/bin/env python3
"""The driver of `pi-relayd plugin check` for the fake Discord (fake_discord.py here).

    pi-relayd plugin check discord --driver "python3 Tests/Fakes/fake_discord/check_driver.py"

It starts the fake, plays one user in a DM with the bot through the fake's control API (README.md
§5), and reports the bot's messages as the user sees them. The driver protocol is
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
TOKEN = "CHECK.MTQ0MDAwMDAwMDAwMDA.Gx7Kp2.vL9qR4sT8wY1zA5cE3nB6mD0fH"
BOT = "1300000000000000001"
USER, NAME = "1400000000000000099", "checker"
fake = {"process": None, "root": None, "dm": None, "last": None}


def control(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(fake["root"] + "/_control" + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def start(_request):
    folder = tempfile.mkdtemp(prefix="fake-discord-check-")
    port_file = os.path.join(folder, "port.json")
    log = open(os.path.join(folder, "fake.log"), "w")
    fake["process"] = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "fake_discord.py"), "--port", "0", "--control-port-file", port_file,
         "--token", TOKEN, "--heartbeat-ms", "5000", "--bot-user-id", BOT, "--user", f"{USER}:{NAME}"],
        stdout=log, stderr=log, cwd=HERE)
    # README §1: loading the OpenAPI spec takes a few seconds.
    deadline = time.time() + 60
    while not os.path.exists(port_file):
        if fake["process"].poll() is not None or time.time() > deadline:
            return {"error": "the fake Discord did not start: " + open(log.name).read()[-300:]}
        time.sleep(0.05)
    found = json.load(open(port_file))
    fake["root"] = f"http://127.0.0.1:{found['port']}"
    # README §5: the DM channel, the same one POST /users/@me/channels gives the bot.
    fake["dm"] = control("POST", "/dm", {"user_id": USER})["channel"]["id"]
    return {
        "env": {"DISCORD_BOT_TOKEN": TOKEN},
        "config": {"apiBase": found["base"]},
        "chat": {"target": {"channel": fake["dm"]}, "user": USER, "userName": NAME},
        "edits": True,
    }


def wait_for_the_bot_online():
    """A user writes once the bot shows online: a gateway message sent while the bot is still
    connecting reaches nobody (discord-gateway: dispatches go to identified sessions only), so a
    check that writes first would test the race, not the plugin. README §5, GET /_control/gateway."""
    deadline = time.time() + 30
    while time.time() < deadline:
        if any(s["connected"] and s["alive"] and not s["invalidated"] for s in control("GET", "/gateway")["sessions"]):
            return None
        time.sleep(0.05)
    return "the bot did not connect to the gateway within 30 s"


def message(request):
    problem = wait_for_the_bot_online()
    if problem:
        return {"error": problem}
    # README §5, Injecting: a DM from the user, MESSAGE_CREATE over the gateway.
    sent = control("POST", "/messages", {"dm_user_id": USER, "author": {"id": USER, "username": NAME},
                                         "content": request["text"]})
    fake["last"] = sent["message"]
    if not sent["delivered_to"]:
        return {"error": "the MESSAGE_CREATE reached no gateway session"}
    return {"ok": True}


def duplicate(_request):
    # discord-gateway: a resume replays the dispatches after the client's last sequence number, so a
    # bot that resumes from before a message it handled gets the same MESSAGE_CREATE (same id) again.
    if fake["last"] is None:
        return {"error": "no message to deliver again"}
    if not control("POST", "/dispatch", {"t": "MESSAGE_CREATE", "d": fake["last"]})["delivered_to"]:
        return {"error": "the repeated MESSAGE_CREATE reached no gateway session"}
    return {"ok": True}


def bot_messages():
    return control("GET", f"/messages?channel_id={fake['dm']}&author=bot")["messages"]


def visible(view):
    """Content, then what its embeds say."""
    parts = [view.get("content") or ""]
    for embed in view.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f.get('name', '')}\n{f.get('value', '')}" for f in embed.get("fields") or []]
    return "\n".join(p for p in parts if p)


def components(view):
    """Every button's label and every select menu's option labels, in order, with their custom ids."""
    found = []
    for row in view.get("components") or []:
        for c in row.get("components") or []:
            if c.get("type") == 2 and not c.get("disabled"):
                found.append((c.get("label", ""), c.get("custom_id"), None))
            if c.get("type") == 3 and not c.get("disabled"):
                found += [(o.get("label", ""), c.get("custom_id"), o.get("value")) for o in c.get("options", [])]
    return found


def posts(_request):
    return {"posts": [{"id": v["id"], "text": visible(v), "buttons": [label for label, _, _ in components(v)],
                       "edits": v.get("edit_count", 0)} for v in bot_messages()]}


def press(request):
    for view in bot_messages():
        if view["id"] != request["post"]:
            continue
        for label, custom_id, value in components(view):
            if label == request["label"]:
                click = {"type": 3, "message_id": view["id"], "custom_id": custom_id, "dm": True,
                         "user": {"id": USER, "username": NAME}}
                if value is not None:
                    click["values"] = [value]
                control("POST", "/interactions", click)
                return {"ok": True}
        return {"error": f"message {request['post']} has no control {request['label']!r}"}
    return {"error": f"no bot message {request['post']}"}


OPS = {"start": start, "message": message, "duplicate": duplicate, "posts": posts, "press": press}


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

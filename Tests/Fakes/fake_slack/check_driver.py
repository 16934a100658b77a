#!/usr/bin/env python3
"""The driver of `pi-relayd plugin check` for the fake Slack (fake_slack.py here).

    pi-relayd plugin check slack --driver "python3 Tests/Fakes/fake_slack/check_driver.py"

It starts the fake, plays one user in a DM with the bot through the fake's control API (README.md,
"Control API"), and reports the bot's messages as the user sees them. The driver protocol is
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
BOT_TOKEN = "xoxb-4242-1717-CHECKslackBotSecretQ9x8c7v6"
APP_TOKEN = "xapp-1-A0FAKEAPP-5151-CHECKslackAppSecretZ1y2"
USER, NAME = "UCHECK01", "checker"
DM = "D" + USER[1:]  # the fake's DM with a user (dm_channel)
fake = {"process": None, "base": None, "root": None, "last_events": []}


def control(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(fake["root"] + "/_control" + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def start(_request):
    folder = tempfile.mkdtemp(prefix="fake-slack-check-")
    port_file = os.path.join(folder, "port.json")
    log = open(os.path.join(folder, "fake.log"), "w")
    fake["process"] = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "fake_slack.py"), "--port", "0", "--control-port-file", port_file,
         "--bot-token", BOT_TOKEN, "--app-token", APP_TOKEN], stdout=log, stderr=log, cwd=HERE)
    deadline = time.time() + 60
    while not os.path.exists(port_file):
        if fake["process"].poll() is not None or time.time() > deadline:
            return {"error": "the fake Slack did not start: " + open(log.name).read()[-300:]}
        time.sleep(0.05)
    found = json.load(open(port_file))
    fake["base"], fake["root"] = found["base"], f"http://127.0.0.1:{found['port']}"
    return {
        "env": {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN, "NO_PROXY": "127.0.0.1,localhost"},
        "config": {"apiBase": fake["base"]},
        "chat": {"target": {"channel": DM}, "user": USER, "userName": NAME},
        "edits": True,
    }


def message(request):
    # README, Control API: a user writes in the DM; the event reaches the bot over Socket Mode.
    fake["last_events"] = control("POST", "/messages", {"user": USER, "name": NAME, "text": request["text"]})["event_ids"]
    return {"ok": True}


def duplicate(_request):
    # slack-api.md §3: an event whose ack was lost comes again, the same event_id, as a retry.
    if not fake["last_events"]:
        return {"error": "no message to deliver again"}
    for event_id in fake["last_events"]:
        control("POST", "/redeliver", {"event_id": event_id})
    return {"ok": True}


def visible(message):
    """What the user reads: the text of the message's blocks, else its fallback `text`."""
    parts = []
    for block in message.get("blocks") or []:
        if block.get("type") in ("section", "header") and block.get("text"):
            parts.append(block["text"].get("text", ""))
        for field in block.get("fields") or []:
            parts.append(field.get("text", ""))
        if block.get("type") == "context":
            parts.extend(e.get("text", "") for e in block.get("elements", []) if e.get("type") in ("mrkdwn", "plain_text"))
    return "\n".join(parts) if parts else message.get("text", "")


def controls(message):
    labels = []
    for block in message.get("blocks") or []:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            if element.get("type") == "button":
                labels.append(element["text"]["text"])
            if element.get("type") == "static_select":
                labels.extend(option["text"]["text"] for option in element.get("options", []))
    return labels


def posts(_request):
    found = control("GET", f"/messages?channel={DM}&from=bot")["messages"]
    return {"posts": [{"id": m["ts"], "text": visible(m), "buttons": controls(m), "edits": m.get("edit_count", 0)} for m in found]}


def press(request):
    body = {"user": USER, "name": NAME, "channel": DM, "ts": request["post"]}
    found = [m for m in control("GET", f"/messages?channel={DM}&from=bot")["messages"] if m["ts"] == request["post"]]
    if not found:
        return {"error": f"no bot message {request['post']}"}
    buttons = [e["text"]["text"] for b in found[0].get("blocks") or [] if b.get("type") == "actions"
               for e in b.get("elements", []) if e.get("type") == "button"]
    # A button by its label, else a select menu's option (README, Control API: /click).
    body.update({"label": request["label"]} if request["label"] in buttons else {"option": request["label"]})
    control("POST", "/click", body)
    return {"ok": True}


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

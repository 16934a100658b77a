#!/usr/bin/env python3
"""The driver of examples/file-messenger.py for `pi-relayd plugin check`.

    pi-relayd plugin check examples/file-messenger.py --driver "python3 examples/file-messenger-driver.py"

A driver plays the user on the chat service and says what the bot posted there; the check plays
pi-relayd on the plugin's pipes. The protocol is docs/PROTOCOL.md, section 10: one JSON object per
line in, exactly one JSON object per line out. Here the "service" is two files in the plugin's state
folder: the user appends to in.txt, and the plugin appends what the chat shows to transcript.txt.
Only the Python standard library.
"""

import json
import os
import sys

USER = "checker"
state = {"dir": None}


def start(request):
    # The plugin starts after this answer, in this state folder.
    state["dir"] = request["stateDir"]
    return {
        "env": {},
        "config": {"user": USER},
        # What the plugin sends as its chat: one DM-like chat on the channel "local".
        "chat": {"target": {"channel": "local"}, "user": USER, "userName": USER},
        "edits": False,  # a transcript is append-only: a live view is a new entry, never an edit
    }


def message(request):
    with open(os.path.join(state["dir"], "in.txt"), "a", encoding="utf-8") as f:
        f.write(request["text"].replace("\n", " ") + "\n")
    return {"ok": True}


def posts(_request):
    """Each entry of the transcript is a post. The plugin writes an entry as one line, and a
    final, a question or a file list continues on lines that start with two spaces or come right
    after a `bot (final):` line; a new entry starts with a line that does neither."""
    path = os.path.join(state["dir"], "transcript.txt")
    entries = []
    continuing = False
    for line in open(path, encoding="utf-8").read().splitlines() if os.path.exists(path) else []:
        if entries and not _starts_entry(line) and (continuing or line.startswith("  ")):
            entries[-1] += "\n" + line
        else:
            entries.append(line)
        # A final's chunks follow its label line, one or more lines each, up to the next entry.
        continuing = line == "bot (final):" or (continuing and not _starts_entry(line))
    return {"posts": [{"id": str(i), "text": text, "buttons": [], "edits": 0} for i, text in enumerate(entries)]}


def _starts_entry(line):
    return line.startswith(("bot:", "bot (", "question:", "question closed:", "live [", "error:"))


OPS = {
    "start": start,
    "message": message,
    "posts": posts,
    # A file has no service that hands a line over twice: the plugin reads each line once.
    "duplicate": lambda _: {"unsupported": "a file chat has no service that delivers a message again"},
    # No buttons here: the user answers a question by typing its answer (PROTOCOL.md section 6).
    "press": lambda _: {"unsupported": "filechat has no buttons: a question is answered by typing"},
}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        op = OPS.get(request.get("op"))
        try:
            answer = op(request) if op else {"error": f"unknown op {request.get('op')}"}
        except OSError as error:
            answer = {"error": str(error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0  # end of input: nothing of ours is left running


if __name__ == "__main__":
    sys.exit(main())

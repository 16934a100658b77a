# Baseline (c): json.loads per line, as a Python bridge would.
import json
import sys

events = delta = 0
for raw in sys.stdin.buffer:
    raw = raw.rstrip(b"\n")
    if not raw:
        continue
    e = json.loads(raw)
    events += 1
    a = e.get("assistantMessageEvent")
    if e.get("type") == "message_update" and a and a.get("type") == "text_delta":
        delta += len(a["delta"])
print(f"events={events} deltaChars={delta}")

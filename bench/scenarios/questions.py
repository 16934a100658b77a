"""6. Questions on Telegram while a run streams into the same chat (issue "One messenger
pipeline", point 3: priority in every chat's send budget).

The real telegram plugin polls the fake Telegram Bot API (Tests/Fakes/fake_telegram, its flood
limits on: about one write a second per private chat). CHATS users each watch two sessions in
their private chat: `sNN`, which streams a long answer (25 deltas a second, so its live view
always has an edit waiting for the chat's budget), and `aNN`, whose run asks QUESTIONS `select`
questions GAP seconds apart, each with a TIMEOUT_MS countdown (the daemon closes the card when it
runs out, one more write).

Per question: the time from the bench pi writing the extension_ui_request (its wall clock) to
the fake Telegram answering the sendMessage that shows it (same clock). Reported: how many were
seen, p50, p99 and max, against the target p99 < 1.5 s.
"""
import json
import os
import statistics
import time

from ._relayd import Relayd, RelaydError, Rows, not_run, percentile, read_jsonl, scenario_work
from ._fakes import TG_TOKEN, FakeTelegram, quiet_until

CHATS = 4
USERS = [(str(5200000001 + i), f"qa{i:02d}") for i in range(CHATS)]
QUESTIONS = 13  # per chat: 52 in all
GAP = 3.0
TIMEOUT_MS = 1500
RATE = 25.0
TARGET_S = 1.5


def run(ctx):
    plugin = ctx.exe("pi-relay-telegram")
    if not os.access(plugin, os.X_OK):
        return not_run("questions", f"{plugin} is not built")
    work, pi_log, cwd = scenario_work(ctx, "questions")
    try:
        tg = FakeTelegram(ctx, work)
    except RuntimeError as e:
        return not_run("questions", str(e))
    d = Relayd(ctx, "questions", env={"BENCH_PI_LOG": pi_log, "TELEGRAM_BOT_TOKEN": TG_TOKEN})
    d.link_plugin("telegram", plugin)
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    d.configure({"pi": {"command": d.stub("bench-pi")},
                 "telegram": {"apiBase": tg.base, "allowedUsers": [u for u, _ in USERS], "pollTimeoutSeconds": 5}})
    stream_seconds = QUESTIONS * GAP + TIMEOUT_MS / 1000 + 3
    try:
        try:
            d.start()
            d.wait_plugin("formatter")
            d.wait_plugin("telegram", timeout=60)
        except RelaydError as e:
            return not_run("questions", f"the telegram plugin did not come up: {e}")
        if not tg.call("GET", "/wait?for=poll&timeout=30").get("ok"):
            return not_run("questions", "the telegram plugin did not poll the fake Telegram within 30 s")
        for kind in ("s", "a"):
            for i, user in enumerate(USERS):
                tg.say(user, f"/new {cwd} {kind}{i:02d}")
            for i, user in enumerate(USERS):
                if not tg.call("GET", f"/wait?for=message&from=bot&chat_id={user[0]}&contains=Started%20{kind}{i:02d}"
                                      "&timeout=60").get("ok"):
                    return not_run("questions", f"/new {kind}{i:02d} did not start a session within 60 s")
        quiet_until(tg, 2.0, 60)
        cursor = tg.call("GET", "/cursor")["cursor"]
        for i, user in enumerate(USERS):
            tg.say(user, f"/to s{i:02d} bench:stream:s{i:02d}:{stream_seconds}:{RATE}")
        # The streams' live views are busy before the first question.
        time.sleep(2.0)
        for i, user in enumerate(USERS):
            tg.say(user, f"bench:ask:a{i:02d}:{QUESTIONS}:{GAP}:{TIMEOUT_MS}")
        want = {f"{k}{i:02d}" for k in ("s", "a") for i in range(CHATS)}
        deadline = time.monotonic() + stream_seconds + 90
        while not want <= {e.get("tag") for e in read_jsonl(pi_log) if e.get("ev") == "done"}:
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        quiet_until(tg, 2.0, 60)
        requests = tg.call("GET", f"/requests?since={cursor}", timeout=120)["requests"]
        violations = tg.call("GET", "/violations?severity=error")["violations"]
    finally:
        d.stop()
        tg.stop()

    shown = {}  # title -> time the question was visible
    writes = {}  # chat -> writes during the scenario
    for r in requests:
        params = r.get("params") or {}
        if r.get("status") != 200 or r.get("method") not in ("sendMessage", "editMessageText", "deleteMessage"):
            continue
        writes[str(params.get("chat_id"))] = writes.get(str(params.get("chat_id")), 0) + 1
        text = str(params.get("text") or "")
        if r.get("method") == "sendMessage" and " question " in text:
            for line in text.splitlines():
                if " question " in line:
                    shown.setdefault(line.strip(), r["time"] + (r.get("duration_s") or 0))
    delays = []
    per_question = {}
    for e in read_jsonl(pi_log):
        if e.get("ev") != "asked":
            continue
        title = f"{e['tag']} question {e['k']}"
        seen = next((t for key, t in shown.items() if key.endswith(title)), None)
        if seen is not None:
            delays.append(seen - e["wall"] / 1e9)
            per_question[title] = {"asked": e["wall"] / 1e9, "visible": seen}
    first_chat = USERS[0][0]
    timeline = [{"t": r["time"], "done": r["time"] + (r.get("duration_s") or 0), "method": r.get("method"),
                 "status": r.get("status"), "text": str((r.get("params") or {}).get("text") or "")[:60]}
                for r in requests if str((r.get("params") or {}).get("chat_id")) == first_chat]
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump({"questions": per_question, "timeline": timeline}, f, indent=1)
    edits = sum(1 for r in requests if r.get("method") == "editMessageText" and r.get("status") == 200)

    ctx.chart("questions", "Telegram: a question visible while a run streams into the chat", "ms",
              [("question asked → visible", [1000 * d for d in delays])], 1000 * TARGET_S)
    rows = Rows("questions")
    add = rows.add

    asked = CHATS * QUESTIONS
    add(f"questions seen ({CHATS} private chats, each also streaming)", f"{len(delays)} / {asked}", "≥ 50",
        len(delays) >= 50)
    if not delays:
        return rows
    add("question asked → visible p50 ms", 1000 * statistics.median(delays))
    add("question asked → visible p99 ms", 1000 * percentile(delays, 99), f"< {TARGET_S * 1000:g} ms",
        percentile(delays, 99) < TARGET_S)
    add("question asked → visible max ms", 1000 * max(delays))
    add("Telegram writes per chat per second (budget ~1)",
        sum(writes.values()) / max(1, len(writes)) / (stream_seconds + 2))
    add("live edits and closed cards (editMessageText)", edits)
    add("fake Telegram violations", len(violations), "0", not violations)
    return rows

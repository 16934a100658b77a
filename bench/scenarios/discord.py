"""5. Discord budget: 20 sessions streaming long answers through the real Discord plugin to the
fake Discord (Tests/Fakes/fake_discord), which enforces Discord's documented rate limits (its
defaults: 50 requests/s global, 5 per 5 s per channel for message create and edit, ...).

Twenty channels are configured (`discord.channels`), so pi-relayd starts a session for each
(on the bench pi) and binds it. A user message mentioning the bot in every channel prompts all
twenty at once; each answers with a long plain-text answer streamed at 25 deltas a second for
15 s (~5,000 characters: three Discord messages), then the final answer is posted.

Reported: REST calls the plugin made from the first prompt until every final answer is in
place, 429s received, and, per session, the time from the first text delta pi wrote (its wall
clock) to the first request that put text of the answer in the channel (the fake's record of
the POST or PATCH, same clock).

Telegram, Slack and the web page, side by side with Discord at four chats each, are in the
`messengers` scenario.
"""
import json
import os
import statistics
import time

from ._fakes import GUILD, TOKEN, USER, Fake, quiet_until
from ._relayd import Relayd, RelaydError, Rows, not_run, read_jsonl, scenario_work

SESSIONS = 20
SECONDS = 15.0
RATE = 25.0
TARGET_S = 1.0
RELAY_CPU_TARGET = 3.0   # % of a core: daemon, messenger plugin and formatter together


def channel_id(i):
    return str(1200000000000000001 + i)


def run(ctx):
    plugin = ctx.exe("pi-relay-discord")
    if not os.access(plugin, os.X_OK):
        return not_run("discord", f"{plugin} is not built")
    work, pi_log, cwd = scenario_work(ctx, "discord")

    fake = Fake(ctx, work, [(channel_id(i), f"bench-{i:02d}") for i in range(SESSIONS)])
    d = Relayd(ctx, "discord", env={"BENCH_PI_LOG": pi_log, "DISCORD_BOT_TOKEN": TOKEN})
    d.link_plugin("discord", plugin)
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    config = {"pi": {"command": d.stub("bench-pi")},
              "discord": {"apiBase": fake.base, "allowedUsers": [USER], "guilds": [GUILD],
                          "channels": [{"id": channel_id(i), "cwd": cwd, "name": f"ch{i:02d}"} for i in range(SESSIONS)]}}
    d.configure(config)
    try:
        try:
            d.start()
            d.wait_plugin("formatter")
            d.wait_plugin("discord", timeout=60)
        except RelaydError as e:
            return not_run("discord", f"the Discord plugin did not come up: {e}")
        if not fake.call("GET", "/wait?for=connected&timeout=30").get("ok"):
            return not_run("discord", "the Discord plugin did not connect to the gateway within 30 s")
        deadline = time.monotonic() + 120
        while len(d.call("sessions")) < SESSIONS:
            if time.monotonic() > deadline:
                return not_run("discord", "the channels' sessions were not all created within 120 s")
            time.sleep(0.2)
        # Let start-up traffic (command registration, ...) finish before counting.
        quiet_until(fake, 2.0, 60)
        stats0 = fake.call("GET", "/stats")
        cursor = fake.call("GET", "/cursor")["cursor"]
        cpu0 = {name: d.plugin_cpu_seconds(name) for name in ("discord", "formatter")}
        daemon0, wall0 = d.cpu_seconds(), time.monotonic()
        for i in range(SESSIONS):
            fake.call("POST", "/messages", {"channel_id": channel_id(i), "author": {"id": USER, "username": "alice"},
                                            "mention_bot": True, "content": f"bench:stream:ch{i:02d}:{SECONDS}:{RATE}"})
        deadline = time.monotonic() + SECONDS + 90
        while len([e for e in read_jsonl(pi_log) if e.get("ev") == "done" and e.get("tag", "").startswith("ch")]) < SESSIONS:
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        stream_seconds = time.monotonic() - wall0
        cpu = {name: d.plugin_cpu_seconds(name) for name in ("discord", "formatter")}
        cpu = {name: (100 * (cpu[name] - cpu0[name]) / stream_seconds if cpu[name] is not None and cpu0[name] is not None else None)
               for name in cpu}
        cpu["daemon"] = 100 * (d.cpu_seconds() - daemon0) / stream_seconds
        quiet_until(fake, 3.0, 90)
        stats1 = fake.call("GET", "/stats")
        reqs = fake.call("GET", f"/requests?since={cursor}", timeout=120)["requests"]
        violations = fake.call("GET", "/violations?severity=error")["violations"]
        messages = {i: fake.call("GET", f"/messages?channel_id={channel_id(i)}&author=bot")["messages"]
                    for i in range(SESSIONS)}
    finally:
        d.stop()
        fake.stop()

    firsts = {e["tag"]: e["wall"] / 1e9 for e in read_jsonl(pi_log) if e.get("ev") == "first_delta"}
    done = {e["tag"]: e for e in read_jsonl(pi_log) if e.get("ev") == "done" and e.get("tag", "").startswith("ch")}
    rest = [r for r in reqs if r.get("path", "").startswith("/api/")]
    n429 = sum(1 for r in rest if r.get("status") == 429)
    visible = {}
    for r in rest:
        if r.get("method") not in ("POST", "PATCH") or r.get("status") != 200:
            continue
        parts = r["path"].split("/")
        if len(parts) < 6 or parts[3] != "channels" or parts[5] != "messages":
            continue
        body = r.get("request_body") or {}
        content = body.get("content") if isinstance(body, dict) else None
        if not content or not content.strip():
            continue
        i = int(parts[4]) - 1200000000000000001
        if 0 <= i < SESSIONS and i not in visible:
            visible[i] = r["time"]
    delays = [visible[i] - firsts[f"ch{i:02d}"] for i in range(SESSIONS) if i in visible and f"ch{i:02d}" in firsts]
    by_route = {}
    for r in rest:
        key = r["method"] + " " + ("/channels/{id}/messages/{id}" if r["path"].count("/messages/") else
                                   "/channels/{id}/messages" if r["path"].endswith("/messages") else
                                   "/channels/{id}/typing" if r["path"].endswith("/typing") else r["path"][len("/api/v10"):])
        by_route[key] = by_route.get(key, 0) + 1
    expected = sum(d["chars"] for d in done.values())
    shown = sum(len(m.get("content") or "") for ms in messages.values() for m in ms)
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump({"routes": by_route, "delays": delays, "violations": violations, "stats0": stats0, "stats1": stats1},
                  f, indent=1)

    rows = Rows("discord")
    add = rows.add

    add("sessions streaming (answers finished)", f"{SESSIONS} ({len(done)})")
    add("REST calls", len(rest))
    for k in sorted(by_route):
        add(f"  {k}", by_route[k])
    add("429s received", n429, "0", n429 == 0)
    if delays:
        add("first delta → first visible text p50 ms", 1000 * statistics.median(delays))
        add("first delta → first visible text max ms", 1000 * max(delays), f"< {TARGET_S * 1000:g} ms",
            max(delays) < TARGET_S)
    else:
        add("first delta → first visible text", "none seen", f"< {TARGET_S:g} s", False)
    add("characters streamed / shown in the channels", f"{expected} / {shown}")
    add("fake Discord violations", len(violations), "0", not violations)
    for name in ("daemon", "discord", "formatter"):
        add(f"{name} CPU while {SESSIONS} stream, % of a core", round(cpu[name], 2) if cpu[name] is not None else "restarted")
    if all(cpu[name] is not None for name in ("daemon", "discord", "formatter")):
        # The whole relay, as a user's machine runs it (issue "Performance a user feels"), and what
        # each line pi wrote cost it: CPU seconds over the phase / the deltas streamed in it.
        relay = sum(cpu[name] for name in ("daemon", "discord", "formatter"))
        lines = sum(e.get("deltas", 0) for e in done.values())
        add(f"relay CPU while {SESSIONS} stream (daemon + discord + formatter), % of a core", round(relay, 2),
            f"< {RELAY_CPU_TARGET:g} %", relay < RELAY_CPU_TARGET)
        if lines:
            add("relay CPU per streamed line µs", round(relay / 100 * stream_seconds / lines * 1e6, 1))
    return rows

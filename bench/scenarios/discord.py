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

Then Telegram, in the same daemon: the real telegram plugin polls the fake Telegram Bot API
(Tests/Fakes/fake_telegram, its flood limits on), and TG_CHATS users have each bound their
private chat to a session of its own (`/new DIR tgNN`). In ROUNDS rounds, TG_CHATS Telegram
chats and as many Discord channels (the baseline, measured in the same rounds) are prompted at
once with a short stream (ROUND_SECONDS). Per answer: the time from the user's message (the
bench's clock just before it injects it) to the first request that put text of the answer in the
chat (sendMessage or editMessageText with text, as the fake Telegram answered it; for Discord the
POST or PATCH as above), and from pi's first delta to that request. Reported: medians for both
messengers, Telegram's worst, and the ratios Telegram / Discord of the medians.

Slack the same way, in the same rounds: the real slack plugin on Socket Mode against the fake
Slack (Tests/Fakes/fake_slack, its rate-limit tiers on), SL_CHATS users each with their DM bound
to a session (`/pi new DIR slNN`); first visible text is the first chat.postMessage or
chat.update with text of the answer in the DM, as the fake Slack recorded it.
"""
import json
import os
import statistics
import subprocess
import time
import urllib.error
import urllib.request

from ._relayd import Relayd, RelaydError, Rows, not_run, percentile, read_jsonl, scenario_work

SESSIONS = 20
SECONDS = 15.0
RATE = 25.0
GUILD = "1100000000000000001"
USER = "1400000000000000001"
TOKEN = "bench.fake.token"
TARGET_S = 1.0
RELAY_CPU_TARGET = 3.0   # % of a core: daemon, messenger plugin and formatter together
# Telegram against Discord, first visible text (see the docstring).
TG_TOKEN = "7000000001:BENCHtelegramSecretQ1w2e3r4t5"
TG_CHATS = 4
TG_USERS = [(str(5100000001 + i), f"tg{i:02d}") for i in range(TG_CHATS)]
SL_BOT_TOKEN = "xoxb-5555-6666-BENCHslackBotSecretP0o9i8"
SL_APP_TOKEN = "xapp-1-A0FAKEAPP-7777-BENCHslackAppSecretL1k2"
SL_CHATS = 4
SL_USERS = [(f"UBENCHSL{i:02d}", f"sl{i:02d}") for i in range(SL_CHATS)]
ROUNDS = 3
ROUND_SECONDS = 3.0


def channel_id(i):
    return str(1200000000000000001 + i)


class Fake:
    def __init__(self, ctx, work):
        here = os.path.join(ctx.root, "Tests", "Fakes", "fake_discord")
        port_file = os.path.join(work, "fake-port.json")
        if os.path.exists(port_file):
            os.unlink(port_file)
        args = ["python3", os.path.join(here, "fake_discord.py"), "--port", "0", "--control-port-file", port_file,
                "--token", TOKEN, "--spec", os.path.join(here, "discord-openapi.json"), "--guild", GUILD,
                "--user", f"{USER}:alice", "--transcript", os.path.join(work, "transcript.txt"), "--channel"]
        args += [f"{channel_id(i)}:bench-{i:02d}" for i in range(SESSIONS)]
        self.err = open(os.path.join(work, "fake-discord.stderr"), "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err,
                                     env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the fake Discord did not start; see bench/work/discord/fake-discord.stderr")
            time.sleep(0.05)
        with open(port_file) as f:
            info = json.load(f)
        self.base = info["base"]
        self.control = f"http://127.0.0.1:{info['port']}/_control"

    def launch(self, work, args, port_file, name, title):
        """Starts a fake and reads its port file (the Telegram and Slack fakes)."""
        self.err = open(os.path.join(work, f"fake-{name}.stderr"), "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err,
                                     env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the fake {title} did not start; see bench/work/discord/fake-{name}.stderr")
            time.sleep(0.05)
        with open(port_file) as f:
            info = json.load(f)
        self.base = info["base"]
        self.control = f"http://127.0.0.1:{info['port']}/_control"

    def call(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.control + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code == 408:
                return json.loads(e.read())
            raise

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


class FakeTelegram(Fake):
    """The fake Telegram Bot API, its natural flood limits on."""

    def __init__(self, ctx, work):
        here = os.path.join(ctx.root, "Tests", "Fakes", "fake_telegram")
        port_file = os.path.join(work, "fake-telegram-port.json")
        if os.path.exists(port_file):
            os.unlink(port_file)
        args = ["python3", os.path.join(here, "fake_telegram.py"), "--port", "0", "--control-port-file", port_file,
                "--token", TG_TOKEN, "--spec", os.path.join(here, "telegram-bot-api.json"),
                "--transcript", os.path.join(work, "telegram-transcript.txt")]
        self.launch(work, args, port_file, "telegram", "Telegram")

    def say(self, user, text):
        """`user` writes to the bot in their private chat."""
        return self.call("POST", "/messages", {"from": {"id": int(user[0]), "first_name": user[1], "username": user[1]},
                                               "chat": {"id": int(user[0]), "type": "private"}, "text": text})


class FakeSlack(Fake):
    """The fake Slack: Web API tiers and Socket Mode."""

    def __init__(self, ctx, work):
        here = os.path.join(ctx.root, "Tests", "Fakes", "fake_slack")
        port_file = os.path.join(work, "fake-slack-port.json")
        if os.path.exists(port_file):
            os.unlink(port_file)
        args = ["python3", os.path.join(here, "fake_slack.py"), "--port", "0", "--control-port-file", port_file,
                "--bot-token", SL_BOT_TOKEN, "--app-token", SL_APP_TOKEN,
                "--transcript", os.path.join(work, "slack-transcript.txt")]
        self.launch(work, args, port_file, "slack", "Slack")

    def say(self, user, text):
        """`user` writes to the bot in their DM."""
        return self.call("POST", "/messages", {"user": user[0], "name": user[1], "text": text})

    @staticmethod
    def dm(user):
        return "D" + user[0][1:]


def run(ctx):
    plugin = ctx.exe("pi-relay-discord")
    if not os.access(plugin, os.X_OK):
        return not_run("discord", f"{plugin} is not built")
    work, pi_log, cwd = scenario_work(ctx, "discord")

    tg_plugin = ctx.exe("pi-relay-telegram")
    tg_error = None if os.access(tg_plugin, os.X_OK) else f"{tg_plugin} is not built"
    fake = Fake(ctx, work)
    sl_plugin = ctx.exe("pi-relay-slack")
    sl_error = None if os.access(sl_plugin, os.X_OK) else f"{sl_plugin} is not built"
    sl = None
    if sl_error is None:
        try:
            sl = FakeSlack(ctx, work)
        except RuntimeError as e:
            sl_error = str(e)
    tg = None
    if tg_error is None:
        try:
            tg = FakeTelegram(ctx, work)
        except RuntimeError as e:
            tg_error = str(e)
    d = Relayd(ctx, "discord", env={"BENCH_PI_LOG": pi_log, "DISCORD_BOT_TOKEN": TOKEN, "TELEGRAM_BOT_TOKEN": TG_TOKEN,
                                        "SLACK_BOT_TOKEN": SL_BOT_TOKEN, "SLACK_APP_TOKEN": SL_APP_TOKEN})
    d.link_plugin("discord", plugin)
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    config = {"pi": {"command": d.stub("bench-pi")},
              "discord": {"apiBase": fake.base, "allowedUsers": [USER], "guilds": [GUILD],
                          "channels": [{"id": channel_id(i), "cwd": cwd, "name": f"ch{i:02d}"} for i in range(SESSIONS)]}}
    if tg is not None:
        d.link_plugin("telegram", tg_plugin)
        config["telegram"] = {"apiBase": tg.base, "allowedUsers": [u for u, _ in TG_USERS], "pollTimeoutSeconds": 5}
    if sl is not None:
        d.link_plugin("slack", sl_plugin)
        config["slack"] = {"apiBase": sl.base, "allowedUsers": [u for u, _ in SL_USERS]}
    d.configure(config)
    firsts_tg = None
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
        if tg is not None:
            tg_error = bind_telegram_chats(d, tg, cwd)
        if sl is not None:
            sl_error = bind_slack_dms(d, sl, cwd)
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
        if tg is not None and tg_error is None:
            try:
                firsts_tg = first_visible_rounds(fake, tg, pi_log, sl if sl_error is None else None)
            except (OSError, RuntimeError, ValueError, KeyError) as e:
                tg_error = f"the Telegram rounds failed: {e}"
    finally:
        d.stop()
        fake.stop()
        if tg is not None:
            tg.stop()
        if sl is not None:
            sl.stop()

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

    series = [(f"Discord, {SESSIONS} channels streaming", [1000 * d for d in delays])]
    for name in ("discord", "telegram", "slack"):
        if firsts_tg and firsts_tg.get(name):
            series.append((f"{name.capitalize()}, {ROUNDS} rounds of 4 chats", [1000 * d for d in firsts_tg[name]["delta"]]))
    ctx.chart("first-visible-text", "pi's first text delta → first visible text, per messenger", "ms", series, 1000 * TARGET_S)
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
    if tg_error is not None or firsts_tg is None:
        add("telegram first visible text", "not run: " + " ".join(str(tg_error).split())[:100], "runs", False)
        return rows
    tgm, dcm = firsts_tg["telegram"], firsts_tg["discord"]
    with open(os.path.join(work, "first-visible.json"), "w") as f:
        json.dump(firsts_tg, f, indent=1)
    add(f"telegram answers measured ({TG_CHATS} private chats × {ROUNDS} rounds)", f"{len(tgm['message'])} / {TG_CHATS * ROUNDS}",
        f"{TG_CHATS * ROUNDS}", len(tgm["message"]) == TG_CHATS * ROUNDS)
    if not tgm["message"] or not dcm["message"]:
        add("telegram first visible text", "none seen", "seen", False)
        return rows
    add("telegram message → first visible text p50 ms", 1000 * statistics.median(tgm["message"]))
    add("telegram message → first visible text max ms", 1000 * max(tgm["message"]))
    add("telegram first delta → first visible text p50 ms", 1000 * statistics.median(tgm["delta"]))
    add("telegram first delta → first visible text max ms", 1000 * max(tgm["delta"]), f"< {TARGET_S * 1000:g} ms",
        max(tgm["delta"]) < TARGET_S)
    add("  baseline: discord, same rounds, message → first visible text p50 ms", 1000 * statistics.median(dcm["message"]))
    add("  baseline: discord, same rounds, first delta → first visible text p50 ms", 1000 * statistics.median(dcm["delta"]))
    add("telegram / discord, message → first visible text (p50s)",
        statistics.median(tgm["message"]) / max(statistics.median(dcm["message"]), 1e-6))
    add("telegram / discord, first delta → first visible text (p50s)",
        statistics.median(tgm["delta"]) / max(statistics.median(dcm["delta"]), 1e-6))
    add("fake Telegram violations", len(firsts_tg["violations"]), "0", not firsts_tg["violations"])
    slm = firsts_tg.get("slack")
    if sl_error is not None or slm is None:
        add("slack first visible text", "not run: " + " ".join(str(sl_error).split())[:100], "runs", False)
        return rows
    add(f"slack answers measured ({SL_CHATS} DMs × {ROUNDS} rounds)", f"{len(slm['message'])} / {SL_CHATS * ROUNDS}",
        f"{SL_CHATS * ROUNDS}", len(slm["message"]) == SL_CHATS * ROUNDS)
    if not slm["message"]:
        add("slack first visible text", "none seen", "seen", False)
        return rows
    add("slack message → first visible text p50 ms", 1000 * statistics.median(slm["message"]))
    add("slack message → first visible text max ms", 1000 * max(slm["message"]))
    add("slack first delta → first visible text p50 ms", 1000 * statistics.median(slm["delta"]))
    add("slack first delta → first visible text max ms", 1000 * max(slm["delta"]), f"< {TARGET_S * 1000:g} ms",
        max(slm["delta"]) < TARGET_S)
    add("slack / discord, message → first visible text (p50s)",
        statistics.median(slm["message"]) / max(statistics.median(dcm["message"]), 1e-6))
    add("fake Slack violations", len(firsts_tg["slack_violations"]), "0", not firsts_tg["slack_violations"])
    return rows


def bind_telegram_chats(d, tg, cwd):
    """Each Telegram user binds their private chat to a new session (`/new DIR tgNN`). Returns
    why not, or None."""
    try:
        d.wait_plugin("telegram", timeout=60)
    except RelaydError as e:
        return f"the telegram plugin did not come up: {e}"
    if not tg.call("GET", "/wait?for=poll&timeout=30").get("ok"):
        return "the telegram plugin did not poll the fake Telegram within 30 s"
    for user in TG_USERS:
        tg.say(user, f"/new {cwd} {user[1]}")
    for user in TG_USERS:
        if not tg.call("GET", f"/wait?for=message&from=bot&chat_id={user[0]}&contains=Started%20{user[1]}&timeout=60").get("ok"):
            return f"/new in {user[1]}'s private chat did not start a session within 60 s"
    return None


def bind_slack_dms(d, sl, cwd):
    """Each Slack user binds their DM to a new session (`/pi new DIR slNN`). Returns why not, or None."""
    try:
        d.wait_plugin("slack", timeout=60)
    except RelaydError as e:
        return f"the slack plugin did not come up: {e}"
    if not sl.call("GET", "/wait?for=hello&timeout=30").get("ok"):
        return "the slack plugin did not connect to Socket Mode within 30 s"
    for user in SL_USERS:
        sl.call("POST", "/command", {"user": user[0], "name": user[1], "text": f"new {cwd} {user[1]}"})
    for user in SL_USERS:
        if not sl.call("GET", f"/wait?for=message&from=bot&channel={FakeSlack.dm(user)}&contains=Started%20{user[1]}&timeout=60").get("ok"):
            return f"/pi new in {user[1]}'s DM did not start a session within 60 s"
    return None


def first_visible_rounds(fake, tg, pi_log, sl=None):
    """ROUNDS rounds of TG_CHATS Telegram private chats and as many Discord channels prompted at
    once (which messenger goes first alternates). Per messenger: seconds from each user's message
    and from pi's first delta to the first request that put text of the answer in the chat."""
    tg_cursor = tg.call("GET", "/cursor")["cursor"]
    dc_cursor = fake.call("GET", "/cursor")["cursor"]
    sl_cursor = sl.call("GET", "/cursor")["cursor"] if sl is not None else 0
    sent = {}  # tag -> (messenger, chat, wall time of the message)
    for r in range(ROUNDS):
        order = ("tg", "dc") if r % 2 == 0 else ("dc", "tg")
        if sl is not None:
            order = order + ("sl",) if r % 2 == 0 else ("sl",) + order
        for i in range(TG_CHATS):
            for kind in order:
                tag = f"{kind}{i:02d}r{r}"
                text = f"bench:stream:{tag}:{ROUND_SECONDS}:{RATE}"
                if kind == "tg":
                    sent[tag] = ("telegram", TG_USERS[i][0], time.time())
                    tg.say(TG_USERS[i], text)
                elif kind == "sl":
                    sent[tag] = ("slack", FakeSlack.dm(SL_USERS[i]), time.time())
                    sl.say(SL_USERS[i], text)
                else:
                    sent[tag] = ("discord", channel_id(i), time.time())
                    fake.call("POST", "/messages", {"channel_id": channel_id(i), "author": {"id": USER, "username": "alice"},
                                                    "mention_bot": True, "content": text})
        want = {f"{k}{i:02d}r{r}" for k in order for i in range(TG_CHATS)}
        deadline = time.monotonic() + ROUND_SECONDS + 60
        while not want <= {e.get("tag") for e in read_jsonl(pi_log) if e.get("ev") == "done"}:
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
        # The finals and their edits out, and Telegram's per-chat write budget back.
        quiet_until(fake, 1.5, 30)
        time.sleep(2.0)
    firsts = {e["tag"]: e["wall"] / 1e9 for e in read_jsonl(pi_log) if e.get("ev") == "first_delta"}
    shown = {}  # (messenger, chat) -> [time text of an answer was visible]
    for r in tg.call("GET", f"/requests?since={tg_cursor}", timeout=120)["requests"]:
        params = r.get("params") or {}
        if r.get("method") not in ("sendMessage", "editMessageText") or r.get("status") != 200:
            continue
        if not str(params.get("text") or "").strip():
            continue
        shown.setdefault(("telegram", str(params.get("chat_id"))), []).append(r["time"] + (r.get("duration_s") or 0))
    for r in fake.call("GET", f"/requests?since={dc_cursor}", timeout=120)["requests"]:
        if r.get("method") not in ("POST", "PATCH") or r.get("status") != 200:
            continue
        parts = r.get("path", "").split("/")
        if len(parts) < 6 or parts[3] != "channels" or parts[5] != "messages":
            continue
        body = r.get("request_body") or {}
        if not (isinstance(body, dict) and (body.get("content") or "").strip()):
            continue
        shown.setdefault(("discord", parts[4]), []).append(r["time"])
    if sl is not None:
        # The fake's log: each post and update with its time; the bot's posts carry by_bot.
        for e in sl.call("GET", "/log", timeout=120)["log"]:
            if e.get("seq", 0) <= sl_cursor or not (e.get("text") or "").strip():
                continue
            if (e.get("kind") == "message" and e.get("by_bot")) or e.get("kind") == "edit":
                shown.setdefault(("slack", e["channel"]), []).append(e["at"])
    out = {m: {"message": [], "delta": []} for m in ("telegram", "discord", "slack")}
    for tag, (messenger, chat, at) in sent.items():
        seen = sorted(t for t in shown.get((messenger, chat), []) if t >= at)
        if not seen or tag not in firsts:
            continue
        out[messenger]["message"].append(seen[0] - at)
        out[messenger]["delta"].append(seen[0] - firsts[tag])
    out["violations"] = tg.call("GET", "/violations?severity=error")["violations"]
    out["slack_violations"] = sl.call("GET", "/violations?severity=error")["violations"] if sl is not None else []
    if sl is None:
        del out["slack"]
    return out


def quiet_until(fake, quiet, timeout):
    """Waits until the fake has seen no REST request for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last = fake.call("GET", "/cursor")["cursor"]
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        reqs = fake.call("GET", f"/requests?since={last}")["requests"]
        cur = fake.call("GET", "/cursor")["cursor"]
        if reqs:
            since = time.monotonic()
        last = cur
        if time.monotonic() - since >= quiet:
            return

"""11. What a user feels on each messenger, side by side: one table per messenger, each from its
own daemon (the real messenger plugin, the real formatter, the bench pi) against the messenger's
fake service from Tests/Fakes, which enforces the platform's documented limits. Every figure is
taken with CHATS chats of that messenger streaming at once.

rounds:    ROUNDS rounds; in each, every chat's user writes `bench:stream:TAG:…` at once and the
           chat's session answers with a short stream (ROUND_SECONDS at RATE deltas a second,
           ending in the words "TAG-end."). Per answer:
           - chat message delivered → pi stdin: the fake service writing the message's event to
             the plugin (Discord's MESSAGE_CREATE frame, Slack's Socket Mode envelope, the
             getUpdates answer that carries Telegram's update, each as the fake logged it) to
             the bench pi reading the prompt (its `prompt` log, the time os.read returned). The
             bench's own call to the fake, the clock just before it, is shown apart. On the web
             there is no service between: the page's clock just before the Send click;
           - first text: pi's first delta to the first write that put text in the chat after
             the message;
           - final: pi's end of the run (`done`) to the first write whose text holds "TAG-end.".
           The next round starts once every answer of this one is shown (at most a minute).
questions: each chat also watches a second session (`/new DIR aNN`, typed in the chat, makes it
           the active one). The chat's first session streams (`/to sNN bench:stream:…`) while
           the second asks QUESTIONS `select` questions GAP seconds apart. Per question: the
           bench pi writing the extension_ui_request to the first write whose text names it.
kills:     while every chat's first session streams, the messenger plugin is killed (SIGKILL)
           KILLS times. Per kill: the kill to the first write the fake recorded after it (the
           new instance's first delivery). `healthyResetSeconds: 0.1` and `crashLoopCount:
           1000`, as in `recovery`, keep every kill a first crash (restarted at once), as it is
           by default after 10 s of running.
reconnect: Slack only. The app's Socket Mode connection needs a fresh `apps.connections.open`
           (Tier 1: about one a minute, small bursts; slack-api.md §8) for every connection.
           RECONNECTS times, at least RECONNECT_GAP s after the last connection opened (so Tier 1
           itself asks for no wait), the plugin is killed; the figure is the kill to the new
           connection's `hello` as the fake Slack sent it.

Writes are read from the fakes' own records, each with the time the fake saw it: Discord's REST
POST/PATCH of channel messages, Telegram's sendMessage/editMessageText (when the fake answered),
Slack's chat.postMessage/chat.update. A write's text is every string in it (content, embeds,
blocks, buttons). Every table also counts the 429s the plugin received and the fake's
violations (target 0).

The web dashboard has no fake: its "chats" are pages of the real dashboard in headless Chromium
(as in `web`), one window per session, since a page shows one session. A message is typed into
the page's box and sent with its Send button (the page's clock just before the click); a write
is text reaching the page's feed or live view (a MutationObserver, the page's wall clock). Its
question figure is a question on one session's page while the chat's other session streams
into its own page. Its kills are of the web plugin, and the next delivery is the first text a
page shows after the kill (the page reconnects its WebSocket by itself).

BENCH_MESSENGERS=telegram,slack (a comma list) runs some messengers only.
"""
import json
import os
import signal
import statistics
import time

from ._fakes import GUILD, SL_APP_TOKEN, SL_BOT_TOKEN, TG_TOKEN, TOKEN, USER, Fake, FakeSlack, FakeTelegram
from ._relayd import Relayd, RelaydError, Rows, free_port, not_run, percentile, read_jsonl, scenario_work
from .web import CHROMIUM, DRIVER, Browser, pair

CHATS = 4
ROUNDS = 13          # 52 answers per messenger
ROUND_SECONDS = 1.5
RATE = 25.0
QUESTIONS = 6        # per chat
GAP = 2.5
TIMEOUT_MS = 1500
KILLS = 50
KILL_PAUSE = 0.3     # after a kill's delivery (> healthyResetSeconds)
RECONNECTS = 5
RECONNECT_GAP = 31.0
STDIN_TARGET_S = 0.005
FIRST_TARGET_S = 1.0
FINAL_TARGET_S = 1.0
QUESTION_TARGET_S = 1.5
KILL_TARGET_S = 1.0
RECONNECT_TARGET_S = 1.0


def strings(value):
    """Every string inside a JSON value, joined: a write's text wherever the platform keeps it."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(strings(v) for v in value)
    return ""


class Chats:
    """What the phases need from a messenger; the defaults are a chat's own typed commands."""
    chats = []

    def open(self, d, cwd, prefix):
        """A session PREFIXNN in every chat, made its active one; returns why not, or None."""
        return open_sessions(self, cwd, prefix)

    def to(self, i, session, text):
        """Prompts `session`, which chat i watches, without switching; returns the time sent or None."""
        return self.say(i, f"/to {session} {text}")

    def chat(self, prefix, i):
        """Where session PREFIXNN's posts appear."""
        return self.chats[i]

    # Where the comparison hop starts: before the platform took the message.
    sent_from = "bench's call to the fake"

    def delivered(self, cursor):
        """(time, what was sent) of each message handed to the plugin since `cursor`: by the
        fake service, or on the web by the browser's own start of the request."""
        return None

    def stop(self):
        self.fake.stop()


class DiscordChats(Chats):
    """CHATS guild channels, each bound by `discord.channels` to a session named sNN."""
    name = "discord"
    exe = "pi-relay-discord"

    def __init__(self, ctx, work):
        self.chats = [str(1200000000000000101 + i) for i in range(CHATS)]
        self.fake = Fake(ctx, work, [(c, f"chat-{i}") for i, c in enumerate(self.chats)])
        self.env = {"DISCORD_BOT_TOKEN": TOKEN}

    def config(self, cwd):
        return {"discord": {"apiBase": self.fake.base, "allowedUsers": [USER], "guilds": [GUILD],
                            "channels": [{"id": c, "cwd": cwd, "name": f"s{i:02d}"} for i, c in enumerate(self.chats)]}}

    def connect(self, d, cwd):
        if not self.fake.call("GET", "/wait?for=connected&timeout=30").get("ok"):
            return "the Discord plugin did not connect to the gateway within 30 s"
        deadline = time.monotonic() + 60
        while len(d.call("sessions")) < CHATS:
            if time.monotonic() > deadline:
                return "the channels' sessions were not all created within 60 s"
            time.sleep(0.2)
        return None

    def say(self, i, text):
        self.fake.call("POST", "/messages", {"channel_id": self.chats[i], "author": {"id": USER, "username": "alice"},
                                             "mention_bot": True, "content": text})

    def cursor(self):
        return self.fake.call("GET", "/cursor")["cursor"]

    def requests(self, cursor):
        return [r for r in self.fake.call("GET", f"/requests?since={cursor}", timeout=120)["requests"]
                if r.get("path", "").startswith("/api/")]

    def writes(self, cursor):
        out = []
        for r in self.requests(cursor):
            parts = r.get("path", "").split("/")
            if r.get("method") not in ("POST", "PATCH") or r.get("status") != 200:
                continue
            if len(parts) < 6 or parts[3] != "channels" or parts[5] != "messages":
                continue
            text = strings(r.get("request_body") or {})
            if text.strip():
                out.append((parts[4], r["time"], text))
        return out

    def limited(self, cursor):
        return sum(1 for r in self.requests(cursor) if r.get("status") == 429)

    def delivered(self, cursor):
        """(time, frame) of each MESSAGE_CREATE the fake wrote to the gateway since `cursor`."""
        return [(e["time"], e.get("text") or "") for e in
                self.fake.call("GET", f"/frames?since={cursor}&dir=out&t=MESSAGE_CREATE", timeout=120)["frames"]]

    def violations(self):
        return self.fake.call("GET", "/violations?severity=error")["violations"]


class TelegramChats(Chats):
    """CHATS users' private chats with the bot, each bound with `/new DIR sNN`."""
    name = "telegram"
    exe = "pi-relay-telegram"

    def __init__(self, ctx, work):
        self.users = [(str(5300000001 + i), f"tgu{i}") for i in range(CHATS)]
        self.chats = [u for u, _ in self.users]
        self.fake = FakeTelegram(ctx, work)
        self.env = {"TELEGRAM_BOT_TOKEN": TG_TOKEN}

    def config(self, cwd):
        return {"telegram": {"apiBase": self.fake.base, "allowedUsers": self.chats, "pollTimeoutSeconds": 5}}

    def connect(self, d, cwd):
        if not self.fake.call("GET", "/wait?for=poll&timeout=30").get("ok"):
            return "the telegram plugin did not poll the fake Telegram within 30 s"
        return self.open(d, cwd, "s")

    def say(self, i, text):
        self.fake.say(self.users[i], text)

    def cursor(self):
        return self.fake.call("GET", "/cursor")["cursor"]

    def requests(self, cursor):
        return self.fake.call("GET", f"/requests?since={cursor}", timeout=120)["requests"]

    def writes(self, cursor):
        out = []
        for r in self.requests(cursor):
            params = r.get("params") or {}
            if r.get("method") not in ("sendMessage", "editMessageText") or r.get("status") != 200:
                continue
            text = strings(params.get("text") or "") + "\n" + strings(params.get("reply_markup") or {})
            if text.strip():
                out.append((str(params.get("chat_id")), r["time"] + (r.get("duration_s") or 0), text))
        return out

    def limited(self, cursor):
        return sum(1 for r in self.requests(cursor) if r.get("status") == 429)

    def delivered(self, cursor):
        """(time, update) of each update the fake first answered a getUpdates with, since `cursor`."""
        return [(u["first_delivered_at"], json.dumps(u.get("payload"))) for u in
                self.fake.call("GET", "/updates?payload=1", timeout=120)["updates"]
                if u.get("first_delivered_at") and u.get("cursor", 0) > cursor]

    def violations(self):
        return self.fake.call("GET", "/violations?severity=error")["violations"]


class SlackChats(Chats):
    """CHATS users' DMs with the app, each bound with `/pi new DIR sNN`, on Socket Mode."""
    name = "slack"
    exe = "pi-relay-slack"

    def __init__(self, ctx, work):
        self.users = [(f"UBENCHMS{i:02d}", f"slu{i}") for i in range(CHATS)]
        self.chats = [FakeSlack.dm(u) for u in self.users]
        self.fake = FakeSlack(ctx, work)
        self.env = {"SLACK_BOT_TOKEN": SL_BOT_TOKEN, "SLACK_APP_TOKEN": SL_APP_TOKEN}

    def config(self, cwd):
        return {"slack": {"apiBase": self.fake.base, "allowedUsers": [u for u, _ in self.users]}}

    def connect(self, d, cwd):
        if not self.fake.call("GET", "/wait?for=hello&timeout=30").get("ok"):
            return "the slack plugin did not connect to Socket Mode within 30 s"
        return self.open(d, cwd, "s")

    def say(self, i, text):
        if text.startswith("/new "):
            # Slack sends a slash command to the app only when it is the app's own (`/pi`).
            self.fake.call("POST", "/command", {"user": self.users[i][0], "name": self.users[i][1], "text": text[1:]})
        else:
            self.fake.say(self.users[i], text)

    def cursor(self):
        return self.fake.call("GET", "/cursor")["cursor"]

    def log(self, cursor, kind=""):
        return [e for e in self.fake.call("GET", f"/log?kind={kind}", timeout=120)["log"] if e.get("seq", 0) > cursor]

    def writes(self, cursor):
        return [(e["channel"], e["at"], e.get("text") or "") for e in self.log(cursor)
                if ((e.get("kind") == "message" and e.get("by_bot")) or e.get("kind") == "edit") and (e.get("text") or "").strip()]

    def limited(self, cursor):
        return len(self.log(cursor, "ratelimited"))

    def delivered(self, cursor):
        """(time, envelope payload) of each envelope the fake sent over Socket Mode (all of them:
        the payload's text tells them apart)."""
        return [(e["sent_at"], json.dumps(e.get("payload"))) for e in
                self.fake.call("GET", "/envelopes?payload=1", timeout=120)["envelopes"] if e.get("sent_at")]

    def violations(self):
        return self.fake.call("GET", "/violations?severity=error")["violations"]

    def hellos(self, cursor):
        return [e["at"] for e in self.log(cursor, "hello")]


# Installed in every page: when text reached the feed (posts, questions) or the live view,
# by the page's wall clock. Other parts of the page (the header's state) are not the answer.
OBSERVE = """
window.benchSeen = [];
performance.setResourceTimingBufferSize(100000);
const note = (node) => {
  const element = node.nodeType === 1 ? node : node.parentElement;
  if (!element || !element.closest || !element.closest('#feed, #live')) return;
  window.benchSeen.push([performance.timeOrigin + performance.now(), element.textContent || '']);
};
new MutationObserver((records) => {
  for (const r of records) {
    if (r.type === 'characterData') note(r.target); else for (const n of r.addedNodes) note(n);
  }
}).observe(document.body, { childList: true, subtree: true, characterData: true });
"""

# Every prompt POST of this page: (start, requestStart), by the page's wall clock.
POSTS = """
return performance.getEntriesByType('resource')
  .filter((e) => e.initiatorType === 'fetch' && /\\/prompt$/.test(e.name))
  .map((e) => [performance.timeOrigin + e.startTime, performance.timeOrigin + (e.requestStart || e.startTime)]);
"""

SEND = """
const box = document.getElementById('prompt');
box.value = arguments[0];
const at = performance.timeOrigin + performance.now();
document.getElementById('send').click();
return at;
"""


class WebChats(Chats):
    """The web dashboard in headless Chromium: every session's page open in a window of its own
    (a page shows one session, so "the chat" of session NN is its page)."""
    name = "web"
    exe = "pi-relay-web"

    def __init__(self, ctx, work):
        for path in (CHROMIUM, DRIVER):
            if not os.access(path, os.X_OK):
                raise RuntimeError(f"{path} is missing: make deps installs chromium and chromium-driver")
        self.ctx = ctx
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {}
        self.browser = None
        self.windows = {}  # session name -> window handle
        self.current = None
        self.sends = []  # (window, Send click time, text)

    def config(self, cwd):
        return {"web": {"listen": f"127.0.0.1:{self.port}"}}

    def connect(self, d, cwd):
        self.browser = Browser(d.scratch)
        self.browser.open(pair(self.ctx, d))
        self.browser.run("document.getElementById('signin-button').click()")
        self.browser.wait("return location.pathname === '/' && document.querySelector('#main') !== null")
        self.current = self.browser.cmd("GET", "/window")
        return self.open(d, cwd, "s")

    def open(self, d, cwd, prefix):
        for i in range(CHATS):
            name = f"{prefix}{i:02d}"
            sid = d.call("new", {"cwd": cwd, "name": name})["id"]
            if self.windows:
                self.current = self.browser.cmd("POST", "/window/new", {"type": "window"})["handle"]
                self.browser.cmd("POST", "/window", {"handle": self.current})
            self.windows[name] = self.current
            self.browser.open(f"{self.base}/s/{sid}")
            self.browser.wait("return document.querySelector('#prompt') !== null")
            self.browser.run(OBSERVE)
        self.chats = [f"s{i:02d}" for i in range(CHATS)]
        return None

    def focus(self, name):
        if self.current != self.windows[name]:
            self.current = self.windows[name]
            self.browser.cmd("POST", "/window", {"handle": self.current})

    def say(self, i, text):
        return self.to(i, f"s{i:02d}", text)

    sent_from = "Send click"

    def to(self, i, session, text):
        self.focus(session)
        at = self.browser.run(SEND, text) / 1000
        self.sends.append((session, at, text))
        return at

    def delivered(self, cursor):
        """The browser's start of each prompt's POST (Resource Timing's `requestStart`), the
        first one in that window after the Send click: what the page's own JavaScript and the
        renderer took before the request left is the browser's part, as a service's is."""
        out = []
        for name in list(self.windows):
            self.focus(name)
            posts = sorted(self.browser.run(POSTS))
            used = set()
            for session, at, text in sorted(s for s in self.sends if s[0] == name and s[1] >= cursor):
                for k, (start, request) in enumerate(posts):
                    if k not in used and start / 1000 >= at - 0.001:
                        used.add(k)
                        out.append((request / 1000, text))
                        break
        return out

    def chat(self, prefix, i):
        return f"{prefix}{i:02d}"

    def cursor(self):
        return time.time()

    def writes(self, cursor):
        out = []
        for name in list(self.windows):
            self.focus(name)
            seen = self.browser.run("return (window.benchSeen || []).filter((e) => e[0] >= arguments[0])", cursor * 1000)
            out += [(name, t / 1000, text) for t, text in seen]
        return out

    def limited(self, cursor):
        return None

    def violations(self):
        return None

    def stop(self):
        if self.browser:
            self.browser.quit()


MESSENGERS = [DiscordChats, TelegramChats, SlackChats, WebChats]


def open_sessions(side, cwd, prefix):
    """Every chat's user types `/new DIR PREFIXNN`; waits for each chat's "Started PREFIXNN"."""
    cursor = side.cursor()
    for i in range(CHATS):
        side.say(i, f"/new {cwd} {prefix}{i:02d}")
    for i in range(CHATS):
        if wait_write(side, cursor, lambda chat, text, i=i: chat == side.chats[i] and f"Started {prefix}{i:02d}" in text,
                      60) is None:
            return f"/new {prefix}{i:02d} did not start a session within 60 s"
    return None


def wait_write(side, cursor, match, timeout, after=0.0):
    """The time of the first write since `cursor`, at or after `after`, that `match(chat, text)`
    accepts; None when none came within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        hits = [t for chat, t, text in side.writes(cursor) if t >= after and match(chat, text)]
        if hits:
            return min(hits)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.02)


def wait_all(side, cursor, needles, timeout):
    """Waits until a write since `cursor` has shown each of `needles`, or `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        texts = [text for _, _, text in side.writes(cursor)]
        if all(any(n in text for text in texts) for n in needles):
            return True
        time.sleep(0.1)
    return False


def wait_quiet(side, quiet, timeout):
    """Waits until the plugin has made no write for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    cursor = side.cursor()
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        new = side.cursor()
        if side.writes(cursor):
            since = time.monotonic()
        cursor = new
        if time.monotonic() - since >= quiet:
            return


def wait_done(pi_log, tags, timeout):
    deadline = time.monotonic() + timeout
    while not tags <= {e.get("tag") for e in read_jsonl(pi_log) if e.get("ev") == "done"}:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def first_at(writes, chat, after, needle=None, unlike=None):
    """The first write to `chat` (any, if None) at or after `after` holding `needle` (any, if None) and not
    `unlike` (a write echoing the user's message is not the answer)."""
    hits = [t for c, t, text in writes if chat in (None, c) and t >= after and (needle is None or needle in text)
            and (unlike is None or unlike not in text)]
    return min(hits) if hits else None


def rounds(side, pi_log):
    """The rounds phase; returns {figure: [seconds]} and how many answers there were."""
    cursor = side.cursor()
    sent = {}
    for r in range(ROUNDS):
        for i in range(CHATS):
            tag = f"r{r:02d}c{i}"
            at = time.time()
            at = side.say(i, f"bench:stream:{tag}:{ROUND_SECONDS}:{RATE}") or at
            sent[tag] = (side.chat("s", i), at)
        wait_done(pi_log, {f"r{r:02d}c{i}" for i in range(CHATS)}, ROUND_SECONDS + 60)
        # The next round starts once this one's answers are all shown (or a minute has passed):
        # a platform whose budget cannot carry answers this often (Slack's chat.update, about 50 a
        # minute for the whole workspace) would otherwise pile one round's finals onto the next.
        wait_all(side, cursor, [f"r{r:02d}c{i}-end." for i in range(CHATS)], 60)
        wait_quiet(side, 1.0, 30)
    writes = side.writes(cursor)
    delivered = side.delivered(cursor)
    log = read_jsonl(pi_log)
    prompts = {e["tag"]: e["wall"] / 1e9 for e in log if e.get("ev") == "prompt"}
    firsts = {e["tag"]: e["wall"] / 1e9 for e in log if e.get("ev") == "first_delta"}
    dones = {e["tag"]: e["wall"] / 1e9 for e in log if e.get("ev") == "done"}
    out = {"stdin": [], "handed": [], "first": [], "final": []}
    for tag, (chat, at) in sent.items():
        if tag in prompts and delivered is None:
            out["stdin"].append(prompts[tag] - at)
        elif tag in prompts:
            out["handed"].append(prompts[tag] - at)
            times = [t for t, text in delivered if f"bench:stream:{tag}:" in text]
            if times:
                out["stdin"].append(prompts[tag] - min(times))
        seen = first_at(writes, chat, at, unlike="bench:")
        if seen is not None and tag in firsts:
            out["first"].append(seen - firsts[tag])
        final = first_at(writes, chat, at, f"{tag}-end.")
        if final is not None and tag in dones:
            out["final"].append(final - dones[tag])
    return out, len(sent)


def questions(side, pi_log, cwd):
    """The questions phase: seconds from each question asked to its first visible write."""
    why = side.open(side.d, cwd, "a")
    if why:
        raise RuntimeError(why)
    wait_quiet(side, 1.0, 30)
    cursor = side.cursor()
    stream = QUESTIONS * GAP + TIMEOUT_MS / 1000 + 3
    for i in range(CHATS):
        side.to(i, f"s{i:02d}", f"bench:stream:q{i:02d}:{stream}:{RATE}")
    time.sleep(1.5)  # the streams' live views are busy before the first question
    for i in range(CHATS):
        side.to(i, f"a{i:02d}", f"bench:ask:a{i:02d}:{QUESTIONS}:{GAP}:{TIMEOUT_MS}")
    wait_done(pi_log, {f"{k}{i:02d}" for k in ("q", "a") for i in range(CHATS)}, stream + 60)
    titles = [f"{e['tag']} question {e['k']}" for e in read_jsonl(pi_log) if e.get("ev") == "asked"]
    wait_all(side, cursor, [f"q{i:02d}-end." for i in range(CHATS)] + titles, 90)
    wait_quiet(side, 1.0, 30)
    writes = side.writes(cursor)
    delays = []
    for e in read_jsonl(pi_log):
        if e.get("ev") != "asked":
            continue
        # Any chat: Discord gives a session made with /new a thread of its own, where its
        # questions go. The title names one question.
        seen = first_at(writes, None, e["wall"] / 1e9 - 1, f"{e['tag']} question {e['k']}")
        if seen is not None:
            delays.append(seen - e["wall"] / 1e9)
    return delays


def kills(side, d, pi_log):
    """The kills phase: seconds from each SIGKILL of the plugin to its next write."""
    stream = KILLS * 2.0 + 20
    for i in range(CHATS):
        side.to(i, f"s{i:02d}", f"bench:stream:k{i:02d}:{stream}:{RATE}")
    time.sleep(2.0)
    delays = []
    for n in range(KILLS):
        p = d.wait_plugin(side.name, timeout=30)
        time.sleep(KILL_PAUSE)
        cursor = side.cursor()
        at = time.time()
        os.kill(p["pid"], signal.SIGKILL)
        side.last_kill = at
        seen = wait_write(side, cursor, lambda chat, text: True, 10, after=at)
        if seen is not None:
            delays.append(seen - at)
    return delays


def reconnects(side, d):
    """Slack's reconnect phase: seconds from each kill to the new connection's hello."""
    delays = []
    cursor = side.cursor()
    # The connection back from the kills phase first: its last restarts may still wait for Tier 1.
    deadline = time.monotonic() + 120
    while max(side.hellos(0), default=0) < getattr(side, "last_kill", 0) and time.monotonic() < deadline:
        time.sleep(0.2)
    for n in range(RECONNECTS):
        last = max(side.hellos(0), default=time.time())
        rest = last + RECONNECT_GAP - time.time()
        if rest > 0:
            time.sleep(rest)
        p = d.wait_plugin(side.name, timeout=30)
        at = time.time()
        os.kill(p["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 90
        seen = None
        while seen is None and time.monotonic() < deadline:
            seen = min((t for t in side.hellos(cursor) if t >= at), default=None)
            time.sleep(0.02)
        if seen is not None:
            delays.append(seen - at)
    return delays


def measure(ctx, cls):
    """One messenger's table."""
    scenario = f"chats: {cls.name}"
    plugin = ctx.exe(cls.exe)
    if not os.access(plugin, os.X_OK):
        return not_run(scenario, f"{plugin} is not built")
    work, pi_log, cwd = scenario_work(ctx, f"messengers-{cls.name}")
    try:
        side = cls(ctx, work)
    except RuntimeError as e:
        return not_run(scenario, str(e))
    d = Relayd(ctx, f"messengers-{cls.name}", env=dict(side.env, BENCH_PI_LOG=pi_log))
    d.link_plugin(cls.name, plugin)
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    d.configure(dict(side.config(cwd), pi={"command": d.stub("bench-pi")},
                     plugins={"restart": {"healthyResetSeconds": 0.1, "crashLoopCount": 1000}}))
    figures = {}
    try:
        try:
            d.start()
            d.wait_plugin("formatter")
            d.wait_plugin(cls.name, timeout=60)
        except RelaydError as e:
            return not_run(scenario, f"the {cls.name} plugin did not come up: {e}")
        side.d = d
        why = side.connect(d, cwd)
        if why:
            return not_run(scenario, why)
        wait_quiet(side, 1.5, 60)
        cursor = side.cursor()
        figures["rounds"], figures["answers"] = rounds(side, pi_log)
        figures["questions"] = questions(side, pi_log, cwd)
        figures["kills"] = kills(side, d, pi_log)
        if cls is SlackChats:
            figures["reconnects"] = reconnects(side, d)
        with open(os.path.join(work, "writes.json"), "w") as f:
            json.dump(side.writes(cursor), f)
        figures["limited"] = side.limited(cursor)
        figures["violations"] = side.violations()
    except (OSError, RuntimeError, RelaydError, ValueError, KeyError) as e:
        return not_run(scenario, f"{' / '.join(figures) or 'setup'} done, then: {e}")
    finally:
        d.stop()
        side.stop()
    with open(os.path.join(work, "figures.json"), "w") as f:
        json.dump(figures, f, indent=1)
    return figures


def spread(add, label, xs, target_s=None, want=0):
    """p50, p99 and max of `xs` (seconds) in ms, the target beside p99 (none for a figure shown
    only for comparison)."""
    if len(xs) < want:
        add(f"{label}: samples", f"{len(xs)} / {want}", f"≥ {want}", False, functional=True)
    if not xs:
        return
    p99 = percentile(xs, 99)
    add(f"{label} p50 ms", 1000 * statistics.median(xs))
    if target_s is None:
        add(f"{label} p99 ms", 1000 * p99)
    else:
        add(f"{label} p99 ms", 1000 * p99, f"< {target_s * 1000:g} ms", p99 < target_s)
    add(f"{label} max ms", 1000 * max(xs))


def run(ctx):
    wanted = [n for n in os.environ.get("BENCH_MESSENGERS", "").split(",") if n]
    out = []
    series = {"first": [], "kills": []}
    for cls in MESSENGERS:
        if wanted and cls.name not in wanted:
            continue
        figures = measure(ctx, cls)
        if isinstance(figures, list):
            out += figures
            continue
        rows = Rows(f"chats: {cls.name}", digits=2)
        add = rows.add
        r = figures["rounds"]
        n = figures["answers"]
        add(f"answers ({CHATS} chats × {ROUNDS} rounds), first text / final seen", f"{n}: {len(r['first'])} / {len(r['final'])}",
            f"{n} / {n}", len(r["first"]) == n and len(r["final"]) == n, functional=True)
        # The relay's hop starts when the message is handed to the plugin: by the service, or by
        # the browser's request. What the fake's own HTTP server took to accept the bench's call,
        # or the page from the Send click to its request, is shown apart.
        spread(add, "chat message delivered → pi stdin", r["stdin"], STDIN_TARGET_S, 50)
        spread(add, f"{cls.sent_from} → pi stdin", r["handed"])
        spread(add, "pi's first text → visible", r["first"], FIRST_TARGET_S, 50)
        spread(add, "final answer → visible", r["final"], FINAL_TARGET_S, 50)
        asked = CHATS * QUESTIONS
        add(f"questions seen ({CHATS} chats, each also streaming)", f"{len(figures['questions'])} / {asked}", f"{asked}",
            len(figures["questions"]) == asked, functional=True)
        spread(add, "question → visible", figures["questions"], QUESTION_TARGET_S, asked)
        spread(add, f"plugin kill -9 → next delivery ({KILLS} kills)", figures["kills"], KILL_TARGET_S, 50)
        if "reconnects" in figures:
            spread(add, f"Socket Mode kill -9 → hello (≥ {RECONNECT_GAP:g} s apart)", figures["reconnects"],
                   RECONNECT_TARGET_S, RECONNECTS)
        if figures["limited"] is not None:  # the web page has no platform limits
            add("429s received", figures["limited"], "0", figures["limited"] == 0)
            add(f"fake {cls.name.capitalize()} violations", len(figures["violations"]), "0", not figures["violations"])
        out += rows
        series["first"].append((cls.name.capitalize(), [1000 * x for x in r["first"]]))
        series["kills"].append((cls.name.capitalize(), [1000 * x for x in figures["kills"]]))
    if series["first"]:
        ctx.chart("first-visible-text", f"pi's first text delta → first visible text, {CHATS} chats per messenger", "ms",
                  series["first"], 1000 * FIRST_TARGET_S)
        ctx.chart("plugin-kills", f"messenger plugin kill -9 → its next delivery, {CHATS} chats streaming", "ms",
                  series["kills"], 1000 * KILL_TARGET_S)
    return out

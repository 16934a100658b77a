#!/usr/bin/env python3
"""make soak: the real pi-relayd with its real plugins (formatter, attachments, discord, telegram, slack),
the fake pi behind every session and the fake messengers in front (the fake Discord, the fake
Telegram Bot API and the fake Slack, at once), under steady chat traffic while processes are killed. Issue 7, part 1.

For SECONDS (default 600, SOAK_SECONDS overrides; CI runs 60):

* at least 10 sessions, one per configured Discord channel, stream all the time: each gets a new
  prompt as soon as it is idle (now and then a follow-up while it works), "SOAKP<n> <40 words>";
  the fake pi echoes it word by word, so every answer carries its prompt's unique marker;
* prompts come from three allowed users, and from two users who are not allowed ("EVILP<n>");
* every ~30 s a session is asked "!scenario ui ask-select" (marker "SOAKQ<n>" on its second line);
  the question is answered by clicking one of its buttons in Discord, as a random allowed user;
* beside them, three allowed Telegram users each bind their private chat to a session of its own
  (`/new DIR tNN`) and keep it streaming the same way (prompts and follow-ups, no questions); a
  Telegram user who is not allowed writes now and then ("EVILP<n>"); three allowed Slack users do
  the same in their DMs with the bot (`/pi new DIR lNN`), and a refused one writes now and then;
* each plugin (telegram and slack included) is `kill -9`ed at a random moment at least every 20 s; in the
  long form (>= 300 s) the daemon is too, every two to three minutes, and started again.

Then the traffic stops, everything settles, and every session is prompted once more (a dead one
would not answer). The table printed at the end counts, from the outside only:

* inbound: allowed prompts Discord took in, and how many reached pi exactly once (FAKE_PI_LOG);
  unauthorized prompts that reached pi (must be 0); the same for Telegram;
* finals: answers pi produced (its session files) and how many Discord shows exactly once (the
  bot's messages in the channel, current content: a run spread over several chunks or turned from
  its live message still counts once). A run cut short because the daemon's kill took its pi with
  it never finishes: it is counted on its own line, and the restarted daemon must have said so in
  its chat; any other bot message without an answer in it is a stray (a live message left over);
* the same finals count for Telegram (the bot's messages in each private chat, current text).
  The telegram plugin saves which messages a run shows, an edit before it goes out, so a
  restarted plugin turns them into the final; but Telegram has no idempotent send, so a message
  sent just before a kill -9 and not yet recorded is left behind, and the final of that run is
  posted anew below it. Such a leftover (it stopped changing before the kill, its answer came
  after) is counted on a line of its own, not as a duplicate, and there may be at most one per
  chat and kill of the plugin; any other repeat is one. Every update the fake Telegram queued must be confirmed by the end (getUpdates offset), and
  the fake Telegram must have seen no request of severity "error" (Discord's are listed too),
  apart from edits in doubt after a kill of the plugin, made again by the final ("message is not
  modified"; at most one per chat and kill);
* the same for Slack (the bot's messages in each DM, uploads' text included); every Socket Mode
  envelope acknowledged within 3 s on the socket it came on, and no error-level violation at the
  fake Slack (a 429 under normal pacing is one);
* questions: answered (the click's reply said so) and applied (pi got that value for that
  question exactly once);
* sessions alive at the end, worst and p50 recovery time after each kind of kill, the daemon's
  file descriptors and RSS at start and end, and processes of the home left over.

It exits 1 on any loss, duplicate, leak or dead session.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAKE_DISCORD = os.path.join(ROOT, "Tests", "Fakes", "fake_discord", "fake_discord.py")
FAKE_TELEGRAM = os.path.join(ROOT, "Tests", "Fakes", "fake_telegram", "fake_telegram.py")
FAKE_SLACK = os.path.join(ROOT, "Tests", "Fakes", "fake_slack", "fake_slack.py")
FAKE_PI = os.path.join(ROOT, "Tests", "Fakes", "fake-pi", "pi")

TOKEN = "SOAK.bot-token.Yk3Lq8Vz2Pw7Rn5Tx1"
GUILD = "1100000000000000001"
BOT = "1300000000000000001"
ALLOWED = [("1400000000000000001", "alice"), ("1400000000000000003", "bob"), ("1400000000000000004", "carol")]
REFUSED = [("1400000000000000002", "mallory"), ("1400000000000000005", "trudy")]
# Telegram: `<bot id>:<secret>`, as BotFather gives them (the fake's bot is 7000000001). Users are
# private chats: a private chat's id is its user's id. Each allowed user's chat is bound to a session
# of its own, named t00, t01, ...
TG_TOKEN = "7000000001:SOAKtelegramSecretR4t5y6u7i8o9"
TG_ALLOWED = [("5100000001", "tina"), ("5100000002", "ulf"), ("5100000003", "vera")]
TG_REFUSED = [("5100000009", "eve")]
TG_PREFIX = "tg:"  # places: a Discord channel id, or "tg:<chat id>"
# Slack: each allowed user's DM is bound to a session of its own (l00, l01, ...) with /pi new;
# Socket Mode in, the Web API out, both the fake Slack's.
SL_BOT_TOKEN = "xoxb-7777-8888-SOAKslackBotSecretK4j5h6"
SL_APP_TOKEN = "xapp-1-A0FAKEAPP-9999-SOAKslackAppSecretM7n8"
SL_ALLOWED = [("USOAKSINA1", "sina"), ("USOAKLEO02", "leo"), ("USOAKMIA03", "mia")]
SL_REFUSED = [("USOAKEVE09", "sevil")]
SL_PREFIX = "sl:"  # places: "sl:<user id>", the user's DM with the bot
PLUGINS = ["formatter", "attachments", "discord", "telegram", "slack"]
MESSENGERS = {"discord": "Discord", "telegram": "Telegram", "slack": "Slack"}
# plugins.restart.healthyResetSeconds' default: an instance up this long restarts at once.
HEALTHY_RESET_S = 10.0
WORDS = ("relay stream chunk edit final answer session plugin gateway resume outbox nonce marker "
         "thread channel button question prompt agent daemon restart").split()
# Bot messages that carry no marker and are expected: refusals, mention pings after a final,
# questions and the finals of question runs (their answer is the choice, not an echo).
# "Queued as follow-up for NAME." answers a prompt sent while its session works (issue 17); Discord
# shows it as a ⏳ reaction, and in text when the reaction cannot be made.
KNOWN_MESSAGES = ("Not authorized.", "⬆ done", "Pick a colour", "I have a question for you", "Started t", "Started l",
                  "Queued as follow-up for ")
MARKER = re.compile(r"\b(SOAKP\d{6}|SOAKQ\d{6}|EVILP\d{6}|SOAKZ\d{6})\b")


def channel_id(i):
    return str(1200000000000000101 + i)


def tg_place(user):
    return TG_PREFIX + user[0]


def is_tg(place):
    return place.startswith(TG_PREFIX)


def sl_place(user):
    return SL_PREFIX + user[0]


def is_sl(place):
    return place.startswith(SL_PREFIX)


def sl_dm(place_or_user):
    """The DM channel the fake Slack gives a user (`D` and the rest of the user id)."""
    user = place_or_user[len(SL_PREFIX):] if is_sl(place_or_user) else place_or_user
    return "D" + user[1:]


def is_private(place):
    """A place that is one user's chat with the bot (Telegram private chat, Slack DM)."""
    return is_tg(place) or is_sl(place)


def messenger_of(place):
    return "telegram" if is_tg(place) else "slack" if is_sl(place) else "discord"


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def read_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def percentile(xs, p):
    s = sorted(xs)
    if not s:
        return None
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


class Fake:
    """A fake messenger process and its control API (JSON over HTTP on 127.0.0.1)."""

    def __init__(self, work, name, args):
        port_file = os.path.join(work, f"{name}-port.json")
        self.err = open(os.path.join(work, f"{name}.log"), "wb")
        self.proc = subprocess.Popen(args + ["--port", "0", "--control-port-file", port_file], stdin=subprocess.DEVNULL,
                                     stdout=self.err, stderr=self.err,
                                     env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), start_new_session=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"soak: the {name} did not start; see {work}/{name}.log")
            time.sleep(0.05)
        with open(port_file) as f:
            info = json.load(f)
        self.base = info["base"]
        self.control = f"http://127.0.0.1:{info['port']}/_control"

    def call(self, method, path, body=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.control + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            body = e.read()
            if e.code == 408:
                return json.loads(body)
            raise RuntimeError(f"{method} {path}: HTTP {e.code} {body[:300]!r}") from None

    def stop(self):
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.err.close()


class FakeDiscord(Fake):
    def __init__(self, work, sessions):
        self.transcript = os.path.join(work, "transcript.txt")
        args = [sys.executable, FAKE_DISCORD, "--token", TOKEN,
                "--heartbeat-ms", "10000", "--bot-user-id", BOT, "--guild", GUILD, "--transcript", self.transcript]
        for uid, name in ALLOWED + REFUSED:
            args += ["--user", f"{uid}:{name}"]
        for i in range(sessions):
            args += ["--channel", f"{channel_id(i)}:soak-{i:02d}"]
        super().__init__(work, "fake-discord", args)

    def messages(self, channel):
        return self.call("GET", f"/messages?channel_id={channel}&author=bot", timeout=120)["messages"]


class FakeTelegram(Fake):
    """The fake Telegram Bot API (Tests/Fakes/fake_telegram): its natural rate limits on."""

    def __init__(self, work):
        self.transcript = os.path.join(work, "telegram-transcript.txt")
        super().__init__(work, "fake-telegram", [sys.executable, FAKE_TELEGRAM, "--token", TG_TOKEN,
                                                 "--transcript", self.transcript])

    def messages(self, chat):
        """The bot's messages in a chat as they are now (deleted ones left out), oldest first."""
        return self.call("GET", f"/messages?chat_id={chat}&from=bot&include_deleted=0", timeout=120)["messages"]

    def polling_since(self, cursor):
        """Whether a getUpdates started after `cursor` (a plugin polling again)."""
        return bool(self.call("GET", f"/wait?for=poll&since={cursor}&timeout=0.5").get("ok"))

    def file_text(self, file_id):
        import base64
        return base64.b64decode(self.call("GET", f"/file?file_id={file_id}")["content_b64"]).decode("utf-8", "replace")


class FakeSlack(Fake):
    """The fake Slack (Tests/Fakes/fake_slack): Web API tiers and Socket Mode ack tracking on."""

    def __init__(self, work):
        self.transcript = os.path.join(work, "slack-transcript.txt")
        super().__init__(work, "fake-slack", [sys.executable, FAKE_SLACK, "--bot-token", SL_BOT_TOKEN,
                                              "--app-token", SL_APP_TOKEN, "--transcript", self.transcript])

    def messages(self, channel):
        """The bot's messages in a conversation as they are now (deleted ones left out), oldest first."""
        return self.call("GET", f"/messages?channel={channel}&from=bot", timeout=120)["messages"]

    def hello_since(self, cursor):
        """Whether a Socket Mode connection said hello after `cursor` (a plugin connected again)."""
        return bool(self.call("GET", f"/wait?for=hello&since={cursor}&timeout=0.5").get("ok"))

    def file_text(self, file_id):
        import base64
        return base64.b64decode(self.call("GET", f"/files/{file_id}")["content_b64"]).decode("utf-8", "replace")


class Daemon:
    """pi-relayd in the foreground in a throw-away home; its control socket; /proc views."""

    def __init__(self, bin_dir, root, fake, tg, sl, sessions):
        self.bin = bin_dir
        self.home = os.path.join(root, "h")
        self.scratch = os.path.join(root, "t")
        self.work = os.path.join(root, "w")
        self.agent = os.path.join(root, "agent")
        for d in (self.home, os.path.join(self.home, "plugins"), self.scratch, self.work, self.agent):
            os.makedirs(d, mode=0o700, exist_ok=True)
        os.chmod(self.home, 0o700)
        self.sock = os.path.join(self.home, "relayd.sock")
        self.pi_log = os.path.join(self.scratch, "pi-stdin.jsonl")
        for name in PLUGINS:
            exe = os.path.join(bin_dir, "pi-relay-" + name)
            if not os.access(exe, os.X_OK):
                raise SystemExit(f"soak: {exe} is not built (make build)")
            os.symlink(exe, os.path.join(self.home, "plugins", name))
        channels = []
        for i in range(sessions):
            cwd = os.path.join(self.work, f"s{i:02d}")
            os.makedirs(cwd, exist_ok=True)
            channels.append(f'    - {{id: "{channel_id(i)}", cwd: {json.dumps(cwd)}, name: s{i:02d}}}')
        # The Telegram sessions' projects; the sessions are made from the chats (/new DIR tNN).
        self.tg_cwds = []
        for i in range(len(TG_ALLOWED)):
            cwd = os.path.join(self.work, f"t{i:02d}")
            os.makedirs(cwd, exist_ok=True)
            self.tg_cwds.append(cwd)
        self.sl_cwds = []
        for i in range(len(SL_ALLOWED)):
            cwd = os.path.join(self.work, f"l{i:02d}")
            os.makedirs(cwd, exist_ok=True)
            self.sl_cwds.append(cwd)
        config = "\n".join([
            "plugins:",
            "  pingIntervalSeconds: 2",
            "  pingTimeoutSeconds: 30",
            "  handshakeTimeoutSeconds: 30",
            "  restart:",
            # The default backoff; every plugin is killed at least every 20 s on purpose: that
            # is no crash loop.
            "    crashLoopCount: 1000",
            "    crashLoopWindowSeconds: 60",
            "logs:",
            "  level: info",
            "  maxBytes: 52428800",
            "pi:",
            f"  command: {json.dumps(FAKE_PI)}",
            f"  agentDir: {json.dumps(self.agent)}",
            "  startTimeoutSeconds: 120",
            "  env:",
            f"    FAKE_PI_LOG: {json.dumps(self.pi_log)}",
            '    FAKE_PI_DELTA_MS: "60"',
            "discord:",
            f"  apiBase: {json.dumps(fake.base)}",
            "  allowedUsers: [" + ", ".join(f'"{u}"' for u, _ in ALLOWED) + "]",
            f'  guilds: ["{GUILD}"]',
            "  channels:",
        ] + channels + [
            "telegram:",
            f"  apiBase: {json.dumps(tg.base)}",
            "  allowedUsers: [" + ", ".join(u for u, _ in TG_ALLOWED) + "]",
            "  pollTimeoutSeconds: 5",
            "slack:",
            f"  apiBase: {json.dumps(sl.base)}",
            "  allowedUsers: [" + ", ".join(u for u, _ in SL_ALLOWED) + "]",
        ]) + "\n"
        with open(os.path.join(self.home, "config.yaml"), "w") as f:
            f.write(config)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("PI_RELAY", "FAKE_", "DISCORD_", "TELEGRAM_", "SLACK_"))}
        self.env.update({"PI_RELAYD_HOME": self.home, "PI_RELAYD_BUNDLED_PLUGINS": "", "DISCORD_BOT_TOKEN": TOKEN,
                         "TELEGRAM_BOT_TOKEN": TG_TOKEN, "SLACK_BOT_TOKEN": SL_BOT_TOKEN, "SLACK_APP_TOKEN": SL_APP_TOKEN,
                         "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        out = open(os.path.join(self.scratch, f"daemon-{self.starts}.log"), "wb")
        self.proc = subprocess.Popen([os.path.join(self.bin, "pi-relayd"), "start", "--foreground"], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
        out.close()

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def kill9(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def call(self, method, params=None, timeout=30):
        """One request on the control socket (docs/PROTOCOL.md §9)."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.sock)
            s.sendall((json.dumps({"id": "1", "method": method, "params": params or {}}) + "\n").encode())
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        reply = json.loads(buf)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def try_call(self, method, params=None, timeout=30):
        try:
            return self.call(method, params, timeout)
        except (OSError, ValueError, RuntimeError):
            return None

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def rss(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def home_processes(self):
        """Processes started with this home in their environment (the daemon passes it on)."""
        want = f"PI_RELAYD_HOME={self.home}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read().split(b"\0")
                with open(f"/proc/{entry}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if want in env and state not in ("Z", "X"):
                found.append(int(entry))
        return found


class Answers:
    """What pi answered, read from its session files as they grow: marker -> time of the answer.

    `merged` holds prompts pi took together with a question prompt in one turn: after a daemon
    kill left a prompt unanswered in pi's session, the next prompt is answered together with it,
    and the fake pi then plays the question scenario without echoing the others."""

    def __init__(self, agent_dir):
        self.folder = os.path.join(agent_dir, "sessions")
        self.offsets = {}
        self.pending = {}  # session file -> markers of user messages not yet answered
        self.seen = {}
        self.merged = set()
        self.lock = threading.Lock()

    def read(self):
        with self.lock:
            for folder, _, files in os.walk(self.folder):
                for name in files:
                    if name.endswith(".jsonl"):
                        self._read(os.path.join(folder, name))
            return dict(self.seen)

    def _read(self, path):
        try:
            with open(path, "rb") as f:
                f.seek(self.offsets.get(path, 0))
                data = f.read()
        except OSError:
            return
        # Only whole lines: the tail may be half written.
        end = data.rfind(b"\n") + 1
        self.offsets[path] = self.offsets.get(path, 0) + end
        for line in data[:end].splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            message = entry.get("message") or {}
            blocks = message.get("content", [])
            text = blocks if isinstance(blocks, str) else "".join(
                b.get("text", "") for b in blocks if isinstance(b, dict))
            if message.get("role") == "user":
                self.pending.setdefault(path, []).extend(re.findall(r"\b(SOAKP\d{6}|SOAKZ\d{6})\b", text))
                continue
            if message.get("role") != "assistant":
                continue
            if "I have a question for you" in text:
                self.merged.update(self.pending.pop(path, []))
            for m in re.findall(r"Echo: (SOAKP\d{6}|SOAKZ\d{6})", text):
                self.seen.setdefault(m, message.get("timestamp", 0) / 1000)
                if m in self.pending.get(path, []):
                    self.pending[path].remove(m)


class Soak:
    def __init__(self, args):
        self.args = args
        # Printed now and in the report: a failing run is replayed with --seed (SOAK_SEED).
        log(f"seed {args.seed}")
        self.rng = random.Random(args.seed)
        self.root = tempfile.mkdtemp(prefix="soak-", dir="/tmp")
        self.fake = FakeDiscord(self.root, args.sessions)
        self.tg = FakeTelegram(self.root)
        self.sl = FakeSlack(self.root)
        self.daemon = Daemon(args.bin, self.root, self.fake, self.tg, self.sl, args.sessions)
        # Every place a session answers in: the Discord channels, the Telegram private chats, the Slack DMs.
        self.places = ([channel_id(i) for i in range(args.sessions)] + [tg_place(u) for u in TG_ALLOWED]
                       + [sl_place(u) for u in SL_ALLOWED])
        self.place_names = {f"s{i:02d}": channel_id(i) for i in range(args.sessions)}
        self.place_names.update({f"t{i:02d}": tg_place(u) for i, u in enumerate(TG_ALLOWED)})
        self.place_names.update({f"l{i:02d}": sl_place(u) for i, u in enumerate(SL_ALLOWED)})
        self.total_sessions = len(self.places)
        self.lock = threading.Lock()
        self.stop_traffic = threading.Event()
        self.stop_kills = threading.Event()
        self.daemon_down = threading.Event()
        self.counter = 0
        self.sent = {}            # marker -> {"channel" (a place), "kind", "time", "user", "id"}
        self.lost_by_discord = [] # injections no gateway session received (Discord would drop them too)
        self.lost_by_telegram = []  # injections the fake Telegram did not queue as an update
        self.lost_by_slack = []     # injections the fake Slack made no event of
        self.outstanding = {place: [] for place in self.places}
        self.last_question = {place: 0.0 for place in self.places}
        self.clicks = {}          # question id -> list of {"interaction", "value", "time", "message"}
        self.clicked_messages = set()
        self.kills = {name: [] for name in PLUGINS + ["daemon"]}  # name -> [(killed at, recovered after)]
        self.healthy_kills = {name: [] for name in PLUGINS}  # recoveries of instances up >= HEALTHY_RESET_S
        self.up_since = {}  # name -> when its current instance was seen running (monotonic)
        self.daemon_kill_times = []
        self.plugin_kill_times = {name: [] for name in PLUGINS}
        self.session_channels = {}  # session id -> place
        self.answers = Answers(self.daemon.agent)
        self.stop_questions = threading.Event()
        self.errors = []

    # -- set-up --------------------------------------------------------------------------------
    def wait(self, what, timeout, probe, every=0.2):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                r = probe()
                if r:
                    return r
            except (OSError, ValueError, RuntimeError):
                pass
            time.sleep(every)
        raise SystemExit(f"soak: timed out after {timeout} s waiting until {what}")

    def plugins_running(self):
        listed = self.daemon.try_call("plugins") or []
        states = {p.get("name"): p for p in listed}
        return all(states.get(n, {}).get("state") == "running" and states[n].get("pid") for n in PLUGINS) and states

    def gateway_up_since(self, cursor):
        for kind in ("ready", "resumed"):
            if self.fake.call("GET", f"/wait?for={kind}&since={cursor}&timeout=0.5").get("ok"):
                return True
        return False

    def start(self):
        cursor = self.fake.call("GET", "/cursor")["cursor"]
        tg_cursor = self.tg.call("GET", "/cursor")["cursor"]
        sl_cursor = self.sl.call("GET", "/cursor")["cursor"]
        self.daemon.start()
        self.wait("the plugins run", 120, self.plugins_running)
        self.wait("the slack plugin is on Socket Mode", 120, lambda: self.sl.hello_since(sl_cursor))
        self.wait("the discord plugin is on the gateway", 120, lambda: self.gateway_up_since(cursor))
        self.wait("the telegram plugin polls", 120, lambda: self.tg.polling_since(tg_cursor))
        self.wait(f"{self.args.sessions} sessions are idle", 180, lambda: self.sessions_idle(self.args.sessions))
        # Each Telegram user binds their private chat to a new session of its own.
        for i, user in enumerate(TG_ALLOWED):
            self.tg_say(user, f"/new {self.daemon.tg_cwds[i]} t{i:02d}")
        for i, user in enumerate(TG_ALLOWED):
            self.wait(f"t{i:02d} is started from {user[1]}'s private chat", 180,
                      lambda: self.tg.call("GET", f"/wait?for=message&from=bot&chat_id={user[0]}"
                                                  f"&contains=Started%20t{i:02d}&timeout=5").get("ok"))
        # Each Slack user binds their DM to a new session of its own.
        for i, user in enumerate(SL_ALLOWED):
            self.sl.call("POST", "/command", {"user": user[0], "name": user[1], "text": f"new {self.daemon.sl_cwds[i]} l{i:02d}"})
        for i, user in enumerate(SL_ALLOWED):
            self.wait(f"l{i:02d} is started from {user[1]}'s DM", 180,
                      lambda: self.sl.call("GET", f"/wait?for=message&from=bot&channel={sl_dm(user[0])}"
                                                  f"&contains=Started%20l{i:02d}&timeout=5").get("ok"))
        self.wait(f"{self.total_sessions} sessions are idle", 180, lambda: self.sessions_idle())
        for s in self.daemon.call("sessions"):
            self.session_channels[s["id"]] = self.place_names[s["name"]]

    def sessions_idle(self, count=None):
        listed = self.daemon.try_call("sessions") or []
        return len(listed) >= (count or self.total_sessions) and all(s.get("state") == "idle" for s in listed)

    def tg_say(self, user, text):
        """`user` writes `text` to the bot in their private chat; the fake's answer."""
        return self.tg.call("POST", "/messages", {"from": {"id": int(user[0]), "first_name": user[1], "username": user[1]},
                                                  "chat": {"id": int(user[0]), "type": "private"}, "text": text})

    def tg_quiet(self):
        """Every update the fake Telegram queued is confirmed, and a snapshot of the bot's
        messages in every Telegram chat (to tell when they stop changing)."""
        updates = self.tg.call("GET", "/updates")
        snapshot = []
        for user in TG_ALLOWED + TG_REFUSED:
            snapshot += [(m["chat_id"], m["message_id"], m.get("changed_cursor")) for m in self.tg.messages(user[0])]
        for user in SL_ALLOWED + SL_REFUSED:
            snapshot += [(m["channel"], m["ts"], m.get("edit_count")) for m in self.sl.messages(sl_dm(user[0]))]
        return not updates.get("pending"), snapshot

    # -- traffic -------------------------------------------------------------------------------
    def next_marker(self, prefix):
        with self.lock:
            self.counter += 1
            return f"{prefix}{self.counter:06d}"

    def inject(self, marker, channel, user, text, kind):
        if is_tg(channel):
            return self.inject_tg(marker, channel, user, text, kind)
        if is_sl(channel):
            return self.inject_sl(marker, channel, user, text, kind)
        try:
            r = self.fake.call("POST", "/messages", {"channel_id": channel, "author": {"id": user[0], "username": user[1]},
                                                    "mention_bot": True, "content": text})
        except (OSError, RuntimeError) as e:
            self.errors.append(f"injecting {marker}: {e}")
            return
        with self.lock:
            if not r.get("delivered_to"):
                self.lost_by_discord.append(marker)
                return
            self.sent[marker] = {"channel": channel, "kind": kind, "time": time.time(), "user": user[1], "id": r.get("id")}
            if kind in ("prompt", "question"):
                self.outstanding[channel].append(marker)

    def inject_tg(self, marker, place, user, text, kind):
        try:
            r = self.tg_say(user, text)
        except (OSError, RuntimeError) as e:
            self.errors.append(f"injecting {marker}: {e}")
            return
        with self.lock:
            if not r.get("queued"):
                self.lost_by_telegram.append(marker)
                return
            self.sent[marker] = {"channel": place, "kind": kind, "time": time.time(), "user": user[1],
                                 "id": r.get("message_id")}
            if kind == "prompt":
                self.outstanding[place].append(marker)

    def inject_sl(self, marker, place, user, text, kind):
        try:
            r = self.sl.call("POST", "/messages", {"user": user[0], "name": user[1], "text": text})
        except (OSError, RuntimeError) as e:
            self.errors.append(f"injecting {marker}: {e}")
            return
        with self.lock:
            if not r.get("event_ids"):
                self.lost_by_slack.append(marker)
                return
            # The fake's ts counts up across all conversations: its fraction orders messages.
            self.sent[marker] = {"channel": place, "kind": kind, "time": time.time(), "user": user[1],
                                 "id": int(r["ts"].split(".")[1])}
            if kind == "prompt":
                self.outstanding[place].append(marker)

    def traffic(self):
        """Keeps every session streaming: a new prompt as soon as it is idle with nothing
        outstanding, now and then a follow-up while it works, a question every half minute or
        so (Discord only), and now and then a message from someone who is not allowed.
        A Telegram user waits until the answer shows in the chat, not just until pi has it:
        Telegram lets a bot write about once a second per chat, so answers as quick as the fake
        pi's would otherwise pile up behind each other."""
        names = self.place_names
        while not self.stop_traffic.is_set():
            answered = self.answers.read()
            states = {names.get(s.get("name")): s.get("state") for s in (self.daemon.try_call("sessions") or [])}
            shown_tg = set()
            for user in TG_ALLOWED:
                try:
                    for m in self.tg.messages(user[0]):
                        shown_tg.update(re.findall(r"Echo: (SOAKP\d{6})", m.get("text") or ""))
                except (OSError, RuntimeError, ValueError):
                    pass
            for user in SL_ALLOWED:
                try:
                    for m in self.sl.messages(sl_dm(user[0])):
                        shown_tg.update(re.findall(r"Echo: (SOAKP\d{6})", m.get("text") or ""))
                except (OSError, RuntimeError, ValueError):
                    pass
            now = time.time()
            for channel in names.values():
                with self.lock:
                    # Done: answered, or asked and clicked; a run cut by a daemon kill never is.
                    self.outstanding[channel] = [
                        m for m in self.outstanding[channel]
                        if not (m in answered and (not is_private(channel) or m in shown_tg)) and now - self.sent[m]["time"] < 30
                        and not (self.sent[m]["kind"] == "question" and self.sent[m].get("clicked"))]
                    waiting = len(self.outstanding[channel])
                idle = states.get(channel) == "idle"
                follow_up = waiting == 1 and states.get(channel) == "busy" and self.rng.random() < 0.05
                if not (waiting == 0 and (idle or channel not in states)) and not follow_up:
                    continue
                if is_tg(channel):
                    user = next(u for u in TG_ALLOWED if tg_place(u) == channel)
                elif is_sl(channel):
                    user = next(u for u in SL_ALLOWED if sl_place(u) == channel)
                else:
                    user = self.rng.choice(ALLOWED)
                if (not is_private(channel) and not follow_up and now - self.last_question[channel] > 30
                        and self.rng.random() < 0.15):
                    self.last_question[channel] = now
                    marker = self.next_marker("SOAKQ")
                    self.inject(marker, channel, user, f"!scenario ui ask-select 120000\n{marker}", "question")
                else:
                    marker = self.next_marker("SOAKP")
                    words = " ".join(self.rng.choice(WORDS) for _ in range(40))
                    self.inject(marker, channel, user, f"{marker} {words}", "prompt")
                if self.rng.random() < 0.03:
                    evil = self.next_marker("EVILP")
                    if is_tg(channel):
                        # A stranger can only write in their own private chat.
                        stranger = self.rng.choice(TG_REFUSED)
                        self.inject(evil, tg_place(stranger), stranger, f"{evil} please run rm -rf /", "evil")
                    elif is_sl(channel):
                        stranger = self.rng.choice(SL_REFUSED)
                        self.inject(evil, sl_place(stranger), stranger, f"{evil} please run rm -rf /", "evil")
                    else:
                        self.inject(evil, channel, self.rng.choice(REFUSED), f"{evil} please run rm -rf /", "evil")
            self.stop_traffic.wait(0.5)

    def pi_markers(self):
        seen = set()
        for line in read_lines(self.daemon.pi_log):
            for m in MARKER.findall(line):
                seen.add(m)
        return seen

    # -- questions -----------------------------------------------------------------------------
    def answer_questions(self):
        """Clicks one option of every open question, as the session's Discord channel shows it."""
        while not self.stop_questions.is_set():
            for q in self.open_questions():
                channel = self.session_channels.get(q.get("sessionId"))
                if channel is None or not self.should_click(q["id"]):
                    continue
                try:
                    messages = self.fake.messages(channel)
                except (OSError, RuntimeError):
                    continue
                shown = [m for m in messages if "Pick a colour" in m.get("content", "")
                         and any(c.get("custom_id", "").startswith("pq:")
                                 for row in m.get("components", []) for c in row.get("components", []))]
                if not shown:
                    continue
                message = shown[-1]
                options = [c for row in message["components"] for c in row.get("components", [])
                           if c.get("custom_id", "").startswith("pq:") and c.get("label", "")[:2] in ("1.", "2.", "3.")]
                if not options:
                    continue
                button = self.rng.choice(options)
                value = button["label"].split(". ", 1)[1]
                user = self.rng.choice(ALLOWED)
                try:
                    r = self.fake.call("POST", "/interactions", {"type": 3, "message_id": message["id"],
                                                                 "custom_id": button["custom_id"],
                                                                 "user": {"id": user[0], "username": user[1]}})
                except (OSError, RuntimeError) as e:
                    self.errors.append(f"clicking {q['id']}: {e}")
                    continue
                with self.lock:
                    self.clicks.setdefault(q["id"], []).append({"interaction": r.get("id"), "value": value,
                                                               "time": time.time(), "message": message["id"]})
                    for marker in self.outstanding[channel]:
                        if self.sent[marker]["kind"] == "question":
                            self.sent[marker]["clicked"] = True
            self.stop_questions.wait(1.0)

    def open_questions(self):
        return self.daemon.try_call("questions") or []

    def should_click(self, qid):
        """Once per question; again when the earlier click got no "Answered" within 15 s (the
        plugin was down and Discord failed it, or it landed on an older question's message)."""
        with self.lock:
            earlier = self.clicks.get(qid, [])
        if not earlier:
            return True
        last = earlier[-1]
        if time.time() - last["time"] < 15:
            return False
        return not self.interaction_reply(last["interaction"]).startswith("Answered")

    def interaction_reply(self, interaction):
        """The text the bot answered an interaction with ("" if none yet)."""
        try:
            view = self.fake.call("GET", f"/interactions/{interaction}")
            if view.get("ack_type") == 5 and view.get("original_message_id"):
                return self.fake.call("GET", f"/messages/{view['original_message_id']}").get("content") or ""
            return ((view.get("callback") or {}).get("data") or {}).get("content") or ""
        except (OSError, RuntimeError):
            return ""

    # -- kills ---------------------------------------------------------------------------------
    def plugin_killer(self, name):
        while not self.stop_kills.wait(self.rng.uniform(4, 19)):
            if self.daemon_down.is_set():
                continue
            listed = {p.get("name"): p for p in (self.daemon.try_call("plugins") or [])}
            info = listed.get(name)
            if not info or info.get("state") != "running" or not info.get("pid"):
                continue
            cursor = (self.fake.call("GET", "/cursor")["cursor"] if name == "discord" else
                      self.tg.call("GET", "/cursor")["cursor"] if name == "telegram" else
                      self.sl.call("GET", "/cursor")["cursor"] if name == "slack" else None)
            try:
                os.kill(info["pid"], signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed = time.monotonic()
            with self.lock:
                self.plugin_kill_times[name].append(time.time())
            # An instance that ran the healthy-reset time (10 s) is restarted at once; one killed
            # sooner is a crash in a row and waits its backoff (PROTOCOL.md §5). The table shows both.
            healthy = killed - self.up_since.get(name, 0.0) >= HEALTHY_RESET_S
            recovered = self.recovery(name, info["pid"], cursor, killed)
            if recovered == "superseded":
                continue  # the daemon was killed meanwhile: its own recovery covers this one
            with self.lock:
                self.kills[name].append((time.time(), recovered))
                if healthy:
                    self.healthy_kills[name].append(recovered)
                if isinstance(recovered, float):
                    self.up_since[name] = time.monotonic()

    def recovery(self, name, old_pid, cursor, killed, timeout=120):
        """Seconds until a new instance runs (for discord: and is back on the gateway; for
        telegram: and polls again)."""
        while time.monotonic() - killed < timeout:
            listed = {p.get("name"): p for p in (self.daemon.try_call("plugins") or [])}
            info = listed.get(name, {})
            if info.get("state") == "running" and info.get("pid") and info["pid"] != old_pid:
                if (name == "discord" and self.gateway_up_since(cursor)
                        or name == "telegram" and self.tg.polling_since(cursor)
                        or name == "slack" and self.sl.hello_since(cursor)
                        or name not in ("discord", "telegram", "slack")):
                    return time.monotonic() - killed
            if self.daemon_down.is_set():
                return "superseded"
            time.sleep(0.05)
        return None

    def daemon_killer(self):
        while not self.stop_kills.wait(self.rng.uniform(120, 180)):
            cursor = self.fake.call("GET", "/cursor")["cursor"]
            tg_cursor = self.tg.call("GET", "/cursor")["cursor"]
            sl_cursor = self.sl.call("GET", "/cursor")["cursor"]
            self.daemon_down.set()
            killed = time.monotonic()
            self.daemon.kill9()
            with self.lock:
                self.daemon_kill_times.append(time.time())
            log("daemon killed (kill -9); starting it again")
            time.sleep(1.0)
            self.daemon.start()
            try:
                self.wait("the restarted daemon's plugins run", 120, self.plugins_running, every=0.05)
                self.wait("the discord plugin is back on the gateway", 120, lambda: self.gateway_up_since(cursor), every=0.05)
                self.wait("the telegram plugin polls again", 120, lambda: self.tg.polling_since(tg_cursor), every=0.05)
                self.wait("the slack plugin is on Socket Mode again", 120, lambda: self.sl.hello_since(sl_cursor), every=0.05)
                recovered = time.monotonic() - killed
            except SystemExit as e:
                self.errors.append(str(e))
                recovered = None
            self.daemon_down.clear()
            with self.lock:
                self.kills["daemon"].append((time.time(), recovered))

    # -- the run -------------------------------------------------------------------------------
    def run(self):
        log(f"soak: {self.args.seconds} s, {self.args.sessions} sessions, daemon kills "
            f"{'on' if self.args.daemon_kills else 'off'}, work in {self.root}")
        self.start()
        time.sleep(2)
        start_fds, start_rss = self.daemon.fds(), self.daemon.rss()
        threads = [threading.Thread(target=self.traffic, daemon=True),
                   threading.Thread(target=self.answer_questions, daemon=True)]
        threads += [threading.Thread(target=self.plugin_killer, args=(n,), daemon=True) for n in PLUGINS]
        if self.args.daemon_kills:
            threads.append(threading.Thread(target=self.daemon_killer, daemon=True))
        for t in threads:
            t.start()
        end = time.monotonic() + self.args.seconds
        while time.monotonic() < end:
            time.sleep(min(30, max(0.1, end - time.monotonic())))
            with self.lock:
                log(f"{len(self.sent)} injected, {sum(len(k) for k in self.kills.values())} kills so far")
        self.stop_kills.set()
        self.stop_traffic.set()
        for t in threads:
            if t is not threads[1]:
                t.join(timeout=200)
        log("traffic and kills stopped; waiting for everything to settle")
        settled = self.settle()
        probe = self.probe_sessions()
        self.stop_questions.set()
        threads[1].join(timeout=60)
        time.sleep(3)
        end_fds, end_rss = self.daemon.fds(), self.daemon.rss()
        return self.report(settled, probe, (start_fds, start_rss), (end_fds, end_rss))

    def settle(self, timeout=240):
        """Until the plugins run with empty outboxes, every session is idle with no question open,
        every prompt has reached pi (or cannot any more), and the bot's messages stop changing."""
        deadline = time.monotonic() + timeout
        last, stable_since = None, None
        while time.monotonic() < deadline:
            listed = self.daemon.try_call("plugins") or []
            calm = (all(p.get("state") == "running" and not p.get("outbox") for p in listed if p.get("name") in PLUGINS)
                    and self.sessions_idle() and not self.open_questions())
            if calm:
                confirmed, tg_snapshot = self.tg_quiet()
                calm = confirmed
            snapshot = (self.fake.call("GET", "/cursor")["cursor"], tg_snapshot) if calm else None
            if calm and snapshot == last:
                if stable_since and time.monotonic() - stable_since > 5:
                    return True
            else:
                stable_since = time.monotonic()
            last = snapshot
            time.sleep(1)
        self.errors.append("the soak did not settle within 240 s")
        return False

    def probe_sessions(self):
        """One more prompt per session: a session that does not answer it is dead."""
        markers = {}
        for place in self.places:
            marker = self.next_marker("SOAKZ")
            markers[marker] = place
            user = (next(u for u in TG_ALLOWED if tg_place(u) == place) if is_tg(place)
                    else next(u for u in SL_ALLOWED if sl_place(u) == place) if is_sl(place) else ALLOWED[0])
            self.inject(marker, place, user, f"{marker} are you still there", "probe")
        deadline = time.monotonic() + 180
        alive = set()
        while time.monotonic() < deadline and len(alive) < len(markers):
            self.answers.read()
            for marker, channel in markers.items():
                if marker in alive or marker not in self.sent:
                    continue
                try:
                    messages = self.bot_messages(channel)
                except (OSError, RuntimeError):
                    continue
                after = [m for m in messages if m["id"] > int(self.sent[marker]["id"] or 0)]
                # Answered: its echo, or the question run it was taken into finished.
                if any(f"Echo: {marker}" in m["text"] for m in messages) or (
                        marker in self.answers.merged and any("select answer:" in m["text"] for m in after)):
                    alive.add(marker)
            time.sleep(1)
        self.settle(timeout=60)
        return alive, markers

    def bot_messages(self, place, files=False):
        """The bot's messages in a place as they are now, oldest first: {"id", "text"}; with
        `files`, the text of attached .md/.txt files (a long answer's whole text) is added."""
        out = []
        if is_sl(place):
            for m in self.sl.messages(sl_dm(place)):
                text = m.get("text") or ""
                for f in m.get("files") or []:
                    if files and f.get("name", "").endswith((".md", ".txt")):
                        try:
                            text += self.sl.file_text(f["id"])
                        except (OSError, RuntimeError, KeyError, ValueError) as e:
                            self.errors.append(f"reading file {f.get('name')}: {e}")
                created = int(m["ts"].split(".")[0])
                out.append({"id": int(m["ts"].split(".")[1]), "text": text, "created": created,
                            "changed": int(m.get("changed_at") or created)})
        elif is_tg(place):
            for m in self.tg.messages(place[len(TG_PREFIX):]):
                text = (m.get("text") or "") + (m.get("caption") or "")
                document = m.get("document") or {}
                if files and document.get("file_name", "").endswith((".md", ".txt")):
                    try:
                        text += self.tg.file_text(document["file_id"])
                    except (OSError, RuntimeError, KeyError, ValueError) as e:
                        self.errors.append(f"reading document {document.get('file_name')}: {e}")
                # When it last changed (whole seconds, as Telegram dates are).
                out.append({"id": int(m["message_id"]), "text": text, "changed": m.get("edit_date") or m.get("date") or 0,
                            "created": m.get("date") or 0})
        else:
            for m in self.fake.messages(place):
                if m.get("ephemeral"):
                    continue  # an answer to one click, seen by the clicker only
                text = m.get("content", "")
                if files:
                    # A long run comes as a preview plus the whole answer as a .md file.
                    text += "".join(self.attachment_text(a) for a in m.get("attachments", []))
                out.append({"id": int(m["id"]), "text": text})
        return out

    # -- the table -----------------------------------------------------------------------------
    def report(self, settled, probe, start, end):
        pi_counts = {}
        ui_responses = []
        for line in read_lines(self.daemon.pi_log):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("type") in ("prompt", "follow_up", "steer"):
                for m in set(MARKER.findall(record.get("message", ""))):
                    pi_counts[m] = pi_counts.get(m, 0) + 1
            elif record.get("type") == "extension_ui_response":
                ui_responses.append(record)
        produced = self.answers.read()
        dc = self.figures("discord", pi_counts, produced)
        tg = self.figures("telegram", pi_counts, produced)
        sl = self.figures("slack", pi_counts, produced)

        answered, applied, not_applied = 0, 0, []
        for qid, clicks in self.clicks.items():
            ok = [c for c in clicks if self.interaction_reply(c["interaction"]).startswith("Answered")]
            if not ok:
                continue
            answered += 1
            value = ok[0]["value"]
            got = [r for r in ui_responses if r.get("id") == qid]
            if len(got) == 1 and got[0].get("value") == value:
                applied += 1
            else:
                not_applied.append((qid, value, got))

        alive, probes = probe
        sessions = self.daemon.try_call("sessions") or []
        dead = [s["name"] for s in sessions if s.get("state") not in ("idle",)]
        dead += [probes[m] for m in probes if m not in alive]

        rows = []
        fails = []

        def row(label, value, ok=True):
            rows.append((label, value, ok))
            if not ok:
                fails.append(label)

        def messenger_rows(f, name, taken_row):
            row(f"{name}: inbound prompts sent (allowed users)", len(f["allowed"]))
            row("  delivered to pi exactly once", len(f["once"]), len(f["once"]) == len(f["allowed"]))
            row("  lost before pi", len(f["lost_in"]), not f["lost_in"])
            row("  duplicated to pi", len(f["dup_in"]), not f["dup_in"])
            row(*taken_row)
            row(f"{name}: unauthorized prompts sent / reaching pi", f"{len(f['evil'])} / {len(f['evil_in'])}",
                not f["evil_in"])
            row(f"{name}: final answers produced by pi", len(f["expected"]))
            row(f"  delivered to {name} exactly once", len(f["final_once"]),
                len(f["final_once"]) + len(f["interrupted"]) == len(f["expected"]))
            row(f"  duplicated in {name}", len(f["final_dup"]), not f["final_dup"])
            row("  lost", len(f["final_lost"]), not f["final_lost"])
            row("  prompts in runs a daemon kill -9 cut off", len(f["interrupted"]) + len(f["cut"]))
            row("    not announced as cut off in their chat", len(f["unannounced"]), not f["unannounced"])
            row("  cut-off notices / cut live messages above them", f"{f['cut_notices']} / {f['partial']}")
            if name == "Discord":
                row("  prompts pi took into a question run (no echo)", len(f["merged"]))
            row("  prompts pi never answered (no kill)", len(f["never"]), not f["never"])
            if name in ("Telegram", "Slack"):
                # The plugin saves what each run showed, so a restarted one takes its live message
                # over. A daemon kill -9 cuts runs off (announced, the live message kept as it was).
                # Neither has an idempotent send: a message taken just before the kill, not yet
                # recorded, is left behind. At most one per chat and kill of the plugin (the sends
                # to a chat go one at a time).
                bound = len(self.kills[name.lower()]) * len(TG_ALLOWED if name == "Telegram" else SL_ALLOWED)
                row(f"  live messages a plugin kill -9 left behind (answer again below; at most {bound})", len(f["left_behind"]),
                    len(f["left_behind"]) <= bound or self.args.daemon_kills)
            row("  stray bot messages (no answer in them)", len(f["stray"]), not f["stray"])
            row(f"  notices posted (e.g. pi exited)", f["notices"])

        messenger_rows(dc, "Discord", ("  not taken by Discord (no gateway session)", len(self.lost_by_discord)))
        row("questions answered / applied", f"{answered} / {applied}", answered == applied)
        messenger_rows(tg, "Telegram", ("  not queued by the fake Telegram", len(self.lost_by_telegram),
                                        not self.lost_by_telegram))
        updates = [u for u in self.tg.call("GET", "/updates", timeout=120)["updates"]]
        confirmed = [u for u in updates if u.get("state") == "confirmed"]
        unconfirmed = [f"{u.get('update_id')} {u.get('state')}: {u.get('summary')}" for u in updates
                       if u.get("state") != "confirmed"]
        row("Telegram: updates queued / confirmed", f"{len(updates)} / {len(confirmed)}", not unconfirmed)
        messenger_rows(sl, "Slack", ("  not made an event by the fake Slack", len(self.lost_by_slack), not self.lost_by_slack))
        envelopes = self.sl.call("GET", "/envelopes", timeout=120)["envelopes"]
        late = [e["envelope_id"] for e in envelopes if e.get("late")]
        row("Slack: envelopes / acked late on an open socket", f"{len(envelopes)} / {len(late)}", not late)
        row("sessions alive at the end", f"{len(probes) - len([m for m in probes if m not in alive])} / {len(probes)}",
            not dead)
        for name in PLUGINS + ["daemon"]:
            times = [r for _, r in self.kills[name] if r is not None]
            failed = [1 for _, r in self.kills[name] if r is None]
            worst = f"{max(times):.2f} s" if times else "-"
            p50 = f"{percentile(times, 50):.2f} s" if times else "-"
            row(f"kill -9 {name}: kills, recovery worst / p50", f"{len(self.kills[name])}, {worst} / {p50}", not failed)
            if name != "daemon":
                healthy = [r for r in self.healthy_kills[name] if isinstance(r, float)]
                row(f"  of those after >= {HEALTHY_RESET_S:g} s up (restarted at once): kills, worst / p50",
                    f"{len(self.healthy_kills[name])}, " + (f"{max(healthy):.2f} s / {percentile(healthy, 50):.2f} s" if healthy else "- / -"))
        fd_ok = end[0] <= start[0] + 16
        rss_ok = end[1] <= max(2 * start[1], start[1] + 64 * 1024 * 1024)
        row("daemon file descriptors start / end", f"{start[0]} / {end[0]}", fd_ok)
        row("daemon RSS start / end", f"{start[1] / 1048576:.1f} MiB / {end[1] / 1048576:.1f} MiB", rss_ok)
        procs = self.daemon.home_processes()
        expected_procs = 1 + len(PLUGINS) + self.total_sessions
        row("processes of the home at the end (expected)", f"{len(procs)} ({expected_procs})", len(procs) <= expected_procs)
        violations = self.fake.call("GET", "/violations?severity=error")["violations"]
        kinds = {}
        for v in violations:
            kinds[v.get("kind")] = kinds.get(v.get("kind"), 0) + 1
        stats = self.fake.call("GET", "/stats")
        # A restarted plugin knows the buckets its predecessor saved, but not a request taken just
        # before a kill -9 (of it or of the daemon) and not yet saved: at most one 429 per kill. Discord counts
        # a 429 as an invalid request; any other (401, 403) is a bug.
        discord_429 = stats.get("rate_limited_429") or 0
        discord_invalid = stats.get("invalid_requests") or 0
        bound_429 = len(self.kills["discord"]) + len(self.kills["daemon"])
        row(f"Discord 429s (at most {bound_429}, one per kill -9) / invalid requests (no more than the 429s)",
            f"{discord_429} / {discord_invalid}", discord_429 <= bound_429 and discord_invalid <= discord_429)
        row("Discord error-level violations", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "0", not violations)
        tg_violations = self.tg.call("GET", "/violations?severity=error")["violations"]
        # Telegram cannot be read back: an edit it took just before a kill -9 of the plugin, not
        # yet recorded, is in doubt, and the final answer makes it again rather than risk leaving
        # the answer unshown (Telegram answers "not modified", which the spec says to take as
        # success). At most one per chat and kill; any other violation is a bug.
        repeated = [v for v in tg_violations if v.get("kind") == "message_not_modified"]
        repeat_bound = len(self.kills["telegram"]) * len(TG_ALLOWED)
        row(f"Telegram edits in doubt after a kill -9, made again (at most {repeat_bound})", len(repeated),
            len(repeated) <= repeat_bound)
        tg_violations = [v for v in tg_violations if v.get("kind") != "message_not_modified" or len(repeated) > repeat_bound]
        tg_kinds = {}
        for v in tg_violations:
            tg_kinds[v.get("kind")] = tg_kinds.get(v.get("kind"), 0) + 1
        requests = self.tg.call("GET", "/requests", timeout=120)["requests"]
        row("Telegram Bot API requests / 429s",
            f"{len(requests)} / {sum(1 for r in requests if r.get('status') == 429)}")
        row("Telegram error-level violations", ", ".join(f"{k} {n}" for k, n in sorted(tg_kinds.items())) or "0",
            not tg_violations)
        sl_violations = self.sl.call("GET", "/violations?severity=error")["violations"]
        sl_calls = self.sl.call("GET", "/calls", timeout=120)["calls"]
        row("Slack Web API calls / 429s", f"{len(sl_calls)} / {sum(1 for c in sl_calls if c.get('error') == 'ratelimited')}")
        row("Slack error-level violations", len(sl_violations), not sl_violations)
        row("settled", "yes" if settled else "no", settled)
        row("driver errors", len(self.errors), not self.errors)

        width = max(len(r[0]) for r in rows) + 2
        print()
        print(f"soak: {self.args.seconds} s, {self.args.sessions} Discord + {len(TG_ALLOWED)} Telegram + {len(SL_ALLOWED)} Slack sessions, "
              f"daemon kills {'on' if self.args.daemon_kills else 'off'}, seed {self.args.seed} (replay: make soak SOAK_SEED={self.args.seed})")
        print(f"{'':<{width}}{'':>28}")
        for label, value, ok in rows:
            print(f"{label:<{width}}{str(value):>28}{'' if ok else '   FAIL'}")
        details = []
        for name, f in (("Discord", dc), ("Telegram", tg), ("Slack", sl)):
            details += [(f"{name}: lost before pi", f["lost_in"]), (f"{name}: duplicated to pi", f["dup_in"]),
                        (f"{name}: unauthorized in pi", f["evil_in"]), (f"{name}: finals duplicated", f["final_dup"]),
                        (f"{name}: finals lost", f["final_lost"]), (f"{name}: never answered", f["never"]),
                        (f"{name}: stray messages", f["stray"]), (f"{name}: cut runs not announced", f["unannounced"]),
                        (f"{name}: live messages left behind by a plugin kill", f["left_behind"])]
        details += [("Discord: error-level violations", [f"{v.get('kind')}: {v.get('detail')}" for v in violations])]
        details += [("Telegram: not queued", self.lost_by_telegram), ("Telegram: updates not confirmed", unconfirmed),
                    ("Telegram: error-level violations", [f"{v.get('kind')}: {v.get('detail')}" for v in tg_violations]),
                    ("Slack: not made an event", self.lost_by_slack), ("Slack: envelopes acked late", late),
                    ("Slack: error-level violations", [f"{v.get('method')}: {v.get('detail')}" for v in sl_violations]),
                    ("questions not applied", not_applied), ("dead sessions", dead), ("driver errors", self.errors)]
        for label, items in details:
            if items:
                print(f"{label}: {items[:20]}{' …' if len(items) > 20 else ''}")
        print(f"work folder: {self.root}")
        return 1 if fails else 0

    def figures(self, messenger, pi_counts, produced):
        """Inbound and finals for one messenger's places, from the outside only."""
        mine = {m: s for m, s in self.sent.items() if messenger_of(s["channel"]) == messenger}
        allowed = {m: s for m, s in mine.items() if s["kind"] in ("prompt", "question", "probe")}
        once = [m for m in allowed if pi_counts.get(m, 0) == 1]
        lost_in = sorted(m for m in allowed if pi_counts.get(m, 0) == 0)
        dup_in = sorted(m for m in allowed if pi_counts.get(m, 0) > 1)
        evil = [m for m, s in mine.items() if s["kind"] == "evil"]
        evil_in = sorted(m for m in evil if pi_counts.get(m, 0) > 0)

        places = [p for p in self.places if messenger_of(p) == messenger]
        if messenger == "telegram":
            places += [tg_place(u) for u in TG_REFUSED]
        if messenger == "slack":
            places += [sl_place(u) for u in SL_REFUSED]  # their chats: one refusal each, nothing else
        shown = {}
        stray, notices, partial, partial_repeats = [], 0, [], []
        cut_notices = {}  # place -> ids of "the answer in progress was cut off" notices
        seen_in = {}      # marker -> [(place, message id)]
        shown_by = {}     # marker -> [message]
        left_behind = []  # live messages a kill -9 of the plugin left as they were (see below)
        for place in places:
            maybe_partial = []
            for message in self.bot_messages(place, files=True):
                text, mid = message["text"], message["id"]
                found = re.findall(r"Echo: (SOAKP\d{6}|SOAKZ\d{6})", text)
                for m in found:
                    shown[m] = shown.get(m, 0) + 1
                    seen_in.setdefault(m, []).append((place, mid))
                    shown_by.setdefault(m, []).append(message)
                if "was cut off" in text:
                    cut_notices.setdefault(place, []).append(mid)
                    continue
                if text.startswith(("⚠️", "ℹ️")):
                    notices += 1
                    continue
                if not found and not any(k in text for k in KNOWN_MESSAGES):
                    maybe_partial.append((mid, text, message))
            for mid, text, message in maybe_partial:
                # The live message of a run a daemon kill cut off stays as it was; the restarted
                # daemon says so below it. Anything else is a message nobody should see.
                if any(n > mid for n in cut_notices.get(place, [])):
                    partial.append(mid)
                elif text.startswith("Echo:") and self.left_by_kill(messenger, [message]):
                    left_behind.append(f"{place} {mid}")
                else:
                    stray.append(f"{place} {mid}: {text[:80]!r}")
        # A prompt whose run a daemon kill cut off shows in the run's live message, left as it
        # was above the cut-off notice, and again in a later answer (pi answers what its session
        # file holds unanswered). That is one answer, not two.
        for m, places_seen in seen_in.items():
            if len(places_seen) < 2:
                continue
            notes = cut_notices.get(places_seen[0][0], [])
            ids = sorted(mid for _, mid in places_seen)
            if all(any(a < n < b for n in notes) for a, b in zip(ids, ids[1:])):
                shown[m] = 1
                partial_repeats.append(m)
            elif self.left_by_kill(messenger, sorted(shown_by[m], key=lambda x: x["id"])):
                shown[m] = 1
                left_behind.append(m)
        expected = [m for m in produced if m in allowed]
        final_once = [m for m in expected if shown.get(m, 0) == 1]
        final_dup = sorted(m for m in shown if shown[m] > 1)
        interrupted, final_lost = [], []
        for m in expected:
            if shown.get(m, 0) == 0:
                # pi wrote the answer, but the run it belonged to was still going when the
                # daemon's kill took pi with it: that run never ended, so it has no final.
                t = produced[m]
                if any(t - 1 <= k <= t + 30 for k in self.daemon_kill_times):
                    interrupted.append(m)
                else:
                    final_lost.append(m)
        unanswered = [m for m in allowed if allowed[m]["kind"] != "question" and pi_counts.get(m, 0) >= 1 and m not in produced]
        cut = [m for m in unanswered if any(k >= allowed[m]["time"] - 1 for k in self.daemon_kill_times)]
        merged = [m for m in unanswered if m in self.answers.merged]
        never = sorted(set(unanswered) - set(cut) - set(merged))
        # Every prompt whose run a daemon kill cut off must be followed by the restarted daemon's
        # word in its chat.
        unannounced = sorted(m for m in interrupted + cut
                             if not any(n > int(allowed[m]["id"] or 0) for n in cut_notices.get(allowed[m]["channel"], [])))
        return {"allowed": allowed, "once": once, "lost_in": lost_in, "dup_in": dup_in, "evil": evil, "evil_in": evil_in,
                "expected": expected, "final_once": final_once, "final_dup": final_dup, "final_lost": final_lost,
                "interrupted": interrupted, "cut": cut, "merged": merged, "never": never, "unannounced": unannounced,
                "stray": stray, "notices": notices, "partial": len(partial) + len(partial_repeats),
                "cut_notices": sum(len(v) for v in cut_notices.values()), "left_behind": left_behind}

    def left_by_kill(self, messenger, messages):
        """Whether the messages before the last one are live views of a run that a kill -9 of
        the plugin (or of the daemon, with its plugins) left as they were: each stopped changing before a kill (at most 60 s before),
        and the message after it was made after that kill. The Telegram plugin keeps its live
        messages in memory only, so the restarted plugin posts the final anew below them."""
        kills = self.plugin_kill_times.get(messenger, []) + self.daemon_kill_times  # a daemon kill takes its plugins
        for before, after in zip(messages, messages[1:] + [None]):
            if after is None and len(messages) > 1:
                break  # the last one is the answer itself
            if not any(k - 60 <= before.get("changed", 0) <= k + 1
                       and (after is None or after.get("created", 0) >= k - 1) for k in kills):
                return False
        return True

    def attachment_text(self, attachment):
        if not attachment.get("filename", "").endswith((".md", ".txt")):
            return ""
        try:
            with urllib.request.urlopen(attachment["url"], timeout=60) as r:
                return r.read().decode("utf-8", errors="replace")
        except (OSError, KeyError) as e:
            self.errors.append(f"reading attachment {attachment.get('filename')}: {e}")
            return ""

    def cleanup(self):
        self.daemon.stop()
        for pid in self.daemon.home_processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.fake.stop()
        self.tg.stop()
        self.sl.stop()
        if not self.args.keep:
            shutil.rmtree(self.root, ignore_errors=True)


def soak_arguments(description):
    """The arguments every soak takes: where the binaries are, how long, the seed, --keep."""
    p = argparse.ArgumentParser(description=description.split("\n\n")[0])
    p.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"), help="folder with pi-relayd and pi-relay-*")
    p.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS") or 600))
    p.add_argument("--seed", type=int, default=int(time.time()))
    p.add_argument("--keep", action="store_true", help="keep the work folder")
    return p


def run_and_exit(soak, args):
    """Runs a soak, keeps its work folder when it failed, and exits with its code."""
    code = 1
    try:
        code = soak.run()
    finally:
        if code != 0:
            args.keep = True
        soak.cleanup()
    sys.exit(code)


def main():
    p = soak_arguments(__doc__)
    p.add_argument("--sessions", type=int, default=10)
    p.add_argument("--daemon-kills", choices=["auto", "on", "off"], default="auto",
                   help="kill -9 the daemon every few minutes (auto: in runs of 300 s or more)")
    args = p.parse_args()
    if args.sessions < 10:
        p.error("the soak runs at least 10 sessions")
    args.bin = os.path.abspath(args.bin)
    args.daemon_kills = args.daemon_kills == "on" or (args.daemon_kills == "auto" and args.seconds >= 300)
    run_and_exit(Soak(args), args)


if __name__ == "__main__":
    main()

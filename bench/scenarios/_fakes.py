"""The fake services the messenger scenarios run against (Tests/Fakes: fake_discord,
fake_telegram, fake_slack), with the bench's tokens and users, started on free ports."""
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

GUILD = "1100000000000000001"
USER = "1400000000000000001"
TOKEN = "bench.fake.token"
TG_TOKEN = "7000000001:BENCHtelegramSecretQ1w2e3r4t5"
SL_BOT_TOKEN = "xoxb-5555-6666-BENCHslackBotSecretP0o9i8"
SL_APP_TOKEN = "xapp-1-A0FAKEAPP-7777-BENCHslackAppSecretL1k2"


class Fake:
    """The fake Discord (gateway and REST), its rate limits on, with the bench's guild, user and
    `channels` (id, name) pairs."""

    def __init__(self, ctx, work, channels):
        here = os.path.join(ctx.root, "Tests", "Fakes", "fake_discord")
        port_file = os.path.join(work, "fake-port.json")
        if os.path.exists(port_file):
            os.unlink(port_file)
        args = ["python3", os.path.join(here, "fake_discord.py"), "--port", "0", "--control-port-file", port_file,
                "--token", TOKEN, "--spec", os.path.join(here, "discord-openapi.json"), "--guild", GUILD,
                "--user", f"{USER}:alice", "--transcript", os.path.join(work, "transcript.txt"), "--channel"]
        args += [f"{cid}:{name}" for cid, name in channels]
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

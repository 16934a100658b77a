#!/usr/bin/env python3
"""make soak SOAK_PROFILE=federated: one Telegram bot on three machines' daemons, joined through a
real PostgreSQL (docs/FEDERATION.md), under steady chat traffic while the machine that holds the
bot is killed again and again.

For SECONDS (SOAK_SECONDS; CI runs 60):

* a PostgreSQL cluster made by initdb in a temporary folder, on loopback; the fake Telegram; three
  daemons with the real formatter and federation plugins and the fake pi: the laptop (preferred)
  and the desktop have the bot token and the telegram plugin; the server has neither (no
  telegram section, no `federation.ingress`) and runs the sessions, so they outlive every kill;
* three allowed Telegram users, each with their chat on a server session of its own
  (`/use server fNN`), write to it all the time: a prompt every 0.5 to 2 s, "FSOAK<n> <words>";
* every 15 to 25 s the machine that holds the bot dies outright (SIGKILL to its daemon and every
  plugin it started), and is started again 3 s later (it stands by).

Then the traffic stops and everything settles. The table counts, from the outside only:

* prompts written, and how many reached the server's pi exactly once (FAKE_PI_LOG): none may be
  lost or reach it twice;
* answers: every prompt pi got is in its chat (the bot's messages as they are now); an answer
  shown twice is counted, not failed: a post in flight when the holder changes may be posted
  again by the next holder (docs/FEDERATION.md says so);
* every update the fake Telegram queued is confirmed by the end;
* the kills, and the time from each kill to the next holder (p50 and worst).

It exits 1 on a lost or doubled prompt, a lost answer, or an update never confirmed.
"""
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time

from soak import FAKE_PI, TG_ALLOWED, TG_TOKEN, Daemon, FakeTelegram, log, percentile, read_lines, run_and_exit, soak_arguments

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from scenarios._postgres import Postgres, bin_dir  # noqa: E402  (the bench's PostgreSQL, test-side code)

MARKER = re.compile(r"\bFSOAK\d{6}\b")
WORDS = "relay lease epoch holder standby failover outbox cursor claim".split()
HOLDERS = ("laptop", "desktop")


class Machine(Daemon):
    """One machine's pi-relayd in a throw-away home (the soak's Daemon, with this profile's config)."""

    def __init__(self, bin_dir, root, name, tg, database_url, pi_log):
        self.bin = bin_dir
        self.name = name
        self.home = os.path.join(root, name, "h")
        self.scratch = os.path.join(root, name, "t")
        self.work = os.path.join(root, name, "w")
        agent = os.path.join(root, name, "agent")
        for d in (self.home, os.path.join(self.home, "plugins"), self.scratch, self.work, agent):
            os.makedirs(d, mode=0o700, exist_ok=True)
        os.chmod(self.home, 0o700)
        self.sock = os.path.join(self.home, "relayd.sock")
        # The server is set up as a user would set up a machine without the token: no telegram
        # plugin or section, no `federation.ingress`.
        for plugin in ("formatter", "telegram", "federation") if name in HOLDERS else ("formatter", "federation"):
            exe = os.path.join(bin_dir, "pi-relay-" + plugin)
            if not os.access(exe, os.X_OK):
                raise SystemExit(f"soak: {exe} is not built (make build)")
            os.symlink(exe, os.path.join(self.home, "plugins", plugin))
        config = {
            "machine": name,
            "plugins": {"pingIntervalSeconds": 2, "pingTimeoutSeconds": 30, "handshakeTimeoutSeconds": 30},
            "logs": {"level": "info"},
            "pi": {"command": FAKE_PI, "agentDir": agent, "startTimeoutSeconds": 120,
                   "env": {"FAKE_PI_LOG": pi_log, "FAKE_PI_DELTA_MS": "60"}},
        }
        if name in HOLDERS:
            config["telegram"] = {"apiBase": tg.base, "allowedUsers": [u for u, _ in TG_ALLOWED], "pollTimeoutSeconds": 5}
            config["federation"] = {"ingress": ["telegram"], "preferred": name == "laptop"}
        with open(os.path.join(self.home, "config.yaml"), "w") as f:
            json.dump(config, f, indent=1)  # JSON is YAML
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_RELAY", "FAKE_", "TELEGRAM_"))}
        self.env.update({"PI_RELAYD_HOME": self.home, "PI_RELAYD_BUNDLED_PLUGINS": "", "PI_RELAYD_DATABASE_URL": database_url,
                         "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
        if name in HOLDERS:
            self.env["TELEGRAM_BOT_TOKEN"] = TG_TOKEN
        self.proc = None
        self.starts = 0

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def holds_bot(self):
        if not self.alive():
            return False
        status = self.try_call("status", timeout=5) or {}
        ingress = (status.get("federation") or {}).get("ingress") or []
        return any(i.get("messenger") == "telegram" and i.get("active") for i in ingress)

    def plugin_running(self, name):
        return any(p.get("name") == name and p.get("state") == "running" for p in (self.try_call("plugins") or []))

    def kill_machine(self):
        """SIGKILL to the daemon and to every plugin it started, at once."""
        for pid in set(self.home_processes()) | {self.pid}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()


class FederatedSoak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.root = tempfile.mkdtemp(prefix="prd-fsoak-", dir="/tmp")
        self.pi_log = os.path.join(self.root, "server-pi-stdin.jsonl")
        self.db = None
        self.tg = None
        self.machines = {}
        self.sent = {}  # marker -> user id
        self.lock = threading.Lock()
        self.counter = 0
        self.stop_traffic = threading.Event()
        self.kills = []  # (machine, seconds to the next holder)

    def wait(self, what, timeout, probe, every=0.2):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if probe():
                return
            time.sleep(every)
        raise SystemExit(f"soak: {what} within {timeout} s did not happen; files in {self.root}")

    def holder(self):
        for name in HOLDERS:
            if self.machines[name].holds_bot():
                return name
        return None

    def say(self, user, text):
        return self.tg.call("POST", "/messages", {"from": {"id": int(user[0]), "first_name": user[1], "username": user[1]},
                                                  "chat": {"id": int(user[0]), "type": "private"}, "text": text})

    def start(self):
        if not bin_dir():
            raise SystemExit("soak: PostgreSQL is not installed (make deps installs postgresql)")
        self.db = Postgres().start()
        self.tg = FakeTelegram(self.root)
        for name in ("laptop", "desktop", "server"):
            self.machines[name] = Machine(self.args.bin, self.root, name, self.tg, self.db.url, self.pi_log)
        for m in self.machines.values():
            m.start()
        for m in self.machines.values():
            self.wait(f"{m.name}'s federation plugin running", 90, lambda m=m: m.plugin_running("federation"))
        server = self.machines["server"]
        for i in range(len(TG_ALLOWED)):
            cwd = os.path.join(server.work, f"f{i:02d}")
            os.makedirs(cwd, exist_ok=True)
            server.call("new", {"cwd": cwd, "name": f"f{i:02d}"}, timeout=120)
        self.wait("a machine holding the bot", 60, lambda: self.holder() is not None)
        self.wait("the server's sessions listed on the holder", 30, lambda: len([
            s for m in ((self.machines[self.holder() or "laptop"].try_call("status") or {}).get("federation") or {}).get("machines", [])
            for s in m.get("sessions", [])]) >= len(TG_ALLOWED))
        for i, user in enumerate(TG_ALLOWED):
            self.say(user, f"/use server f{i:02d}")
        for i, user in enumerate(TG_ALLOWED):
            self.wait(f"{user[1]} watching f{i:02d}", 60,
                      lambda user=user, i=i: any(f"Watching f{i:02d}" in (m.get("text") or "") for m in self.tg.messages(user[0])))

    def traffic(self, user):
        while not self.stop_traffic.is_set():
            with self.lock:
                self.counter += 1
                marker = f"FSOAK{self.counter:06d}"
                self.sent[marker] = user[0]
            self.say(user, marker + " " + " ".join(self.rng.choice(WORDS) for _ in range(4)))
            self.stop_traffic.wait(self.rng.uniform(0.5, 2.0))

    def killer(self, until):
        """Kills the holder about every 20 s (15 to 25 from one kill to the next), once the other
        machine with the token runs its telegram plugin."""
        next_at = time.monotonic() + self.rng.uniform(10, 20)
        while next_at < until - 5:
            time.sleep(max(0.0, next_at - time.monotonic()))
            dead = self.holder()
            others = [n for n in HOLDERS if n != dead]
            if dead is None or not all(self.machines[n].plugin_running("telegram") for n in others):
                next_at = time.monotonic() + 1
                continue
            killed_at = time.monotonic()
            self.machines[dead].kill_machine()
            log(f"killed {dead} (it held the bot)")
            try:
                self.wait("another machine taking the bot", 60, lambda: self.holder() not in (None, dead), every=0.1)
                self.kills.append((dead, time.monotonic() - killed_at))
            finally:
                time.sleep(3)
                self.machines[dead].start()
            next_at = killed_at + self.rng.uniform(15, 25)

    def pi_counts(self):
        counts = {}
        for line in read_lines(self.pi_log):
            try:
                cmd = json.loads(line)
            except ValueError:
                continue
            if cmd.get("type") in ("prompt", "steer", "follow_up"):
                for marker in MARKER.findall(cmd.get("message") or ""):
                    counts[marker] = counts.get(marker, 0) + 1
        return counts

    def shown(self):
        """How many of the bot's messages (as they are now) show each marker."""
        counts = {}
        for user in TG_ALLOWED:
            for message in self.tg.messages(user[0]):
                for marker in set(MARKER.findall(message.get("text") or "")):
                    counts[marker] = counts.get(marker, 0) + 1
        return counts

    def run(self):
        log(f"federated soak: {self.args.seconds} s, seed {self.args.seed}, in {self.root}")
        self.start()
        until = time.monotonic() + self.args.seconds
        threads = [threading.Thread(target=self.traffic, args=(user,), daemon=True) for user in TG_ALLOWED]
        for t in threads:
            t.start()
        self.killer(until)
        time.sleep(max(0.0, until - time.monotonic()))
        self.stop_traffic.set()
        for t in threads:
            t.join()
        for name in HOLDERS:
            if not self.machines[name].alive():
                self.machines[name].start()
        sent = set(self.sent)
        self.wait("every prompt at the server's pi", 180, lambda: sent <= set(self.pi_counts()), every=1)
        got = self.pi_counts()
        self.wait("every answer in its chat", 180, lambda: set(got) <= set(self.shown()), every=1)
        time.sleep(5)
        self.wait("every update confirmed", 60, lambda: not self.tg.call("GET", "/updates").get("pending"), every=1)

        got, shown = self.pi_counts(), self.shown()
        lost = sorted(m for m in sent if got.get(m, 0) == 0)
        twice = sorted(m for m in sent if got.get(m, 0) > 1)
        unanswered = sorted(m for m in got if shown.get(m, 0) == 0)
        doubled = sorted(m for m in got if shown.get(m, 0) > 1)
        takeovers = [s for _, s in self.kills]
        rows = [
            ("prompts written", len(sent)),
            ("prompts at pi exactly once", len(sent) - len(lost) - len(twice)),
            ("prompts lost", len(lost)),
            ("prompts at pi twice or more", len(twice)),
            ("answers not in their chat", len(unanswered)),
            ("answers shown twice (a post in flight at a change)", len(doubled)),
            ("kills of the holder", len(self.kills)),
            ("kill → next holder p50 s", round(percentile(takeovers, 50), 1) if takeovers else "-"),
            ("kill → next holder worst s", round(max(takeovers), 1) if takeovers else "-"),
        ]
        width = max(len(k) for k, _ in rows)
        print("\nfederated soak")
        for k, v in rows:
            print(f"  {k.ljust(width)}  {v}")
        for what, markers in (("lost", lost), ("twice", twice), ("unanswered", unanswered), ("shown twice", doubled)):
            if markers:
                print(f"  {what}: {' '.join(markers[:20])}")
        failed = bool(lost or twice or unanswered) or (self.args.seconds >= 40 and not self.kills)
        print("FAIL" if failed else "ok")
        return 1 if failed else 0

    def cleanup(self):
        for m in self.machines.values():
            m.stop()
        if self.tg:
            self.tg.stop()
        if self.db:
            self.db.stop()
        if not self.args.keep:
            shutil.rmtree(self.root, ignore_errors=True)
        else:
            log(f"kept {self.root}")


def main():
    args = soak_arguments(__doc__).parse_args()
    args.bin = os.path.abspath(args.bin)
    run_and_exit(FederatedSoak(args), args)


if __name__ == "__main__":
    main()

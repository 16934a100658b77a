"""9. Failover: one Telegram bot on three machines' daemons (one token, the real telegram plugin
against the fake Telegram, the real pi-relay-federation on a real PostgreSQL on loopback). The
laptop (preferred) and the desktop have the token; the server has no token and runs the session
the chat picked (`/use server work`), so the session outlives every death.

In each round the machine that holds the bot's ingress dies at once: SIGKILL to its daemon and
every plugin it started. A message is written right after, and the failover is the time from the
kill to the moment the server's pi reads that message on its stdin (the bench pi's clock, the
same CLOCK_MONOTONIC). The dead machine is started again before the next round (it stands by),
so the rounds alternate between the laptop and the desktop. Every message must reach the pi
exactly once.
"""
import os
import signal
import time

from ._postgres import Postgres, bin_dir
from ._relayd import Relayd, Rows, not_run, percentile, read_jsonl, scenario_work
from ._fakes import TG_TOKEN, FakeTelegram

ROUNDS = 4
TARGET_S = 20.0
USER = ("5200000001", "alice")
HOLDERS = ("laptop", "desktop")


def holder(machines):
    """The machine whose telegram takes the bot's updates now, or None."""
    for name in HOLDERS:
        d = machines[name]
        if d.proc is None or d.proc.poll() is not None:
            continue
        try:
            ingress = (d.call("status", timeout=5).get("federation") or {}).get("ingress") or []
        except Exception:
            continue
        if any(i.get("messenger") == "telegram" and i.get("active") for i in ingress):
            return name
    return None


def wait_holder(machines, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        name = holder(machines)
        if name:
            return name
        time.sleep(0.2)
    raise RuntimeError("no machine took the bot's updates")


def kill_machine(d):
    """SIGKILL to the daemon and to every plugin it started (they run in sessions of their own)."""
    mark = f"PI_RELAYD_HOME={d.home}".encode()
    victims = {d.pid}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    victims.add(int(pid))
        except OSError:
            pass
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    d.proc.wait()


def received(pi_log, marker):
    """When the server's pi read `marker`, each time it did (CLOCK_MONOTONIC ns)."""
    return [e["mono"] for e in read_jsonl(pi_log) if e.get("ev") == "recv" and e.get("marker") == marker]


def wait_received(pi_log, marker, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = received(pi_log, marker)
        if seen:
            return seen[0]
        time.sleep(0.05)
    raise RuntimeError(f"{marker} never reached the server's pi; see bench/work/logs/fo*")


def wait_online(machines, name, timeout=60):
    """Until a running machine lists `name` online (a restarted daemon's name is free again only
    once the dead one's heartbeat is 15 s old)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for other, d in machines.items():
            if other == name or d.proc is None or d.proc.poll() is not None:
                continue
            fed = d.call("status").get("federation") or {}
            if any(m.get("name") == name and m.get("online") for m in fed.get("machines", [])):
                return
        time.sleep(0.25)
    raise RuntimeError(f"{name} did not join again")


def run(ctx):
    if not bin_dir():
        return not_run("failover", "PostgreSQL is not installed (make deps installs postgresql)")
    plugin = ctx.exe("pi-relay-telegram")
    if not os.access(plugin, os.X_OK):
        return not_run("failover", f"{plugin} is not built")
    work, pi_log, cwd = scenario_work(ctx, "failover")
    db = Postgres().start()
    tg = FakeTelegram(ctx, work)
    machines = {}
    samples = []
    markers = []
    try:
        for name in ("laptop", "desktop", "server"):
            env = {"PI_RELAYD_DATABASE_URL": db.url, "BENCH_PI_LOG": pi_log}
            if name != "server":
                env["TELEGRAM_BOT_TOKEN"] = TG_TOKEN
            d = Relayd(ctx, "fo" + name[0], env=env)
            d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
            d.link_plugin("federation", ctx.exe("pi-relay-federation"))
            d.link_plugin("telegram", plugin)
            d.configure({
                "machine": name, "pi": {"command": d.stub("bench-pi")},
                "telegram": {"apiBase": tg.base, "allowedUsers": [USER[0]], "pollTimeoutSeconds": 5},
                "federation": {"ingress": ["telegram"], "preferred": name == "laptop"}})
            machines[name] = d
        for d in machines.values():
            d.start()
        for d in machines.values():
            d.wait_plugin("federation")
        machines["server"].call("new", {"cwd": cwd, "name": "work"})
        wait_holder(machines)
        for name in machines:
            wait_online(machines, name)
        tg.say(USER, "/use server work")
        tg.say(USER, "bench:latency:warm0q:0:10")
        wait_received(pi_log, "warm0q")
        markers.append("warm0q")
        for r in range(ROUNDS):
            dead = wait_holder(machines)
            # The machine that will take over must be up and joined.
            for name in HOLDERS:
                machines[name].wait_plugin("telegram")
            kill_machine(machines[dead])
            t0 = time.monotonic_ns()
            marker = f"fo{r:02d}q"
            tg.say(USER, f"bench:latency:{marker}:0:10")
            markers.append(marker)
            samples.append((wait_received(pi_log, marker) - t0) / 1e9)
            machines[dead].start()
            machines[dead].wait_plugin("federation")
            wait_online(machines, dead)
        time.sleep(2.0)
    finally:
        for d in machines.values():
            d.stop()
        tg.stop()
        db.stop()

    counts = [len(received(pi_log, m)) for m in markers]
    rows = Rows("failover", digits=2)
    add = rows.add

    add("holder killed → next message at a session, p50 s", percentile(samples, 50))
    add("holder killed → next message at a session, max s", max(samples), f"< {TARGET_S:g} s", max(samples) < TARGET_S)
    add("messages lost / acted on twice", f"{counts.count(0)} / {sum(1 for c in counts if c > 1)}", "0 / 0",
        counts.count(0) == 0 and all(c <= 1 for c in counts))
    add("failovers (laptop and desktop in turn)", len(samples))
    return rows

"""9. Startup: `pi-relayd start` to ready, and a `status` round trip.

ready:    the daemon started in the foreground with three messengers configured (the real
          discord, telegram and slack plugins, each against its fake service from Tests/Fakes)
          and the formatter. Ready is the first moment its control socket answers `plugins` with
          all four `running` (welcomed: the hello read, the welcome sent), polled every 2 ms from
          the bench's clock read just before the exec. Baseline, interleaved run by run: the
          same daemon with no plugin at all, ready when its control socket answers `ping`.
status:   `pi-relayd status` as a user types it (the CLI's exec, its connect, the answer printed),
          against the daemon with the three messengers; beside it the same control call made from
          the bench itself over the socket, which is the part the daemon owns.

Each run stops its daemon (`stop`) and waits for it to exit before the next starts.
"""
import os
import subprocess
import time

from ._relayd import Relayd, RelaydError, Rows, not_run, percentile, scenario_work
from ._fakes import GUILD, SL_APP_TOKEN, SL_BOT_TOKEN, TG_TOKEN, TOKEN, USER, Fake, FakeSlack, FakeTelegram

RUNS = 10
STATUS_RUNS = 50
READY_TARGET_MS = 300.0
STATUS_TARGET_MS = 20.0
MESSENGERS = ("discord", "telegram", "slack")
POLL_S = 0.002


def ready_ms(d, names, timeout=30.0):
    """Starts `d` and returns the ms until its control socket lists `names` all running (no
    names: until it answers `ping`)."""
    t0 = time.monotonic()
    d.spawn()
    deadline = t0 + timeout
    while time.monotonic() < deadline:
        if d.proc.poll() is not None:
            raise RelaydError(f"pi-relayd exited with {d.proc.returncode}: {d.tail('daemon.stderr')}")
        try:
            if not names:
                d.call("ping", timeout=5)
                return (time.monotonic() - t0) * 1000
            listed = {p["name"]: p.get("state") for p in d.call("plugins", timeout=5) or []}
            if all(listed.get(n) == "running" for n in names):
                return (time.monotonic() - t0) * 1000
        except (OSError, RelaydError):
            pass
        time.sleep(POLL_S)
    raise RelaydError(f"not ready within {timeout:.0f} s: {d.tail('daemon.stderr')}")


def run(ctx):
    work, pi_log, cwd = scenario_work(ctx, "startup")
    exes = {n: ctx.exe(f"pi-relay-{n}") for n in MESSENGERS + ("formatter",)}
    missing = [p for p in exes.values() if not os.access(p, os.X_OK)]
    if missing:
        return not_run("startup", f"{missing[0]} is not built")
    fakes = []
    try:
        discord = Fake(ctx, work, [("1200000000000000001", "bench-00")])
        fakes.append(discord)
        telegram = FakeTelegram(ctx, work)
        fakes.append(telegram)
        slack = FakeSlack(ctx, work)
        fakes.append(slack)
    except RuntimeError as e:
        for f in fakes:
            f.stop()
        return not_run("startup", str(e))
    env = {"BENCH_PI_LOG": pi_log, "DISCORD_BOT_TOKEN": TOKEN, "TELEGRAM_BOT_TOKEN": TG_TOKEN,
           "SLACK_BOT_TOKEN": SL_BOT_TOKEN, "SLACK_APP_TOKEN": SL_APP_TOKEN}
    full = Relayd(ctx, "startup", env=env)
    for name, path in exes.items():
        full.link_plugin(name, path)
    full.configure({"pi": {"command": full.stub("bench-pi")},
                    "discord": {"apiBase": discord.base, "allowedUsers": [USER], "guilds": [GUILD]},
                    "telegram": {"apiBase": telegram.base, "allowedUsers": ["5100000001"], "pollTimeoutSeconds": 5},
                    "slack": {"apiBase": slack.base, "allowedUsers": ["UBENCHSL00"]}})
    bare = Relayd(ctx, "startup-bare", env={"BENCH_PI_LOG": pi_log})
    bare.configure({"pi": {"command": bare.stub("bench-pi")}})
    names = list(exes)
    ours, theirs, cli, direct = [], [], [], []
    try:
        for _ in range(RUNS):
            theirs.append(ready_ms(bare, []))
            bare.halt()
            ours.append(ready_ms(full, names))
            full.halt()
        # The status round trip, on a daemon that has been up a moment.
        ready_ms(full, names)
        time.sleep(1.0)
        for _ in range(STATUS_RUNS):
            t = time.monotonic()
            r = subprocess.run([ctx.exe("pi-relayd"), "status"], env=full.env, capture_output=True, text=True, timeout=30)
            cli.append((time.monotonic() - t) * 1000)
            if r.returncode != 0:
                raise RelaydError(f"pi-relayd status exited {r.returncode}: {r.stderr[-300:]}")
            t = time.monotonic()
            full.call("status")
            direct.append((time.monotonic() - t) * 1000)
    except RelaydError as e:
        return not_run("startup", str(e))
    finally:
        full.stop()
        bare.stop()
        for f in fakes:
            f.stop()

    rows = Rows("startup", digits=1)
    ours.sort()
    theirs.sort()
    med, base = ours[len(ours) // 2], theirs[len(theirs) // 2]
    rows.add(f"start to ready, 3 messengers + formatter (ms, median of {RUNS})", med,
             f"< {READY_TARGET_MS:.0f} ms", med < READY_TARGET_MS)
    rows.add("start to ready, worst (ms)", ours[-1])
    rows.add("start to ready, no plugins, baseline (ms, median)", base)
    rows.add("start to ready / baseline", med / max(base, 0.001))
    p50, p99 = percentile(cli, 50), percentile(cli, 99)
    rows.add(f"pi-relayd status, the CLI (ms, p50 of {STATUS_RUNS})", p50)
    rows.add(f"pi-relayd status, the CLI (ms, p99 of {STATUS_RUNS})", p99, f"< {STATUS_TARGET_MS:.0f} ms", p99 < STATUS_TARGET_MS)
    rows.add(f"status over the socket from the bench (ms, p99 of {STATUS_RUNS})", percentile(direct, 99))
    return rows

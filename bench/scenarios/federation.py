"""8. Federation: a chat on one machine's daemon driving a session on another's, over a real
PostgreSQL on loopback (the server's default durability: fsync and synchronous_commit on).

Two daemons on this machine: the laptop with the bench messenger, the desktop with the bench pi
behind its sessions; each with the real formatter and pi-relay-federation, on one database.
The laptop has sessions of its own too. Samples alternate on a fixed grid between a local
session and a remote one (`/use desktop NAME`), so both are measured in the same run:

inbound:  the bench messenger writes a chat.message (t_send) → laptop → federation → database →
          desktop → the bench pi reads the prompt on its stdin (t_recv).
outbound: the bench pi writes a text_delta with a marker (t_emit) → desktop → its formatter →
          federation → database → laptop → the messenger's chat.live (t_live): the remote
          stream's first visible text.

Both sides' clocks are this machine's CLOCK_MONOTONIC.
"""
import os
import time

from ._postgres import Postgres, bin_dir
from ._relayd import Relayd, Rows, marker_times, not_run, percentile, scenario_work

SESSIONS = 2
PERIOD = 0.4
DELAY_MS = 500
END_MS = 80
WARMUP = 6
SAMPLES = 60
REMOTE_TARGET_MS = 20.0
OVER_LOCAL_TARGET_MS = 100.0


def chat(kind, i):
    return {"channel": f"{kind}{i}", "user": "42", "userName": "bench", "dm": False, "mentioned": True}


def run(ctx):
    if not bin_dir():
        return not_run("federation", "PostgreSQL is not installed (make deps installs postgresql)")
    work, pi_log, cwd = scenario_work(ctx, "federation")
    msg_log = os.path.join(work, "messenger.jsonl")

    db = Postgres().start()
    env = {"BENCH_PI_LOG": pi_log, "BENCH_MESSENGER_LOG": msg_log, "PI_RELAYD_DATABASE_URL": db.url}
    laptop = Relayd(ctx, "fedl", env=env)
    desktop = Relayd(ctx, "fedd", env=env)
    for d, name in ((laptop, "laptop"), (desktop, "desktop")):
        d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
        d.link_plugin("federation", ctx.exe("pi-relay-federation"))
        config = {"machine": name, "pi": {"command": d.stub("bench-pi")}}
        if d is laptop:
            d.link_plugin("bench-messenger", d.stub("bench-messenger"))
            config["bench-messenger"] = {"allowedUsers": ["42"]}
        d.configure(config)
    try:
        desktop.start()
        laptop.start()
        for d in (laptop, desktop):
            d.wait_plugin("formatter")
            d.wait_plugin("federation")
        laptop.wait_plugin("bench-messenger")
        for i in range(SESSIONS):
            desktop.call("new", {"cwd": cwd, "name": f"rem{i}"})
            laptop.call("new", {"cwd": cwd, "name": f"loc{i}"})
        # The laptop hears of the desktop's sessions (published every two seconds).
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            fed = laptop.call("status").get("federation") or {}
            names = {s.get("name") for m in fed.get("machines", []) for s in m.get("sessions", [])}
            if all(f"rem{i}" in names for i in range(SESSIONS)):
                break
            time.sleep(0.25)
        else:
            raise RuntimeError("the laptop never listed the desktop's sessions")
        for i in range(SESSIONS):
            for kind, key in (("loc", f"loc{i}"), ("rem", f"desktop rem{i}")):
                r = laptop.plugin_call("bench-messenger", "call", {"method": "chat.command", "params": {
                    "chat": chat(kind, i), "name": "use", "args": {"session": key}}})
                if "Watching" not in str(r):
                    raise RuntimeError(f"/use {key} failed: {r}")
        total = WARMUP + SAMPLES
        start = time.monotonic() + 0.5
        for n in range(2 * total):
            due = start + n * PERIOD
            time.sleep(max(0.0, due - time.monotonic()))
            kind = "loc" if n % 2 == 0 else "rem"
            marker = f"mk{n:04d}q"
            laptop.plugin_call("bench-messenger", "send", {"tag": marker, "method": "chat.message", "params": {
                "chat": chat(kind, (n // 2) % SESSIONS), "messageId": f"f{n}", "attachments": [],
                "text": f"bench:latency:{marker}:{DELAY_MS}:{END_MS}"}})
        time.sleep(DELAY_MS / 1000 + 2.0)
    finally:
        laptop.stop()
        desktop.stop()
        db.stop()

    sends, lives, recvs, emits = marker_times(msg_log, pi_log)
    figures = {}
    for kind, parity in (("local", 0), ("remote", 1)):
        keep = [f"mk{n:04d}q" for n in range(2 * WARMUP, 2 * total) if n % 2 == parity]
        figures[kind] = (
            [(recvs[m] - sends[m]) / 1e6 for m in keep if m in recvs and m in sends],
            [(lives[m] - emits[m]) / 1e6 for m in keep if m in lives and m in emits],
        )
    rows = Rows("federation")
    add = rows.add

    for kind in ("local", "remote"):
        inbound, outbound = figures[kind]
        if not inbound or not outbound:
            raise RuntimeError(f"no {kind} samples (inbound {len(inbound)}, outbound {len(outbound)}); see the logs")
        for name, xs in ((f"chat → {kind} pi stdin", inbound), (f"{kind} pi's first text → chat", outbound)):
            add(f"{name} p50 ms", percentile(xs, 50))
            p99 = percentile(xs, 99)
            if kind == "remote" and "stdin" in name:
                add(f"{name} p99 ms", p99, f"< {REMOTE_TARGET_MS:g} ms", p99 < REMOTE_TARGET_MS)
            else:
                add(f"{name} p99 ms", p99)
            add(f"{name} max ms", max(xs))
    over = percentile(figures["remote"][1], 99) - percentile(figures["local"][1], 99)
    add("remote first text p99 over the local one, ms", over, f"< {OVER_LOCAL_TARGET_MS:g} ms", over < OVER_LOCAL_TARGET_MS)
    add("samples local / remote (of each)", f"{len(figures['local'][0])} / {len(figures['remote'][0])} ({SAMPLES})")
    return rows

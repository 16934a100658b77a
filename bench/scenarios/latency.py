"""2. End-to-end latency on loopback, through the real formatter plugin.

inbound:  the bench messenger writes a chat.message (t_send) → pi-relayd → the bench pi reads
          the prompt line on its stdin (t_recv).
outbound: the bench pi writes a message_update text_delta holding a marker (t_emit) → pi-relayd
          → format.live on the formatter → chat.live notify read by the messenger (t_live).

No deliberate coalescing delay is in the outbound figure: the relay sends no live view for a
run with nothing to show, so the marker delta is the run's first view and goes out at once, and
it is written 0.5 s after agent_start anyway, more than the 400 ms live throttle. Several
sessions take turns on a fixed 0.4 s grid so samples come quickly but never overlap: in each
slot the prompt goes out at 0 ms, a marker at ~100 ms, a finished run's final answer at
~200 ms and the baseline sample at 300 ms.

Baseline, interleaved with the samples: a line written by this Python process through `cat`
to a Python reader (two pipe hops through a relay process that does no work), timed the same
way. It is the floor the machine sets for any relay of two Python endpoints.
"""
import json
import os
import subprocess
import sys
import time

from ._relayd import Relayd, Rows, install_stub, marker_times, percentile

SESSIONS = 4
PERIOD = 0.4       # seconds between samples
DELAY_MS = 500     # agent_start → marker delta (> the 400 ms live throttle)
END_MS = 80        # marker → agent_end
BASELINE_AT = 0.3  # offset of the baseline sample in each slot
WARMUP = 8
SAMPLES = 100
TARGET_MS = 2.0


def chat(i):
    return {"channel": f"lat{i}", "user": "42", "userName": "bench", "dm": False, "mentioned": True}


def run(ctx):
    work = os.path.join(ctx.work, "latency")
    os.makedirs(work, exist_ok=True)
    for n in os.listdir(work):
        if os.path.isfile(os.path.join(work, n)):
            os.unlink(os.path.join(work, n))
    pi_log = os.path.join(work, "pi.jsonl")
    msg_log = os.path.join(work, "messenger.jsonl")
    base_log = os.path.join(work, "baseline.txt")
    cwd = os.path.join(work, "project")
    os.makedirs(cwd, exist_ok=True)

    d = Relayd(ctx, "latency", env={"BENCH_PI_LOG": pi_log, "BENCH_MESSENGER_LOG": msg_log})
    d.link_plugin("bench-messenger", d.stub("bench-messenger"))
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    d.configure({"pi": {"command": d.stub("bench-pi")}, "bench-messenger": {"allowedUsers": ["42"]}})

    reader = install_stub("pipe-reader", os.path.join(d.scratch, "pipe-reader"))
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    rd = subprocess.Popen([reader, base_log], stdin=cat.stdout)
    cat.stdout.close()
    base_send = {}
    with d:
        d.wait_plugin("formatter")
        d.wait_plugin("bench-messenger")
        for i in range(SESSIONS):
            d.call("new", {"cwd": cwd, "name": f"lat{i}"})
            r = d.plugin_call("bench-messenger", "call", {"method": "chat.command", "params": {
                "chat": chat(i), "name": "use", "args": {"session": f"lat{i}"}}})
            if "Watching" not in str(r):
                raise RuntimeError(f"/use lat{i} failed: {r}")
        fd = cat.stdin.fileno()
        total = WARMUP + SAMPLES
        start = time.monotonic() + 0.5
        for n in range(total):
            due = start + n * PERIOD
            time.sleep(max(0.0, due - time.monotonic()))
            marker = f"mk{n:04d}q"
            d.plugin_call("bench-messenger", "send", {"tag": marker, "method": "chat.message", "params": {
                "chat": chat(n % SESSIONS), "messageId": f"m{n}", "attachments": [],
                "text": f"bench:latency:{marker}:{DELAY_MS}:{END_MS}"}})
            time.sleep(max(0.0, due + BASELINE_AT - time.monotonic()))
            b = f"bk{n:04d}q"
            base_send[b] = time.monotonic_ns()
            os.write(fd, (b + "\n").encode())
        time.sleep(DELAY_MS / 1000 + 1.5)
    cat.stdin.close()
    rd.wait(timeout=10)
    cat.wait(timeout=10)

    sends, lives, recvs, emits = marker_times(msg_log, pi_log)
    base_recv = {}
    with open(base_log) as f:
        for line in f:
            k, t = line.split()
            base_recv[k] = int(t)
    keep = [f"mk{n:04d}q" for n in range(WARMUP, WARMUP + SAMPLES)]
    inbound = [(recvs[m] - sends[m]) / 1e6 for m in keep if m in recvs and m in sends]
    outbound = [(lives[m] - emits[m]) / 1e6 for m in keep if m in lives and m in emits]
    base = [(base_recv[k] - base_send[k]) / 1e6 for k in (f"bk{n:04d}q" for n in range(WARMUP, WARMUP + SAMPLES))
            if k in base_recv]
    if not inbound or not outbound:
        raise RuntimeError(f"no samples (inbound {len(inbound)}, outbound {len(outbound)}); see bench/work/logs/latency")
    with open(os.path.join(work, "samples.json"), "w") as f:
        json.dump({"inbound_ms": inbound, "outbound_ms": outbound, "baseline_ms": base}, f)

    ctx.chart("latency", "One hop on loopback, through the real formatter", "ms",
              [("messenger → pi stdin", inbound), ("pi stdout → messenger", outbound), ("baseline: python → cat → python", base)],
              TARGET_MS)
    rows = Rows("latency")
    add = rows.add

    for name, xs in (("messenger → pi stdin", inbound), ("pi stdout → messenger", outbound)):
        p99 = percentile(xs, 99)
        add(f"{name} p50 ms", percentile(xs, 50))
        add(f"{name} p99 ms", p99, f"< {TARGET_MS:g} ms", p99 < TARGET_MS)
        add(f"{name} max ms", max(xs))
    if base:
        add("baseline python → cat → python p50 ms", percentile(base, 50))
        add("baseline python → cat → python p99 ms", percentile(base, 99))
    add("samples per direction (lost)", f"{min(len(inbound), len(outbound))} ({2 * SAMPLES - len(inbound) - len(outbound)})")
    return rows

"""11. Scale curves: `make bench-scale` (not part of `make bench`; CI runs its 100-session point
on the debug build as a functional check, with no targets).

For each size N (`--scale`, default 10, 100 and 1,000) one daemon runs N sessions of the bench
pi, with the bench messenger and the real formatter. A tenth of them (S) are bound to chats and
each replays the sessions scenario's recorded agent run twice over (~7 KB lines at 25 a second,
pi's real pace); four more sessions are bound to probe chats. In order:

idle:      all N idle (22 s after the last was created) for two windows: the daemon's total CPU and its RSS above an empty daemon,
           per session; `status` over the control socket, timed 30 times.
streaming: the S streams start; after a warm-up, three windows of the daemon's, the formatter's
           and the streaming stubs' CPU (from /proc). CPU per streaming session is the daemon's
           CPU above its idle figure, divided by S. No probe runs in these windows.
hop:       while the streams go on, the four probe sessions take turns with `bench:latency`
           runs, as the latency scenario does: chat message → pi stdin, pi stdout → chat.live.
resume:    the daemon is killed with SIGKILL (its pi children and plugins see their pipes close
           and exit) and started again. Timed from the new exec: `status` lists all N sessions
           with a state, then a chat message to the session created last (the last a restore in
           creation order reaches) reaches its pi's stdin. Resumed = both, and the prompt's own
           part must be < 1 s. How many pi children run again, and how soon, is reported.
"""
import concurrent.futures
import os
import signal
import statistics
import sys
import time

from ._relayd import Relayd, Rows, marker_times, percentile, process_cpu_seconds, read_jsonl, scenario_work
from .sessions import recorded_run

SIZES = (10, 100, 1000)
RATE = 25.0            # lines a second per streaming session (the sessions scenario's pace)
WARMUP = 2.0
IDLE_SETTLE = 22.0     # seconds after the last session was created (see "Idle" below)
WINDOW = 4.0
IDLE_WINDOWS = 2
STREAM_WINDOWS = 3
PROBES = 4
PERIOD = 0.4           # seconds between probe samples, taking turns over the probe sessions
DELAY_MS = 500         # as the latency scenario: past the live throttle, so nothing coalesces
END_MS = 80
PROBE_SAMPLES = 60
STATUS_SAMPLES = 30

IDLE_CPU_TARGET = 0.5      # % of a core for 1,000 idle sessions in all
RSS_PER_SESSION_KB = 150.0
CPU_PER_STREAM_TARGET = 0.1
RESUME_TARGET_S = 3.0
PROMPT_AFTER_RESUME_MS = 1000.0
HOP_TARGET_MS = 5.0        # the per-messenger tables' chat message → pi stdin target
LINEAR_SLACK = 1.25        # "linear or better": a per-session cost may not grow more than this


def chat(tag):
    return {"channel": tag, "user": "42", "userName": "bench", "dm": False, "mentioned": True}


def stat_cpu(pid):
    """utime + stime in seconds, or None when the process is gone."""
    try:
        return process_cpu_seconds(pid)
    except OSError:
        return None


def children(ppid):
    """Pids whose parent is `ppid`."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == ppid:
            out.append(int(name))
    return out


def pi_children(d):
    plugin_pids = {p.get("pid") for p in d.call("plugins") or []}
    return [p for p in children(d.pid) if p not in plugin_pids]


def call_ms(d, method):
    t = time.monotonic()
    r = d.call(method)
    return (time.monotonic() - t) * 1000, r


def one_size(ctx, n, run_file, rows, curves):
    streaming = max(1, n // 10)
    idle_only = n - streaming - PROBES
    if idle_only < 0:
        raise RuntimeError(f"{n} sessions cannot hold {streaming} streaming and {PROBES} probes")
    work, pi_log, cwd = scenario_work(ctx, f"scale-{n}")
    msg_log = os.path.join(work, "messenger.jsonl")
    d = Relayd(ctx, f"scale{n}", env={"BENCH_PI_LOG": pi_log, "BENCH_MESSENGER_LOG": msg_log})
    d.link_plugin("bench-messenger", d.stub("bench-messenger"))
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    d.configure({"pi": {"command": d.stub("bench-pi")}, "bench-messenger": {"allowedUsers": ["42"]}})
    add = rows.add
    label = f"{n} sessions"
    streams = [f"s{i}" for i in range(streaming)]
    probes = [f"p{i}" for i in range(PROBES)]
    # Created in this order; the last probe is the last created, so the last a restore reaches.
    names = streams + [f"i{i}" for i in range(idle_only)] + probes
    try:
        d.start(timeout=60)
        d.wait_plugin("formatter")
        d.wait_plugin("bench-messenger")
        rss_empty = d.rss_bytes()
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda name: d.call("new", {"cwd": cwd, "name": name}, timeout=600), streams + [
                f"i{i}" for i in range(idle_only)]))
        # The probes last and one by one, so that their creation order is certain.
        for name in probes:
            d.call("new", {"cwd": cwd, "name": name}, timeout=600)
        created = time.monotonic() - t0
        if len(d.call("sessions")) != n:
            raise RuntimeError(f"{len(d.call('sessions'))} of {n} sessions were created")
        for name in streams + probes:
            r = d.plugin_call("bench-messenger", "call", {"method": "chat.command", "params": {
                "chat": chat(name), "name": "use", "args": {"session": name}}})
            if "Watching" not in str(r):
                raise RuntimeError(f"/use {name} failed: {r}")

        # Idle, once the start handshakes' timers have gone by: each `get_state` at a session's
        # start arms a pi.startTimeoutSeconds (20 s) timer, cancelled when pi answers but fired
        # by the runtime at its deadline all the same, a burst of wake-ups 20 s after creation.
        time.sleep(IDLE_SETTLE)
        rss_idle = d.rss_bytes()
        idle_windows = []
        for _ in range(IDLE_WINDOWS):
            c0, w0 = d.thread_times(), time.monotonic()
            time.sleep(WINDOW)
            idle_windows.append(100 * d.cpu_between(c0, d.thread_times()) / (time.monotonic() - w0))
        idle_cpu = statistics.median(idle_windows)
        status_ms = []
        for _ in range(STATUS_SAMPLES):
            ms, status = call_ms(d, "status")
            status_ms.append(ms)
            time.sleep(0.05)
        listed = len((status or {}).get("sessions") or [])
        if listed != n:
            raise RuntimeError(f"status lists {listed} of {n} sessions")

        # Streaming: each stream replays the recorded run twice (the second prompt waits as a
        # follow-up), so the streams outlast the CPU windows and the probes.
        before = {p: stat_cpu(p) for p in pi_children(d)}
        formatter = d.plugin("formatter")["pid"]
        for k in range(2):
            for name in streams:
                d.plugin_call("bench-messenger", "send", {"tag": f"{name}-{k}", "method": "chat.message", "params": {
                    "chat": chat(name), "messageId": f"{name}-m{k}", "attachments": [],
                    "text": f"bench:replay:{name}-{k}:60:{RATE}:{run_file}"}})
        time.sleep(WARMUP)
        stream_windows, formatter_windows, stub_windows = [], [], []
        for _ in range(STREAM_WINDOWS):
            c0, w0 = d.thread_times(), time.monotonic()
            f0 = d.thread_times(formatter)
            s0 = {p: stat_cpu(p) for p in before}
            time.sleep(WINDOW)
            wall = time.monotonic() - w0
            stream_windows.append(100 * d.cpu_between(c0, d.thread_times()) / wall)
            formatter_windows.append(100 * d.cpu_between(f0, d.thread_times(formatter)) / wall)
            s1 = {p: stat_cpu(p) for p in before}
            stub_windows.append(100 * sum(s1[p] - s0[p] for p in s0 if s0[p] is not None and s1[p] is not None) / wall)
        stream_cpu = statistics.median(stream_windows)
        rss_streaming = d.rss_bytes()

        # Hop probes while the streams go on.
        start = time.monotonic() + 0.2
        for k in range(PROBE_SAMPLES):
            time.sleep(max(0.0, start + k * PERIOD - time.monotonic()))
            marker = f"mk{n:04d}{k:04d}q"
            d.plugin_call("bench-messenger", "send", {"tag": marker, "method": "chat.message", "params": {
                "chat": chat(probes[k % PROBES]), "messageId": f"probe{k}", "attachments": [],
                "text": f"bench:latency:{marker}:{DELAY_MS}:{END_MS}"}})
        time.sleep(DELAY_MS / 1000 + 1.0)
        done = [e for e in read_jsonl(pi_log) if e.get("ev") == "done" and str(e.get("tag", "")).endswith("-0")]

        # Resume after kill -9.
        os.kill(d.pid, signal.SIGKILL)
        d.proc.wait()
        d.spawn()
        t_exec = time.monotonic()
        listed_at = None
        while time.monotonic() < t_exec + 120:
            try:
                status = d.call("status", timeout=10)
                sessions = status.get("sessions") or []
                if len(sessions) == n and all(s.get("state") for s in sessions):
                    listed_at = time.monotonic()
                    break
            except Exception:  # the socket is not open yet
                pass
            time.sleep(0.01)
        if listed_at is None:
            raise RuntimeError(f"after a restart, status did not list {n} sessions within 120 s")
        d.wait_plugin("bench-messenger", timeout=60)
        marker = f"mk{n:04d}9999q"
        sent = d.plugin_call("bench-messenger", "call", {"method": "chat.message", "params": {
            "chat": chat(probes[-1]), "messageId": "after-restart", "attachments": [],
            "text": f"bench:latency:{marker}:0:10"}})
        recv_at = None
        while time.monotonic() < t_exec + 120:
            recvs = [e for e in read_jsonl(pi_log) if e.get("ev") == "recv" and e.get("marker") == marker]
            if recvs:
                recv_at = recvs[0]["mono"] / 1e9
                break
            time.sleep(0.01)
        if recv_at is None:
            raise RuntimeError(f"after a restart, a prompt to {probes[-1]} never reached its pi ({sent})")
        all_running_at = None
        while time.monotonic() < t_exec + 300:
            if len(pi_children(d)) >= n:
                all_running_at = time.monotonic()
                break
            time.sleep(0.1)
    finally:
        d.stop()

    sends, lives, recvs, emits = marker_times(msg_log, pi_log)
    keep = [f"mk{n:04d}{k:04d}q" for k in range(PROBE_SAMPLES)]
    inbound = [(recvs[m] - sends[m]) / 1e6 for m in keep if m in recvs and m in sends]
    outbound = [(lives[m] - emits[m]) / 1e6 for m in keep if m in lives and m in emits]

    per_stream = max(0.0, stream_cpu - idle_cpu) / streaming
    rss_per_session_kb = max(0, rss_idle - rss_empty) / n / 1024
    resumed = recv_at - t_exec
    prompt_ms = (recv_at - listed_at) * 1000
    stubs = statistics.median(stub_windows)
    curves.append({"sessions": n, "streaming": streaming, "rss_per_session_kb": rss_per_session_kb,
                   "idle_cpu": idle_cpu, "cpu_per_stream": per_stream, "status_p99": percentile(status_ms, 99),
                   "resumed": resumed, "hop_in_p99": percentile(inbound, 99) if inbound else None,
                   "hop_out_p99": percentile(outbound, 99) if outbound else None})
    big = n >= 1000
    add(f"{label}: streaming / probes / idle", f"{streaming} / {PROBES} / {idle_only}")
    add(f"{label}: time to create s", round(created, 1))
    add(f"{label}: daemon RSS idle MB", round(rss_idle / 2**20, 1))
    add(f"{label}: daemon RSS while streaming MB", round(rss_streaming / 2**20, 1))
    add(f"{label}: daemon RSS per session KB", round(rss_per_session_kb, 1),
        f"< {RSS_PER_SESSION_KB:g} KB" if big else "", rss_per_session_kb < RSS_PER_SESSION_KB if big else None)
    add(f"{label}: daemon CPU, all idle %", round(idle_cpu, 3),
        f"< {IDLE_CPU_TARGET:g} %" if big else "", idle_cpu < IDLE_CPU_TARGET if big else None)
    add(f"{label}: daemon CPU while {streaming} stream % (median window)", round(stream_cpu, 2))
    add(f"{label}: daemon CPU per streaming session %", round(per_stream, 3),
        f"< {CPU_PER_STREAM_TARGET:g} %", per_stream < CPU_PER_STREAM_TARGET)
    add(f"{label}: formatter CPU while streaming %", round(statistics.median(formatter_windows), 2))
    add(f"{label}: streaming stubs' CPU % (of 200 on this machine)", round(stubs, 1),
        f"< {50 * (os.cpu_count() or 1):g} % (half the machine)", stubs < 50 * (os.cpu_count() or 1))
    add(f"{label}: status over the socket p50 ms", round(percentile(status_ms, 50), 2))
    add(f"{label}: status over the socket p99 ms", round(percentile(status_ms, 99), 2))
    if inbound:
        p99 = percentile(inbound, 99)
        add(f"{label}: hop chat message → pi stdin p99 ms ({len(inbound)} samples)", round(p99, 2),
            f"< {HOP_TARGET_MS:g} ms", p99 < HOP_TARGET_MS)
    if outbound:
        add(f"{label}: hop pi stdout → chat.live p99 ms ({len(outbound)} samples)", round(percentile(outbound, 99), 2))
    # A prompt must reach pi; a marker's live view may be folded into its run's final under load.
    add(f"{label}: probe prompts that reached pi", f"{len(inbound)} of {PROBE_SAMPLES}", "all",
        len(inbound) == PROBE_SAMPLES, functional=True)
    add(f"{label}: probe markers seen in a live view", f"{len(outbound)} of {PROBE_SAMPLES}")
    add(f"{label}: first replays finished", len(done), f"= {streaming}", len(done) == streaming, functional=True)
    add(f"{label}: resume, kill -9 → status lists all s", round(listed_at - t_exec, 3))
    add(f"{label}: resume, then a prompt → its pi's stdin ms", round(prompt_ms, 1),
        f"< {PROMPT_AFTER_RESUME_MS:g} ms", prompt_ms < PROMPT_AFTER_RESUME_MS)
    add(f"{label}: resumed (both) s", round(resumed, 3), f"< {RESUME_TARGET_S:g} s", resumed < RESUME_TARGET_S)
    add(f"{label}: all {n} pi children running again after s",
        round(all_running_at - t_exec, 2) if all_running_at else "never", "all", all_running_at is not None,
        functional=True)


def linear(rows, curves, key, what):
    """Whether a per-session cost stays flat (within LINEAR_SLACK) from the smallest size with a
    meaningful figure to the largest."""
    points = [(c["sessions"], c[key]) for c in curves if c[key] is not None and c["sessions"] >= 100]
    if len(points) < 2:
        return
    (n0, v0), (n1, v1) = points[0], points[-1]
    ratio = v1 / v0 if v0 > 0 else 1.0
    rows.add(f"{what}, {n1} over {n0} sessions (×)", round(ratio, 2), f"≤ {LINEAR_SLACK:g} (linear or better)",
             ratio <= LINEAR_SLACK)


def run(ctx):
    sizes = ctx.scale or SIZES
    run_file = recorded_run(ctx)
    rows = Rows("scale", digits=None)
    curves = []
    for n in sizes:
        print(f"   scale: {n} sessions", file=sys.stderr, flush=True)
        one_size(ctx, n, run_file, rows, curves)
    linear(rows, curves, "rss_per_session_kb", "daemon RSS per session")
    linear(rows, curves, "cpu_per_stream", "daemon CPU per streaming session")
    ctx.curves("scale", curves)
    return rows

"""3. Many sessions: 200 idle sessions plus 20 streaming at once.

220 sessions run the bench pi (created concurrently over the control socket). 20 of them are
bound to chats of the bench messenger and prompted; each replays one recorded agent run
(Tests/Fakes/fake-pi/gen_stream.py: thinking, text and tool-call deltas with the partial message
carried twice per line, tool executions; ~7 KB a line) at 25 lines a second, the pace of a
model typing quickly, through the real formatter plugin. The daemon's own RSS (VmRSS) and CPU
time (utime + stime of the pi-relayd process, children excluded) are read from /proc.

CPU is measured in consecutive windows while all 20 stream; the median window is reported
(and the worst). RSS is the peak seen during the whole scenario.
"""
import concurrent.futures
import os
import statistics
import subprocess
import time

from ._relayd import Relayd, Rows, read_jsonl, scenario_work

IDLE = 200
STREAMING = 20
RATE = 25.0          # lines a second per streaming session
STREAM_SECONDS = 22.0
WARMUP = 2.0         # seconds of streaming before the first window
WINDOW = 4.0
WINDOWS = 4
RSS_TARGET = 64 << 20
CPU_TARGET = 2.0     # percent of one core (issue 12 k)


def recorded_run(ctx):
    """One agent run of the realistic generator, cut at its agent_end."""
    path = os.path.join(ctx.work, "sessions-run.jsonl")
    if os.path.exists(path):
        return path
    gen = os.path.join(ctx.root, "Tests", "Fakes", "fake-pi", "gen_stream.py")
    r = subprocess.run(["python3", gen, "--mb", "3", "--seed", "11", "--out", "-"], capture_output=True, check=True)
    lines = []
    for line in r.stdout.split(b"\n"):
        if not line:
            continue
        lines.append(line)
        if line.startswith(b'{"type":"agent_end"'):
            break
    with open(path + ".tmp", "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    os.rename(path + ".tmp", path)
    return path


def chat(i):
    return {"channel": f"st{i}", "user": "42", "userName": "bench", "dm": False, "mentioned": True}


def run(ctx):
    run_file = recorded_run(ctx)
    work, pi_log, cwd = scenario_work(ctx, "sessions")

    d = Relayd(ctx, "sessions", env={"BENCH_PI_LOG": pi_log, "BENCH_MESSENGER_QUIET": "1"})
    d.link_plugin("bench-messenger", d.stub("bench-messenger"))
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    d.configure({"pi": {"command": d.stub("bench-pi")}, "bench-messenger": {"allowedUsers": ["42"]}})
    rows = Rows("sessions", digits=None)
    add = rows.add

    peak = [0]

    def sample_rss():
        peak[0] = max(peak[0], d.rss_bytes())

    with d:
        d.wait_plugin("formatter")
        d.wait_plugin("bench-messenger")
        rss_empty = d.rss_bytes()
        t0 = time.monotonic()
        names = [f"st{i}" for i in range(STREAMING)] + [f"idle{i}" for i in range(IDLE)]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: d.call("new", {"cwd": cwd, "name": n}, timeout=300), names))
        created = time.monotonic() - t0
        if len(d.call("sessions")) != len(names):
            raise RuntimeError("not every session was created")
        for i in range(STREAMING):
            d.plugin_call("bench-messenger", "call", {"method": "chat.command", "params": {
                "chat": chat(i), "name": "use", "args": {"session": f"st{i}"}}})
        time.sleep(3)
        sample_rss()
        rss_idle = d.rss_bytes()
        c0, w0 = d.cpu_seconds(), time.monotonic()
        time.sleep(WINDOW)
        idle_cpu = 100 * (d.cpu_seconds() - c0) / (time.monotonic() - w0)

        lives0 = d.plugin_call("bench-messenger", "counts")
        lt0 = time.monotonic()
        for i in range(STREAMING):
            d.plugin_call("bench-messenger", "send", {"tag": f"st{i}", "method": "chat.message", "params": {
                "chat": chat(i), "messageId": f"m{i}", "attachments": [],
                "text": f"bench:replay:st{i}:{STREAM_SECONDS}:{RATE}:{run_file}"}})
        start = time.monotonic()
        deadline = start + WARMUP
        while time.monotonic() < deadline:
            sample_rss()
            time.sleep(0.25)
        windows = []
        c_all, w_all = d.cpu_seconds(), time.monotonic()
        formatter0 = d.plugin_cpu_seconds("formatter")
        for _ in range(WINDOWS):
            c0, w0 = d.cpu_seconds(), time.monotonic()
            while time.monotonic() < w0 + WINDOW:
                sample_rss()
                time.sleep(0.25)
            windows.append(100 * (d.cpu_seconds() - c0) / (time.monotonic() - w0))
        all_cpu = 100 * (d.cpu_seconds() - c_all) / (time.monotonic() - w_all)
        formatter1 = d.plugin_cpu_seconds("formatter")
        formatter_cpu = None
        if formatter0 is not None and formatter1 is not None:
            formatter_cpu = 100 * (formatter1 - formatter0) / (time.monotonic() - w_all)
        lives1 = d.plugin_call("bench-messenger", "counts")
        lt1 = time.monotonic()
        while time.monotonic() < start + STREAM_SECONDS + 3:
            sample_rss()
            time.sleep(0.25)
        rss_after = d.rss_bytes()
        sample_rss()

    streamed = len([e for e in read_jsonl(pi_log) if e.get("ev") == "done"])
    with open(run_file, "rb") as f:
        sizes = [len(l) for l in f][:int(RATE * STREAM_SECONDS)]
    mb_per_s = STREAMING * RATE * (sum(sizes) / len(sizes)) / 1e6
    cpu = statistics.median(windows)
    add("sessions (idle + streaming)", f"{IDLE} + {STREAMING}")
    add("daemon RSS, peak MB", round(peak[0] / 2**20, 1), "< 64 MB", peak[0] < RSS_TARGET)
    add("daemon RSS, 220 idle MB", round(rss_idle / 2**20, 1))
    add("daemon RSS, no sessions MB", round(rss_empty / 2**20, 1))
    add("daemon RSS, after streaming MB", round(rss_after / 2**20, 1))
    add("daemon CPU while 20 stream, % of a core (median window)", round(cpu, 2), "< 2 %", cpu < CPU_TARGET)
    add("daemon CPU while 20 stream, worst window %", round(max(windows), 2))
    add("daemon CPU, 220 idle %", round(idle_cpu, 2))
    add("pi lines relayed /s", round(STREAMING * RATE))
    add("pi stdout into the daemon MB/s", round(mb_per_s, 2))
    add("daemon CPU over all windows %", round(all_cpu, 2))
    add("formatter plugin CPU over all windows %", round(formatter_cpu, 2) if formatter_cpu is not None else "restarted")
    add("chat.live notifies /s", round((lives1["live"] - lives0["live"]) / (lt1 - lt0), 1))
    add("time to create 220 sessions s", round(created, 1))
    if streamed != STREAMING:
        add("streaming sessions that finished", streamed, f"= {STREAMING}", False)
    return rows

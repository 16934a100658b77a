"""4. Crash recovery: kill -9 of a messenger plugin until its new instance has handshaken and
its outbox is drained.

Each round kills the running bench messenger (SIGKILL to its pid from `plugins`), queues one
acknowledged delivery for it at once over the control socket (so the outbox is not empty while
it is down), and times kill → the new instance reads that delivery (its stub log, monotonic
clock); it acks it at once. The restart policy is the default one, and nothing is subtracted:
a kill of a plugin that was healthy is a first crash, which is restarted at once, so the figure
is everything a user waits for (noticing the exit, any wait the policy adds, spawning, the
plugin's own start-up, hello, welcome, outbox replay). Two settings differ from the defaults, and
neither changes a first crash: `healthyResetSeconds: 0.1` with a pause after each round makes
every kill a first crash (as a kill after 10 s of running is by default), and
`crashLoopCount: 1000` keeps 100 kills from marking the plugin failed.

Baseline, interleaved round by round: this Python process spawns the same stub itself
(posix_spawn, as swift-subprocess does), reads its hello, writes a welcome and a delivery, and
reads the ack. It is the floor a supervisor that does
nothing else could reach with this plugin, Python's start-up included.
"""
import json
import os
import re
import signal
import time

from ._relayd import Relayd, Rows, percentile, read_jsonl

ROUNDS = 100
PAUSE = 0.25     # after a recovered round (> healthyResetSeconds)
TARGET_MS = 150.0
NAME = "bench-messenger"


class Tail:
    """Reads JSON lines appended to a file since the last call."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.buf = b""

    def read(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return []
        self.pos += len(data)
        self.buf += data
        out = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out


def read_line(fd, buf):
    while b"\n" not in buf:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        buf += chunk
    line, _, rest = buf.partition(b"\n")
    return line, rest


def baseline(stub, log):
    """posix_spawn (as swift-subprocess does) of the stub, then hello → welcome + deliver → ack."""
    env = dict(os.environ, PI_RELAY_PLUGIN="1", PI_RELAY_PROTOCOL="1", BENCH_MESSENGER_LOG=log)
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(stub, [stub], env, setsid=True,
                         file_actions=[(os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1)])
    os.close(in_r)
    os.close(out_w)
    hello, buf = read_line(out_r, b"")
    if b'"hello"' not in hello:
        raise RuntimeError(f"baseline stub said {hello!r}")
    os.write(in_w, b'{"type":"welcome","protocol":1,"plugin":"bench-messenger","config":{},"stateDir":"."}\n'
                   b'{"type":"deliver","id":"base","method":"bench.crash","params":{"round":-1}}\n')
    ack, _ = read_line(out_r, buf)
    t1 = time.monotonic_ns()
    if b'"ack"' not in ack:
        raise RuntimeError(f"baseline stub answered {ack!r}")
    os.close(in_w)
    os.close(out_r)
    os.waitpid(pid, 0)
    return (t1 - t0) / 1e6


def run(ctx):
    work = os.path.join(ctx.work, "recovery")
    os.makedirs(work, exist_ok=True)
    for n in os.listdir(work):
        os.unlink(os.path.join(work, n))
    log = os.path.join(work, "messenger.jsonl")
    d = Relayd(ctx, "recovery", env={"BENCH_MESSENGER_LOG": log, "BENCH_MESSENGER_QUIET": "1"})
    stub = d.stub("bench-messenger")
    d.link_plugin(NAME, stub)
    d.configure({"plugins": {"restart": {"healthyResetSeconds": 0.1, "crashLoopCount": 1000}}})
    tail = Tail(log)
    kills, base = {}, []
    with d:
        pid = d.wait_plugin(NAME)["pid"]
        time.sleep(0.3)
        for n in range(ROUNDS):
            base.append(baseline(stub, os.path.join(work, "baseline.jsonl")))
            time.sleep(0.05)
            kills[n] = time.monotonic_ns()
            os.kill(pid, signal.SIGKILL)
            d.plugin_call(NAME, "bench.crash", {"round": n}, deliver=True)
            deadline = time.monotonic() + 15
            got = None
            while got is None and time.monotonic() < deadline:
                for e in tail.read():
                    if e.get("ev") == "deliver" and e.get("round") == n:
                        got = e
                if got is None:
                    time.sleep(0.003)
            if got is None:
                raise RuntimeError(f"round {n}: the delivery did not reach a new instance within 15 s: {d.plugin(NAME)}")
            while True:
                p = d.plugin(NAME)
                if p.get("state") == "running" and p.get("outbox") == 0 and p.get("pid") == got["pid"]:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"round {n}: outbox not drained: {p}")
                time.sleep(0.005)
            pid = got["pid"]
            time.sleep(PAUSE)
        with open(os.path.join(d.home, "logs", "pi-relayd.log"), encoding="utf-8") as f:
            delays = [int(m.group(1)) for m in re.finditer(rf"plugin {NAME}: restarting in (\d+) ms", f.read())]

    events = read_jsonl(log)
    by_pid = {}
    for e in events:
        by_pid.setdefault(e["pid"], {})[e["ev"] if e["ev"] != "deliver" else f"deliver{e.get('round')}"] = e["mono"]
    total, spawn, hello, welcome, replay = [], [], [], [], []
    for n, t_kill in kills.items():
        inst = next((v for v in by_pid.values() if f"deliver{n}" in v and "start" in v and v["start"] > t_kill), None)
        if inst is None:
            continue
        total.append((inst[f"deliver{n}"] - t_kill) / 1e6)
        spawn.append((inst["start"] - t_kill) / 1e6)
        hello.append((inst["hello"] - inst["start"]) / 1e6)
        welcome.append((inst["welcome"] - inst["hello"]) / 1e6)
        replay.append((inst[f"deliver{n}"] - inst["welcome"]) / 1e6)
    rows = Rows("recovery", digits=2)
    add = rows.add

    p50 = percentile(total, 50)
    add("kill -9 → handshaken, outbox drained p50 ms", p50, f"< {TARGET_MS:g} ms", p50 < TARGET_MS)
    add("kill -9 → handshaken, outbox drained p99 ms", percentile(total, 99))
    add("  kill → new instance runs Python p50 ms", percentile(spawn, 50))
    add("  Python start → hello written p50 ms", percentile(hello, 50))
    add("  hello → welcome read p50 ms", percentile(welcome, 50))
    add("  welcome → delivery read p50 ms", percentile(replay, 50))
    add("baseline spawn → hello → deliver → ack p50 ms", percentile(base, 50))
    add("baseline p99 ms", percentile(base, 99))
    add("restart waits logged (included) ms", f"{min(delays) if delays else 0}…{max(delays) if delays else 0}")
    add("kills (recovered)", f"{ROUNDS} ({len(total)})")
    return rows

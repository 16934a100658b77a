"""1. Event-stream throughput: pi-relayd's reader vs Node JSON.parse, Python json.loads and a
plain pipe, on a generated realistic pi stdout stream, interleaved run by run."""
import os
import statistics
import subprocess
import time

MB = 200


def stream(ctx):
    path = os.path.join(ctx.work, f"stream-{MB}mb.jsonl")
    expected = path + ".expected"
    if not (os.path.exists(path) and os.path.exists(expected)):
        gen = os.path.join(ctx.root, "Tests", "Fakes", "fake-pi", "gen_stream.py")
        r = subprocess.run(["python3", gen, "--mb", str(MB), "--out", path, "--seed", "7"],
                           capture_output=True, text=True, check=True)
        with open(expected, "w") as f:
            f.write(r.stderr.strip().splitlines()[-1])
    with open(expected) as f:
        return path, f.read().strip()


def timed(cmd, path, shell=False):
    with open(path, "rb") as stdin:
        t = time.perf_counter()
        r = subprocess.run(cmd, stdin=None if shell else stdin, shell=shell, capture_output=True, text=True)
        dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {r.returncode}: {r.stderr[-300:]}")
    return dt, r.stdout.strip()


def run(ctx):
    path, expected = stream(ctx)
    size = os.path.getsize(path) / 1e6
    events = int(expected.split()[0].split("=")[1])
    readers = {
        "a pi-relayd": [ctx.exe("pi-relayd-bench"), "read"],
        "b node JSON.parse": ["node", os.path.join(ctx.root, "bench", "node-read.js")],
        "c python json.loads": ["python3", os.path.join(ctx.root, "bench", "py-read.py")],
    }
    times = {k: [] for k in list(readers) + ["d cat | cat"]}
    for _ in range(ctx.runs):
        for name, cmd in readers.items():
            dt, out = timed(cmd, path)
            if name.startswith("a") and out.splitlines()[-1] != expected:
                raise RuntimeError(f"pi-relayd read {out!r}, generator says {expected!r}")
            times[name].append(dt)
        dt, _ = timed(f"cat '{path}' | cat > /dev/null", path, shell=True)
        times["d cat | cat"].append(dt)
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = []
    for name, t in med.items():
        rows.append({"scenario": "throughput", "metric": f"{name} MB/s", "value": size / t, "target": ""})
        if not name.startswith("d"):
            rows.append({"scenario": "throughput", "metric": f"{name} events/s", "value": events / t, "target": ""})
    a, b, d = med["a pi-relayd"], med["b node JSON.parse"], med["d cat | cat"]
    rows.append({"scenario": "throughput", "metric": "a / b (speed-up over Node)", "value": b / a,
                 "target": ">= 5", "met": b / a >= 5})
    rows.append({"scenario": "throughput", "metric": "a / d (share of pipe speed)", "value": d / a,
                 "target": ">= 0.25", "met": d / a >= 0.25})
    rows.append({"scenario": "throughput", "metric": "stream MB", "value": size, "target": ""})
    return rows

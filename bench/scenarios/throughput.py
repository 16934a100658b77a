"""1. Event-stream throughput: pi-relayd's reader vs Node JSON.parse, Python json.loads and a
plain pipe, on a generated realistic pi stdout stream, interleaved run by run. Every reader gets
the stream through a pipe (`cat FILE | READER`), the way pi's stdout reaches pi-relayd; the
baseline is `cat FILE | cat`. The reader was once measured on the file itself as its stdin,
where it reads far faster than any pipe delivers."""
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


def timed(command):
    """Wall seconds and stdout of a shell pipeline."""
    t = time.perf_counter()
    r = subprocess.run(command, shell=True, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{command}: exit {r.returncode}: {r.stderr[-300:]}")
    return dt, r.stdout.strip()


def node_version():
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip() or "?"
    except OSError:
        return "not installed"


def run(ctx):
    path, expected = stream(ctx)
    size = os.path.getsize(path) / 1e6
    events = int(expected.split()[0].split("=")[1])
    readers = {
        "a pi-relayd": f"'{ctx.exe('pi-relayd-bench')}' read",
        "b node JSON.parse": f"node '{os.path.join(ctx.root, 'bench', 'node-read.js')}'",
        "c python json.loads": f"python3 '{os.path.join(ctx.root, 'bench', 'py-read.py')}'",
        "d cat | cat": "cat > /dev/null",
    }
    times = {k: [] for k in readers}
    for _ in range(ctx.runs):
        for name, reader in readers.items():
            dt, out = timed(f"cat '{path}' | {reader}")
            if name.startswith("a") and out.splitlines()[-1] != expected:
                raise RuntimeError(f"pi-relayd read {out!r}, generator says {expected!r}")
            times[name].append(dt)
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = []
    for name, t in med.items():
        rows.append({"scenario": "throughput", "metric": f"{name} MB/s", "value": size / t, "target": ""})
        if not name.startswith("d"):
            rows.append({"scenario": "throughput", "metric": f"{name} events/s", "value": events / t, "target": ""})
    a, b, d = med["a pi-relayd"], med["b node JSON.parse"], med["d cat | cat"]
    rows.append({"scenario": "throughput", "metric": f"a / b (speed-up over Node {node_version()})", "value": b / a,
                 "target": ">= 10", "met": b / a >= 10})
    rows.append({"scenario": "throughput", "metric": "a / d (share of pipe speed)", "value": d / a,
                 "target": ">= 0.75", "met": d / a >= 0.75})
    rows.append({"scenario": "throughput", "metric": "stream MB", "value": size, "target": ""})
    return rows

"""1. Event-stream throughput: pi-relayd's reader vs Node JSON.parse, Python json.loads and a
plain pipe, on a generated realistic pi stdout stream, interleaved run by run. Every reader gets
the stream through a pipe (`cat FILE | READER`), the way pi's stdout reaches pi-relayd; the
baseline is `cat FILE | cat`. The reader was once measured on the file itself as its stdin,
where it reads far faster than any pipe delivers.

pi-relayd grows the pipe from a child that fills it (64 KiB to 1 MiB, `PipeGrowth`), and the
reader does the same to its stdin, so (a) is the relay's own path. Through Linux's standard 64
KiB pipe the reader ran as fast as `cat | cat` itself: the pipe, not the parsing, was the limit.
(e) is the same reader with the pipe left at 64 KiB, reported beside it. Node and Python get a
1 MiB pipe made for them, so that none of the three waits on a smaller pipe than the others."""
import fcntl
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


F_SETPIPE_SZ = 1031


def timed(path, reader, pipe_bytes=None):
    """Wall seconds and stdout of `cat PATH | READER` (a shell command), through a pipe of
    `pipe_bytes` (Linux's 64 KiB when None)."""
    r, w = os.pipe()
    if pipe_bytes:
        fcntl.fcntl(w, F_SETPIPE_SZ, pipe_bytes)
    t = time.perf_counter()
    cat = subprocess.Popen(["cat", path], stdout=w)
    os.close(w)
    proc = subprocess.Popen(reader, shell=True, stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(r)
    out, err = proc.communicate()
    cat.wait()
    dt = time.perf_counter() - t
    if proc.returncode != 0 or cat.returncode != 0:
        raise RuntimeError(f"cat {path} | {reader}: exit {proc.returncode}/{cat.returncode}: {err[-300:]}")
    return dt, out.strip()


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
        "b node JSON.parse": (f"node '{os.path.join(ctx.root, 'bench', 'node-read.js')}'", 1 << 20),
        "c python json.loads": (f"python3 '{os.path.join(ctx.root, 'bench', 'py-read.py')}'", 1 << 20),
        "d cat | cat, through a 1 MiB pipe": ("cat > /dev/null", 1 << 20),
        "e pi-relayd, pipe left at 64 KiB": f"'{ctx.exe('pi-relayd-bench')}' read --standard-pipe",
        "f cat | cat": "cat > /dev/null",
    }
    times = {k: [] for k in readers}
    for _ in range(ctx.runs):
        for name, reader in readers.items():
            command, pipe_bytes = reader if isinstance(reader, tuple) else (reader, None)
            dt, out = timed(path, command, pipe_bytes)
            if name.startswith(("a", "e")) and out.splitlines()[-1] != expected:
                raise RuntimeError(f"pi-relayd read {out!r}, generator says {expected!r}")
            times[name].append(dt)
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = []
    for name, t in med.items():
        rows.append({"scenario": "throughput", "metric": f"{name} MB/s", "value": size / t, "target": ""})
        if name[0] in "abc":
            rows.append({"scenario": "throughput", "metric": f"{name} events/s", "value": events / t, "target": ""})
    a, b = med["a pi-relayd"], med["b node JSON.parse"]
    d, e, f = med["d cat | cat, through a 1 MiB pipe"], med["e pi-relayd, pipe left at 64 KiB"], med["f cat | cat"]
    rows.append({"scenario": "throughput", "metric": f"a / b (speed-up over Node {node_version()})", "value": b / a,
                 "target": ">= 10", "met": b / a >= 10})
    rows.append({"scenario": "throughput", "metric": "a / d (share of pipe speed, both 1 MiB)", "value": d / a,
                 "target": ">= 0.75", "met": d / a >= 0.75})
    rows.append({"scenario": "throughput", "metric": "e / f (share of pipe speed, both 64 KiB)", "value": f / e, "target": ""})
    rows.append({"scenario": "throughput", "metric": "stream MB", "value": size, "target": ""})
    return rows

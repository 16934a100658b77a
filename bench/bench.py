#!/usr/bin/env python3
"""make bench: measures pi-relayd in a release build against baselines run in the same
invocation, interleaved, and reports medians and ratios. Writes bench/results.json.

Scenarios live in bench/scenarios/*.py; each exposes run(ctx) -> list of result rows.
"""
import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import charts  # noqa: E402
from scenarios import NAMED_ONLY, SCENARIOS  # noqa: E402


class Context:
    def __init__(self, args):
        self.args = args
        self.root = ROOT
        self.work = os.path.join(HERE, "work")
        os.makedirs(self.work, exist_ok=True)
        # Absolute: plugins are linked into throw-away homes and children run elsewhere.
        self.bin = os.path.abspath(args.bin)
        self.runs = args.runs
        self.scale = [int(n) for n in args.scale.split(",")] if args.scale else None
        # name -> (title, unit, [(series, values)], target): written as bench/charts/NAME.svg.
        self.charts = {}
        # name -> [{sessions, figure: value}]: the scale curves, written as bench/charts/NAME-*.svg.
        self.scale_curves = {}

    def exe(self, name):
        return os.path.join(self.bin, name)

    def chart(self, name, title, unit, series, target=None):
        """A distribution chart for `make bench` to draw: `series` [(label, values)] in `unit`."""
        self.charts[name] = (title, unit, series, target)

    def curves(self, name, points):
        """Scale curves for `make bench` to draw: one point per size, each figure keyed by name."""
        self.scale_curves[name] = points


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = f.readline().split()[1]
            mem = f"{int(mem) // (1024 * 1024)} GiB"
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": mem, "kernel": platform.release(),
            "swift": subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
            if subprocess.run(["which", "swift"], capture_output=True).returncode == 0 else "?"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", action="append", help="run only these scenarios")
    p.add_argument("--scale", help="the scale scenario's sizes, comma-separated (default 10,100,1000)")
    p.add_argument("--out", default=os.path.join(HERE, "results.json"), help="where the results go")
    p.add_argument("--functional", action="store_true",
                   help="a functional check: fail only when a scenario breaks or a functional row fails, "
                        "not on a missed target (CI, on a debug build)")
    args = p.parse_args()
    # A bench stopped with SIGTERM (timeout, CI) unwinds like Ctrl-C: each scenario's `finally`
    # stops its daemon, whose plugins, pis and browser would otherwise run on, orphaned.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    ctx = Context(args)
    rows = []
    started = time.time()
    for name, scenario in SCENARIOS + NAMED_ONLY:
        if (args.only and name not in args.only) or (not args.only and (name, scenario) in NAMED_ONLY):
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        try:
            rows += scenario.run(ctx)
        except Exception as e:  # a broken scenario is reported (as a missed target), the others still run
            print(f"{name}: {e}", file=sys.stderr)
            rows.append({"scenario": name, "metric": "error", "value": " ".join(str(e).split())[:120],
                         "target": "runs", "met": False})
    if not rows:
        print("no scenario ran: see --only", file=sys.stderr)
        return 2
    width = max(len(r["scenario"] + r["metric"]) for r in rows) + 3
    print(f"\n{'scenario / metric':<{width}} {'value':>16}  target")
    for r in rows:
        v = r["value"]
        shown = f"{v:,.2f}" if isinstance(v, float) else str(v)
        mark = "" if r.get("target") in ("", None) else ("  ok" if r.get("met") else "  MISSED")
        print(f"{r['scenario'] + ' / ' + r['metric']:<{width}} {shown:>16}  {r.get('target', '')}{mark}")
    # Each chart drawn this run replaces its file; the others are left as an earlier run drew them.
    # A functional check (a debug build) draws none: its figures are not the bench's.
    if args.functional:
        ctx.charts, ctx.scale_curves = {}, {}
    folder = os.path.join(HERE, "charts")
    os.makedirs(folder, exist_ok=True)
    for name, (title, unit, series, target) in ctx.charts.items():
        with open(os.path.join(folder, name + ".svg"), "w") as f:
            f.write(charts.distribution(title, unit, series, target))
        # The samples too, so that `python3 bench/charts.py` can draw them again.
        os.makedirs(os.path.join(ctx.work, "charts"), exist_ok=True)
        with open(os.path.join(ctx.work, "charts", name + ".json"), "w") as f:
            json.dump({"title": title, "unit": unit, "series": series, "target": target}, f)
    for name, points in ctx.scale_curves.items():
        for chart, (title, unit, keys) in charts.SCALE_CHARTS.items():
            with open(os.path.join(folder, f"{name}-{chart}.svg"), "w") as f:
                f.write(charts.curve(title, unit, points, keys))
        os.makedirs(os.path.join(ctx.work, "charts"), exist_ok=True)
        with open(os.path.join(ctx.work, "charts", name + ".curves.json"), "w") as f:
            json.dump(points, f)
    drawn = [name + ".svg" for name in ctx.charts]
    drawn += [f"{name}-{chart}.svg" for name in ctx.scale_curves for chart in charts.SCALE_CHARTS]
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "seconds": round(time.time() - started, 1), "runs": args.runs, "rows": rows,
              "charts": sorted("bench/charts/" + name for name in drawn)}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    if args.functional:
        missed = [r for r in rows if (r.get("functional") or r["metric"] in ("error", "not run")) and not r.get("met")]
        what = "functional checks failed"
    else:
        missed = [r for r in rows if r.get("target") and not r.get("met")]
        what = "targets missed"
    print(f"\n{len(rows)} figures, {len(missed)} {what}; {os.path.relpath(args.out)} written "
          f"({result['seconds']} s)", file=sys.stderr)
    return 1 if missed else 0


def median(xs):
    return statistics.median(xs)


if __name__ == "__main__":
    sys.exit(main())

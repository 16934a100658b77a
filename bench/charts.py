"""SVG charts of the bench, written by hand (no plotting dependency). Most charts are the
empirical distribution (the share of samples at or below each value) of one or more series of
the same unit, with the target as a dashed line when there is one; the scale scenario's are
curves, one point per number of sessions."""
import json
import math
import os
import sys
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 780, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 290, 40, 48
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def nice_ticks(high, count=5):
    """Round tick values from 0 to at least `high`."""
    if high <= 0:
        return [0, 1]
    raw = high / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(int(math.ceil(high / step)) + 1)]


def label(value):
    return f"{value:g}" if value < 10000 else f"{value / 1000:g}k"


def figure(value):
    """Three significant digits, never in exponent form."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def svg_head(title):
    """The opening of a chart: the SVG element, a white ground and the title."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
            f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
            f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>']


def distribution(title, unit, series, target=None):
    """`series`: [(name, [values])]; empty series are left out. Returns the SVG text."""
    series = [(name, sorted(values)) for name, values in series if values]
    top = max([v[-1] for _, v in series] + [0])
    # A target far beyond every sample would squeeze the samples into its first pixels: it is
    # then named in the title instead of drawn.
    shown_target = target if target and target <= 1.5 * top else None
    if shown_target:
        top = max(top, target)
    if target and not shown_target:
        title = f"{title} (target {label(target)} {unit}, off the scale)"
    ticks = nice_ticks(top)
    x_max = ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v):
        return LEFT + plot_w * (v / x_max if x_max else 0)

    def y(share):
        return TOP + plot_h * (1 - share)

    out = svg_head(title)
    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{TOP}" x2="{x(t):.1f}" y2="{TOP + plot_h}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{x(t):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{label(t)}</text>')
    for share in (0, 0.25, 0.5, 0.75, 0.9, 1):
        out.append(f'<line x1="{LEFT}" y1="{y(share):.1f}" x2="{LEFT + plot_w}" y2="{y(share):.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(share) + 4:.1f}" text-anchor="end">{share * 100:g} %</text>')
    out.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">{escape(unit)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>')
    if shown_target:
        out.append(f'<line x1="{x(target):.1f}" y1="{TOP}" x2="{x(target):.1f}" y2="{TOP + plot_h}" '
                   f'stroke="#555" stroke-dasharray="5,4"/>')
        out.append(f'<text x="{x(target) + 4:.1f}" y="{TOP + 12}" fill="#555">target {label(target)}</text>')
    for index, (name, values) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        n = len(values)
        points = [(x(0), y(0))]
        for k, v in enumerate(values):
            points.append((x(v), y(k / n)))
            points.append((x(v), y((k + 1) / n)))
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        ly = TOP + 14 + index * 34
        out.append(f'<line x1="{WIDTH - RIGHT + 12}" y1="{ly - 4}" x2="{WIDTH - RIGHT + 30}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="3"/>')
        out.append(f'<text x="{WIDTH - RIGHT + 36}" y="{ly}">{escape(name)}</text>')
        p50, p99 = values[(n - 1) // 2], values[max(0, math.ceil(0.99 * n) - 1)]
        out.append(f'<text x="{WIDTH - RIGHT + 36}" y="{ly + 14}" fill="#555">n {n}, p50 {figure(p50)}, p99 {figure(p99)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# The scale scenario's curves: chart name -> (title, unit, [(figure key, series label)]).
SCALE_CHARTS = {
    "rss": ("Daemon RSS per session", "KB", [("rss_per_session_kb", "RSS above an empty daemon, per session")]),
    "cpu": ("Daemon CPU", "% of a core",
            [("idle_cpu", "every session idle, in all"), ("cpu_per_stream", "per streaming session")]),
    "latency": ("Latency at scale, p99", "ms",
                [("status_p99", "status over the socket"), ("hop_in_p99", "chat message → pi stdin"),
                 ("hop_out_p99", "pi stdout → chat.live")]),
    "resume": ("Resumed after kill -9", "s", [("resumed", "status lists all, then a prompt reaches pi")]),
}


def curve(title, unit, points, keys):
    """`points`: [{"sessions": N, key: value}], one per size; `keys`: [(key, series label)]. The
    sessions axis is logarithmic (10, 100, 1,000). Returns the SVG text."""
    points = sorted(points, key=lambda p: p["sessions"])
    sizes = [p["sessions"] for p in points]
    series = [(name, [(p["sessions"], p[key]) for p in points if p.get(key) is not None]) for key, name in keys]
    series = [(name, xs) for name, xs in series if xs]
    top = max([v for _, xs in series for _, v in xs] + [0])
    ticks = nice_ticks(top)
    y_max = ticks[-1] or 1
    lo, hi = math.log10(min(sizes)), math.log10(max(sizes))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(n):
        return LEFT + plot_w * ((math.log10(n) - lo) / (hi - lo) if hi > lo else 0.5)

    def y(v):
        return TOP + plot_h * (1 - v / y_max)

    out = svg_head(title)
    for n in sizes:
        out.append(f'<line x1="{x(n):.1f}" y1="{TOP}" x2="{x(n):.1f}" y2="{TOP + plot_h}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{x(n):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{n:,}</text>')
    for t in ticks:
        out.append(f'<line x1="{LEFT}" y1="{y(t):.1f}" x2="{LEFT + plot_w}" y2="{y(t):.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{label(t)}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">sessions (log scale); '
               f'{escape(unit)} upward</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>')
    for index, (name, xs) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in xs)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        for n, v in xs:
            out.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>')
        ly = TOP + 14 + index * 34
        out.append(f'<line x1="{WIDTH - RIGHT + 12}" y1="{ly - 4}" x2="{WIDTH - RIGHT + 30}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="3"/>')
        out.append(f'<text x="{WIDTH - RIGHT + 36}" y="{ly}">{escape(name)}</text>')
        shown = ", ".join(f"{n:,}: {figure(v)}" for n, v in xs)
        out.append(f'<text x="{WIDTH - RIGHT + 36}" y="{ly + 14}" fill="#555">{escape(shown)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    """Draws bench/charts/NAME.svg again from the samples the last `make bench` kept in
    bench/work/charts/NAME.json (after a change to this file, without running the bench)."""
    here = os.path.dirname(os.path.abspath(__file__))
    kept = os.path.join(here, "work", "charts")
    names = sorted(n[:-5] for n in os.listdir(kept) if n.endswith(".json")) if os.path.isdir(kept) else []
    for name in names:
        with open(os.path.join(kept, name + ".json")) as f:
            c = json.load(f)
        if name.endswith(".curves"):
            for chart, (title, unit, keys) in SCALE_CHARTS.items():
                drawn = f"{name[:-len('.curves')]}-{chart}.svg"
                with open(os.path.join(here, "charts", drawn), "w") as f:
                    f.write(curve(title, unit, c, keys))
                print("bench/charts/" + drawn)
            continue
        with open(os.path.join(here, "charts", name + ".svg"), "w") as f:
            f.write(distribution(c["title"], c["unit"], c["series"], c["target"]))
        print(f"bench/charts/{name}.svg")
    if not names:
        print("no samples kept: run make bench first", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

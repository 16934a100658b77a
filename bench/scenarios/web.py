"""7. The web dashboard in a real headless Chromium (Debian's chromium and chromium-driver,
spoken to over W3C WebDriver with urllib), with the real daemon, formatter and web plugin and the
bench pi behind 50 sessions.

first paint: a signed-in browser loads the sessions page; the page marks the frame after the one
             that drew the rows (`sessions-drawn`, ms since navigation start). Baseline, in the
             same browser: a static page from Python's http.server that draws 50 rows from
             inline data and marks the same moment.
deltas:      a session page is open; the bench pi writes `bench:ticks` runs, one text delta every
             GAP ms with a logged wall-clock time; the page logs (wall clock) when each marker
             first reached its DOM. The run's first delta and the later ones are reported apart.
cpu:         20 sessions stream prose at 20 deltas a second for 15 s each, all bound to web pages,
             one page open (so one session's live view is rendered in html; the pages no browser
             shows get no live views, and the finals are rendered after the phase ends: the
             formatter's counts show 145 format.live and no format.final in it). The CPU of the
             daemon, formatter and web plugin is compared with the same streams with no web
             plugin (the daemon and formatter alone). The target row is the web plugin's CPU
             plus what the formatter's html rendering adds to the formatter's; what the
             dashboard adds to the whole relay (the daemon's difference too) is reported beside.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

from ._relayd import Relayd, ThreadCPU, free_port, percentile, read_jsonl, not_run, scenario_work

SESSIONS = 50
TICKS = 12
GAP_MS = 150
RUNS = 6
STREAMS = 20
STREAM_SECONDS = 15
STREAM_RATE = 20
PAINT_TARGET_MS = 300.0
FIRST_TARGET_MS = 50.0
LATER_TARGET_MS = 150.0
CPU_TARGET = 0.5
CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class Browser:
    def __init__(self, scratch):
        self.port = free_port()
        self.proc = subprocess.Popen([DRIVER, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.request("GET", "/status")["ready"]:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                                         "--window-size=1280,900", f"--user-data-dir={tempfile.mkdtemp(dir=scratch)}"]}}}}
        self.session = self.request("POST", "/session", caps, timeout=120)["sessionId"]

    def request(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())["value"]

    def cmd(self, method, path, body=None):
        return self.request(method, f"/session/{self.session}{path}", body)

    def open(self, url):
        self.cmd("POST", "/url", {"url": url})

    def run(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.run(script)
            if value:
                return value
            time.sleep(0.02)
        raise RuntimeError(f"timed out waiting for: {script}")

    def quit(self):
        try:
            self.request("DELETE", f"/session/{self.session}")
        except OSError:
            pass
        self.proc.terminate()
        self.proc.wait(10)


def baseline_page(folder):
    rows = json.dumps([{"name": f"s{i}", "state": "idle", "cwd": f"/home/me/project/{i}"} for i in range(SESSIONS)])
    with open(os.path.join(folder, "index.html"), "w") as f:
        f.write("<!doctype html><title>baseline</title><table id=t></table><script>"
                f"const rows = {rows}; const t = document.getElementById('t');"
                "for (const r of rows) { const tr = document.createElement('tr');"
                " for (const v of [r.name, r.state, r.cwd]) { const td = document.createElement('td'); td.textContent = v; tr.append(td); }"
                " t.append(tr); }"
                "requestAnimationFrame(() => setTimeout(() => performance.mark('sessions-drawn')));</script>")


def painted(browser, url):
    browser.open(url)
    return browser.wait("const m = performance.getEntriesByName('sessions-drawn'); return m.length ? m[0].startTime : null")


def pair(ctx, d):
    out = subprocess.run([ctx.exe("pi-relayd"), "pair", "web", "--json"], env=d.env, capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout.strip().splitlines()[-1])["link"]


def measure_streams(d, ids, names, pi_log, tag):
    """Streams into every session at once; (CPU seconds of the daemon and `names`, wall seconds,
    the seconds of each). Each process's CPU is read from its threads' nanosecond counters,
    sampled while the streams run (`ThreadCPU`): in clock ticks, these rows moved by a tick's
    0.07 % from run to run."""
    pids = {"daemon": d.pid}
    for n in names:
        p = d.plugin(n)
        if not p or "pid" not in p:
            raise RuntimeError(f"plugin {n} is not running as the streams start: {p}")
        pids[n] = p["pid"]
    watches, t0 = {k: ThreadCPU(pid) for k, pid in pids.items()}, time.monotonic()
    for i, sid in enumerate(ids):
        d.call("send", {"session": sid, "text": f"bench:stream:{tag}{i}:{STREAM_SECONDS}:{STREAM_RATE}"})
    wait_done(pi_log, tag, len(ids), STREAM_SECONDS + 60, each=lambda: [w.sample() for w in watches.values()])
    for w in watches.values():
        w.sample()
    each = {k: w.seconds() for k, w in watches.items()}
    return sum(each.values()), time.monotonic() - t0, each


def wait_done(pi_log, tag, count, timeout, each=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if each:
            each()
        done = [e for e in read_jsonl(pi_log) if e.get("ev") == "done" and str(e.get("tag", "")).startswith(tag)]
        if len(done) >= count:
            return
        time.sleep(0.2)
    raise RuntimeError(f"the {tag} streams did not finish")


def run(ctx):
    for path in (CHROMIUM, DRIVER):
        if not os.access(path, os.X_OK):
            return not_run("web", f"{path} is missing: make deps installs chromium and chromium-driver")
    rows = []
    work, pi_log, cwd = scenario_work(ctx, "web")
    port = free_port()
    d = Relayd(ctx, "web", env={"BENCH_PI_LOG": pi_log})
    d.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    d.link_plugin("web", ctx.exe("pi-relay-web"))
    d.configure({"pi": {"command": d.stub("bench-pi")}, "web": {"listen": f"127.0.0.1:{port}"}})
    base = f"http://127.0.0.1:{port}"
    static = None
    browser = None
    try:
        d.start()
        d.wait_plugin("web")
        d.wait_plugin("formatter")
        ids = [d.call("new", {"cwd": cwd, "name": f"s{i}"})["id"] for i in range(SESSIONS)]
        browser = Browser(d.scratch)
        browser.open(pair(ctx, d))
        browser.run("document.getElementById('signin-button').click()")
        browser.wait("return location.pathname === '/' && document.querySelector('#main') !== null")

        # First paint, against a static page drawing the same rows, interleaved.
        folder = os.path.join(d.scratch, "static")
        os.makedirs(folder)
        baseline_page(folder)
        sport = free_port()
        static = subprocess.Popen(["python3", "-m", "http.server", "--bind", "127.0.0.1", "--directory", folder, str(sport)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        ours, theirs = [], []
        for _ in range(RUNS):
            theirs.append(painted(browser, f"http://127.0.0.1:{sport}/index.html"))
            ours.append(painted(browser, base + "/"))
            count = browser.run("return document.querySelectorAll('#sessions tbody tr').length")
            if count != SESSIONS:
                raise RuntimeError(f"the sessions page drew {count} rows, not {SESSIONS}")
        ours.sort()
        theirs.sort()
        med, base_med = ours[len(ours) // 2], theirs[len(theirs) // 2]
        rows.append({"scenario": "web", "metric": f"first paint, {SESSIONS} sessions (ms, median)", "value": float(med),
                     "target": f"< {PAINT_TARGET_MS:.0f} ms", "met": max(ours) < PAINT_TARGET_MS})
        rows.append({"scenario": "web", "metric": "first paint, static page baseline (ms)", "value": float(base_med), "target": ""})
        rows.append({"scenario": "web", "metric": "first paint / baseline", "value": med / max(base_med, 0.001), "target": ""})

        # Delta latency: one page open on a session; ticks with wall-clock emit times.
        sid = ids[0]
        browser.open(base + "/s/" + sid)
        browser.wait("return document.querySelector('#prompt') !== null")
        time.sleep(1.0)
        browser.run("window.benchLive = []")
        for r in range(RUNS):
            d.call("send", {"session": sid, "text": f"bench:ticks:t{r}x:{TICKS}:{GAP_MS}"})
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if any(e.get("marker") == f"t{r}x-{TICKS}" for e in read_jsonl(pi_log)):
                    break
                time.sleep(0.1)
            time.sleep(0.6)
        live = browser.run("return window.benchLive")
        emits = {e["marker"]: e["wall"] / 1e6 for e in read_jsonl(pi_log) if e.get("ev") == "emit"}
        first, later = [], []
        for marker, at in emits.items():
            seen = next((t for t, text in live if f" {marker} " in f" {text} "), None)
            if seen is None:
                raise RuntimeError(f"{marker} never reached the page")
            (first if marker.endswith("-1") else later).append(seen - at)
        p99_first, p99_later = percentile(first, 99), percentile(later, 99)
        ctx.chart("web-deltas", "Web dashboard: a text delta to the page's DOM (headless Chromium)", "ms",
                  [("a run's first delta", first), ("later deltas", later)], LATER_TARGET_MS)
        rows.append({"scenario": "web", "metric": f"first delta to DOM (ms, p99 of {len(first)})", "value": float(p99_first),
                     "target": f"< {FIRST_TARGET_MS:.0f} ms", "met": p99_first < FIRST_TARGET_MS})
        rows.append({"scenario": "web", "metric": f"later delta to DOM (ms, p99 of {len(later)})", "value": float(p99_later),
                     "target": f"< {LATER_TARGET_MS:.0f} ms", "met": p99_later < LATER_TARGET_MS})

        # CPU while 20 sessions stream into web pages, one open.
        streams = ids[1:1 + STREAMS]
        for s in streams:
            browser.open(base + "/s/" + s)
            browser.wait("return document.querySelector('#prompt') !== null")
        browser.open(base + "/s/" + streams[0])
        web_cpu, web_wall, web_each = measure_streams(d, streams, ["formatter", "web"], pi_log, "w")
    finally:
        if browser:
            browser.quit()
        if static:
            static.terminate()
        d.stop()

    # The same streams with no web plugin: the daemon and formatter alone, nothing rendered.
    work2, pi_log2, cwd2 = scenario_work(ctx, "web-baseline")
    b = Relayd(ctx, "webb", env={"BENCH_PI_LOG": pi_log2})
    b.link_plugin("formatter", ctx.exe("pi-relay-formatter"))
    b.configure({"pi": {"command": b.stub("bench-pi")}})
    try:
        b.start()
        b.wait_plugin("formatter")
        streams = [b.call("new", {"cwd": cwd2, "name": f"b{i}"})["id"] for i in range(STREAMS)]
        base_cpu, base_wall, base_each = measure_streams(b, streams, ["formatter"], pi_log2, "b")
    finally:
        b.stop()
    relay_added = (web_cpu / web_wall - base_cpu / base_wall) * 100
    # The target's own words: the web plugin, plus what the formatter's html rendering adds to
    # the formatter. The daemon's share (serving any messenger's chats) is reported beside it.
    added = (web_each.get("web", 0) + web_each.get("formatter", 0)) / web_wall * 100 - base_each.get("formatter", 0) / base_wall * 100
    rows.append({"scenario": "web", "metric": f"relay CPU, {STREAMS} streams into web pages (% of a core)",
                 "value": web_cpu / web_wall * 100, "target": ""})
    for name in ("daemon", "formatter", "web"):
        rows.append({"scenario": "web", "metric": f"  {name} with / without (% of a core)",
                     "value": f"{web_each.get(name, 0) / web_wall * 100:.2f} / {base_each.get(name, 0) / base_wall * 100:.2f}", "target": ""})
    rows.append({"scenario": "web", "metric": "relay CPU, same streams without the web plugin (% of a core)",
                 "value": base_cpu / base_wall * 100, "target": ""})
    rows.append({"scenario": "web", "metric": "what the dashboard adds to the whole relay, daemon included (% of a core)",
                 "value": relay_added, "target": ""})
    rows.append({"scenario": "web", "metric": "CPU the web plugin and html add (% of a core)", "value": added,
                 "target": f"< {CPU_TARGET} %", "met": added < CPU_TARGET})
    return rows

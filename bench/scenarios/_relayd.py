"""A pi-relayd daemon under test: a throw-away home, its config, stub plugins, the foreground
process, its control socket, and what /proc says about it. Shared by the scenarios."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
STUBS = os.path.join(BENCH, "stubs")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


class RelaydError(Exception):
    pass


def install_stub(name, dest):
    """Copies bench/stubs/NAME to DEST, mode 0755, run by the interpreter running the bench
    (`-S`: no site packages, a faster start), whatever the checkout's umask or PATH say."""
    with open(os.path.join(STUBS, name), encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n", 1)
    if lines[0].startswith("#!"):
        text = f"#!{sys.executable} -S\n" + lines[1]
    with open(dest, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(dest, 0o755)
    return dest


def read_jsonl(path):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except FileNotFoundError:
        pass
    return out


def scenario_work(ctx, name):
    """The scenario's folder under bench/work, emptied of an earlier run's files; the bench pi's
    log in it, and a project folder for the sessions. Returns (work, pi_log, cwd)."""
    work = os.path.join(ctx.work, name)
    os.makedirs(work, exist_ok=True)
    for n in os.listdir(work):
        if os.path.isfile(os.path.join(work, n)):
            os.unlink(os.path.join(work, n))
    cwd = os.path.join(work, "project")
    os.makedirs(cwd, exist_ok=True)
    return work, os.path.join(work, "pi.jsonl"), cwd


def marker_times(msg_log, pi_log):
    """The moments each marker `mk…q` passed, from the bench messenger's and the bench pi's logs:
    sent by the messenger, first seen live by it, read by pi, written by pi."""
    sends = {e["tag"]: e["mono"] for e in read_jsonl(msg_log) if e.get("ev") == "send"}
    lives = {}
    for e in read_jsonl(msg_log):
        if e.get("ev") == "live" and e["marker"] not in lives:
            lives[e["marker"]] = e["mono"]
    recvs = {e["marker"]: e["mono"] for e in read_jsonl(pi_log) if e.get("ev") == "recv"}
    emits = {e["marker"]: e["mono"] for e in read_jsonl(pi_log) if e.get("ev") == "emit"}
    return sends, lives, recvs, emits


def process_cpu_seconds(pid):
    """utime + stime of a process, its ended threads included (/proc/PID/stat, clock ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_times(pid):
    """{thread id: CPU ns} for a process's live threads (/proc/PID/task/*/schedstat): finer than
    clock ticks. OSError when the process is gone."""
    times = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                times[tid] = int(f.read().split()[0])
        except (OSError, IndexError, ValueError):
            pass
    return times


class ThreadCPU:
    """A process's CPU from its threads' own nanosecond counters (`thread_times`), read again at
    each `sample()`: a thread that ends keeps the time it had at its last sample. The thread pool
    ends only threads idle for seconds, so sampling every fraction of a second loses next to
    nothing, where the process's clock ticks (/proc/PID/stat) are good only to a tick: 10 ms,
    0.07 % of a core over 15 s."""

    def __init__(self, pid):
        self.pid = pid
        self.start = thread_times(pid)
        if not self.start:
            raise RuntimeError(f"no thread CPU counters for process {pid} (/proc/{pid}/task/*/schedstat)")
        self.last = dict(self.start)

    def sample(self):
        """Reads the counters again; a process that has ended keeps what it had."""
        try:
            self.last.update(thread_times(self.pid))
        except OSError:
            pass

    def seconds(self):
        """CPU seconds since it was made, as of the last sample."""
        return sum(ns - self.start.get(tid, 0) for tid, ns in self.last.items()) / 1e9


def free_port():
    """A loopback TCP port nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def not_run(scenario, why):
    """The one row of a scenario that could not run, saying why."""
    return [{"scenario": scenario, "metric": "not run", "value": " ".join(why.split())[:120], "target": "runs", "met": False}]


class Rows(list):
    """A scenario's result rows; `add` rounds a float value to `digits` (None: as it is)."""

    def __init__(self, scenario, digits=3):
        super().__init__()
        self.scenario = scenario
        self.digits = digits

    def add(self, metric, value, target="", met=None, functional=False):
        """`functional`: the row states that the scenario worked (every sample came, every
        session was listed), which `--functional` runs check while they ignore targets."""
        if isinstance(value, float) and self.digits is not None:
            value = round(value, self.digits)
        row = {"scenario": self.scenario, "metric": metric, "value": value, "target": target}
        if met is not None:
            row["met"] = met
        if functional:
            row["functional"] = True
        self.append(row)


def percentile(xs, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


class Relayd:
    """One daemon. `plugins` maps plugin ids to executables (linked into home/plugins); bundled
    plugins are switched off so each scenario says exactly what runs."""

    def __init__(self, ctx, tag, config=None, plugins=None, env=None):
        self.ctx = ctx
        self.tag = tag
        # Short: the control socket path must fit in sun_path.
        self.home = tempfile.mkdtemp(prefix=f"prb-{tag}-", dir="/tmp")
        self.scratch = os.path.join(self.home, "scratch")
        self.plugins_dir = os.path.join(self.home, "plugins")
        for d in (self.scratch, self.plugins_dir):
            os.makedirs(d, mode=0o700, exist_ok=True)
        os.chmod(self.home, 0o700)
        self.sock = os.path.join(self.home, "relayd.sock")
        for name, path in (plugins or {}).items():
            os.symlink(path, os.path.join(self.plugins_dir, name))
        self.configure(config or {})
        self.env = dict(os.environ)
        self.env.update({"PI_RELAYD_HOME": self.home, "PI_RELAYD_BUNDLED_PLUGINS": ""})
        self.env.update(env or {})
        self.proc = None

    def configure(self, config):
        with open(os.path.join(self.home, "config.yaml"), "w") as f:
            json.dump(config, f, indent=1)  # JSON is YAML

    def link_plugin(self, name, path):
        os.symlink(path, os.path.join(self.plugins_dir, name))

    def stub(self, name):
        """Installs a stub into the scratch folder and returns its path."""
        return install_stub(name, os.path.join(self.scratch, name))

    # -- lifecycle ---------------------------------------------------------------------------

    def spawn(self):
        """Starts the daemon in the foreground, its stderr to daemon.stderr; does not wait."""
        err = open(os.path.join(self.home, "daemon.stderr"), "wb")
        self.proc = subprocess.Popen([self.ctx.exe("pi-relayd"), "start", "--foreground"], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                     start_new_session=True)
        err.close()

    def start(self, timeout=30):
        self.spawn()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RelaydError(f"pi-relayd exited with {self.proc.returncode}: {self.tail('daemon.stderr')}")
            try:
                self.call("ping", timeout=5)
                return self
            except (OSError, RelaydError):
                time.sleep(0.05)
        raise RelaydError(f"pi-relayd did not open its control socket within {timeout} s")

    @property
    def pid(self):
        return self.proc.pid

    def halt(self):
        """Stops the running daemon and waits for it to exit; its home stays for another start."""
        if self.proc and self.proc.poll() is None:
            try:
                self.call("stop", timeout=10)
            except (OSError, RelaydError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def stop(self, keep_logs=True):
        self.halt()
        if keep_logs:
            dest = os.path.join(self.ctx.work, "logs", self.tag)
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(dest, exist_ok=True)
            for src in [os.path.join(self.home, "logs"), self.scratch]:
                if not os.path.isdir(src):
                    continue
                for n in os.listdir(src):
                    p = os.path.join(src, n)
                    if os.path.isfile(p) and not os.access(p, os.X_OK) and os.path.getsize(p) < 64 << 20:
                        shutil.copy(p, dest)
            if os.path.exists(os.path.join(self.home, "daemon.stderr")):
                shutil.copy(os.path.join(self.home, "daemon.stderr"), dest)
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def tail(self, name, n=2000):
        try:
            with open(os.path.join(self.home, name), "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    # -- control socket ----------------------------------------------------------------------

    def call(self, method, params=None, timeout=120):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.sock)
            s.sendall((json.dumps({"id": "1", "method": method, "params": params or {}}) + "\n").encode())
            buf = b""
            while b"\n" not in buf:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        if not buf:
            raise RelaydError(f"{method}: no answer")
        r = json.loads(buf.split(b"\n", 1)[0])
        if "error" in r:
            raise RelaydError(f"{method}: {r['error'].get('code')}: {r['error'].get('message')}")
        return r.get("result")

    def plugin_call(self, name, method, params=None, timeout=60, deliver=False):
        return self.call("plugins.call", {"name": name, "method": method, "params": params or {},
                                          "deliver": deliver, "timeoutMs": int(timeout * 1000)}, timeout=timeout + 10)

    def plugin(self, name):
        for p in self.call("plugins") or []:
            if p.get("name") == name:
                return p
        return None

    def wait_plugin(self, name, state="running", timeout=60):
        deadline = time.monotonic() + timeout
        p = None
        while time.monotonic() < deadline:
            p = self.plugin(name)
            if p and p.get("state") == state:
                return p
            time.sleep(0.05)
        raise RelaydError(f"plugin {name} is not {state} after {timeout} s: {p}; "
                          f"log: {self.tail('logs/pi-relayd.log', 1500)}")

    # -- /proc -------------------------------------------------------------------------------

    def rss_bytes(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def cpu_seconds(self):
        """utime + stime of the daemon itself (children not included)."""
        return process_cpu_seconds(self.pid)

    def thread_times(self, pid=None):
        """{thread id: CPU ns} for the daemon's live threads, or `pid`'s (`thread_times`).
        Compare two readings with `cpu_between`."""
        return thread_times(pid or self.pid)

    @staticmethod
    def cpu_between(before, after):
        """CPU seconds between two `thread_times` readings: each thread alive at the second
        reading, from its first reading (0 when it started since). A thread that ended between
        them is missed; the thread pool ends only threads that have been idle a while."""
        return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9

    def plugin_cpu_seconds(self, name):
        """utime + stime of a running plugin's process (its pid from `plugins`); None when down."""
        p = self.plugin(name)
        if not p or "pid" not in p:
            return None
        try:
            return process_cpu_seconds(p["pid"])
        except OSError:
            return None

    def threads(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
        return 0

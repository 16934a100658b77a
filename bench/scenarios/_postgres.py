"""A PostgreSQL for one bench run: Debian's server programs (under /usr/lib/postgresql/*/bin)
make a cluster in a temporary folder and serve it on 127.0.0.1 at a free port, with the
server's default durability (fsync and synchronous_commit on). Under root the folder is the
postgres user's and the programs run as it (PostgreSQL refuses to run as root)."""
import glob
import os
import pwd
import shutil
import subprocess
import tempfile

from ._relayd import free_port


def bin_dir():
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0)
    return versions[-1] if versions else None


class Postgres:
    def __init__(self):
        self.bin = bin_dir()
        self.folder = tempfile.mkdtemp(prefix="prb-pg-", dir="/tmp")
        self.data = os.path.join(self.folder, "data")
        self.sockets = os.path.join(self.folder, "socket")
        os.makedirs(self.sockets)
        if os.getuid() == 0:
            user = pwd.getpwnam("postgres")
            for path in (self.folder, self.sockets):
                os.chown(path, user.pw_uid, user.pw_gid)
        self.port = free_port()

    @property
    def url(self):
        return f"postgres://relay@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def _run(self, program, args):
        argv = [os.path.join(self.bin, program)] + args
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        subprocess.run(argv, cwd=self.folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def start(self):
        self._run("initdb", ["-D", self.data, "-U", "relay", "--auth=trust", "-E", "UTF8", "--no-instructions"])
        self._run("pg_ctl", ["-D", self.data, "-l", os.path.join(self.folder, "server.log"), "-w", "-t", "60", "-o",
                             f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.sockets}", "start"])
        return self

    def stop(self):
        try:
            self._run("pg_ctl", ["-D", self.data, "-w", "-m", "fast", "stop"])
        except Exception:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)

"""Ctrl-C works while a `--jobs` worker is stopped (reliability round 3,
item 15).

Before: the main process answered SIGINT by sending SIGTERM to its workers
and waiting for them; a worker stopped with SIGSTOP keeps SIGTERM pending
until it is continued, so the ingest waited for ever and Ctrl-C seemed
ignored. Now SIGCONT follows SIGTERM, and a worker still there after a
grace time is killed (its shard is thrown away). Checked: a --jobs 2 ingest
of two generated traces whose worker is SIGSTOPped once it has started, then
SIGINT (and SIGTERM) to the main process: exit 130 (143) within 20 s, says
nothing was stored, the database as it was, no worker left, no shard folder
left."""

import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (GENTRACE, PROFDB, SOURCE, Checker, run, scaled, table_counts,  # noqa: E402
                    tempdir)


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []




def main():
    c = Checker()
    with tempdir() as tmp:
        big = [os.path.join(tmp, f"big{i}.json") for i in range(2)]
        for i, path in enumerate(big):
            subprocess.run([GENTRACE, "--steps", str(scaled(800, 150)), "--rank", str(i),
                            "--world", "2", "--seed", str(i + 1), path],
                           check=True, capture_output=True)
        base = os.path.join(tmp, "base.db")
        run("ingest", "-q", "--run", "earlier",
            os.path.join(SOURCE, "samples", "pstats", "sample.prof"), db=base)
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            name = signal.Signals(sig).name
            folder = os.path.join(tmp, name)
            os.mkdir(folder)
            db = os.path.join(folder, "t.db")
            shutil.copy(base, db)
            before = table_counts(db)
            p = subprocess.Popen([PROFDB, "--db", db, "ingest", "--jobs", "2", "--run", "big",
                                  *big], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True)
            workers = []
            for _ in range(500):
                workers = children(p.pid)
                if workers or p.poll() is not None:
                    break
                time.sleep(0.01)
            c.true(f"{name}: a worker started", bool(workers))
            for w in workers:
                os.kill(w, signal.SIGSTOP)
            time.sleep(0.3)
            p.send_signal(sig)
            try:
                _, err = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                for w in workers:
                    os.kill(w, signal.SIGKILL)
                p.kill()
                _, err = p.communicate()
                c.true(f"{name} with a stopped worker: ends within 20 s", False)
                continue
            c.eq(f"{name} with a stopped worker: exit", p.returncode, code)
            c.true(f"{name}: says nothing was stored", "nothing was stored" in err, err)
            c.eq(f"{name}: the database as it was", table_counts(db), before)
            alive = [w for w in workers if os.path.exists(f"/proc/{w}") and
                     open(f"/proc/{w}/stat").read().split()[2] != "Z"]
            c.eq(f"{name}: no worker left", alive, [])
            c.eq(f"{name}: no shard folder left",
                 [f for f in os.listdir(folder) if f.startswith(".profdb-shards-")], [])
    c.close()


if __name__ == "__main__":
    main()

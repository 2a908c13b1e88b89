"""Signals end an ingest that waits for input (issue 13 item 8).

A FIFO with no writer blocks open(); a pipe whose writer is silent blocks
read(). SIGINT and SIGTERM must end both at once, with the usual exit
status (128 + N), the usual message, and the database as it was. Needs no
corpus: the inputs are made here."""

import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import PROFDB, TIMEOUT, Checker, run, tempdir  # noqa: E402


def wait_started(p, seconds=2.0):
    """Gives the child time to reach its blocking call."""
    time.sleep(seconds)
    return p.poll() is None


def interrupt(c, what, cmd, sig, stdin=None):
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    c.true(f"{what}: still waiting before the signal", wait_started(p))
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        c.true(f"{what}: ends after {signal.Signals(sig).name}", False, "still blocked")
        return
    c.eq(f"{what}: exit status", p.returncode, 128 + sig)
    c.true(f"{what}: ends promptly", time.monotonic() - t0 < TIMEOUT / 2)
    c.true(f"{what}: says nothing was stored", "nothing was stored" in err, err)


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        log = os.path.join(tmp, "s.jsonl")
        with open(log, "w") as f:
            f.write('{"step": 1, "step_time": 0.5}\n')
        run("ingest", "-q", "--db", db, "--run", "before", log)
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        interrupt(c, "FIFO without a writer, SIGINT", [PROFDB, "ingest", "--db", db, fifo],
                  signal.SIGINT)
        writer = subprocess.Popen(["sleep", "60"], stdout=subprocess.PIPE)
        interrupt(c, "silent pipe, SIGTERM", [PROFDB, "ingest", "--db", db, "-"],
                  signal.SIGTERM, stdin=writer.stdout)
        writer.kill()
        writer.wait()
        _, out, _ = run("runs", "--db", db, "--format", "csv")
        c.eq("the database still holds only the run from before",
             [line.split(",")[0] for line in out.splitlines()[1:]], ["before"])
    return c.close()


if __name__ == "__main__":
    sys.exit(main())

"""Tables fit the terminal they are printed on, and only there.

On a pseudo terminal 80 and 100 columns wide (the width from $COLUMNS for
80, from the terminal itself, TIOCGWINSZ, for 100), every report that
applies to a corpus trace, a pstats dump and a step log prints its tables
within the terminal's width; what was left out is said in one line on
stderr. With --wide the terminal gets exactly the bytes a pipe gets, so a
pipe gets the whole table (the golden tests hold those bytes). Names cut
to fit stay as many as they were: kernels that differ only in a template
argument still print differently. --columns chooses columns in every
format and refuses a name the table lacks, listing those it has."""

import csv
import fcntl
import io
import json
import os
import pty
import select
import struct
import subprocess
import termios

from common import PROFDB, Checker, checked_subset, need_corpus, run, tempdir

# Not tables: DOT and gnuplot text; the tool's own text formats (pstats
# print_stats and print_callers/callees, the rectified-flow profiler's
# blocks), printed as those tools print them.
NOT_TABLES = {"pstats-dot", "pstats-chart", "pstats", "callers", "callees", "rf-report"}
INPUTS = {
    "trace": ("traces", "trace_filter_sampled_rank-0.json.gz"),
    "pstats": ("pstats", "hta_analysis.prof"),
    "steplog": ("steplogs", "nanogpt_train.log"),
}


def run_tty(args, cols, db, use_env):
    """profdb with stdout on a pseudo terminal cols wide: (exit code,
    stdout as the terminal got it, stderr)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if use_env:
        env["COLUMNS"] = str(cols)
        # The terminal says otherwise: $COLUMNS wins.
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 300, 0, 0))
    p = subprocess.Popen([PROFDB, "--db", db] + list(args), stdout=slave,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    # The parent keeps its end of the slave open until the child has exited
    # and the master is drained: closing it early makes Linux answer EIO on
    # the master while the child's last writes may still be in the tty
    # buffer, and a busy machine then loses the tail of the output.
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.02)
        if ready:
            chunks.append(os.read(master, 65536))
            continue
        if p.poll() is not None:
            ready, _, _ = select.select([master], [], [], 0.1)
            if not ready:
                break
    os.close(slave)
    os.close(master)
    err = p.stderr.read().decode()
    p.wait()
    return p.returncode, b"".join(chunks).decode().replace("\r\n", "\n"), err


def table_lines(text):
    """The header, rule and row lines of every table in text: a rule line
    (dashes and double spaces) and the lines around it up to a blank one."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if line and set(line) <= {"-", " "} and i > 0:
            out.append(lines[i - 1])
            for row in lines[i:]:
                if not row.strip():
                    break
                out.append(row)
    return out


def applicable(db, run_name):
    _, out, _ = run("report", "--run", run_name, db=db)
    for line in out.splitlines():
        if line.startswith("reports that apply:"):
            return [r for r in line.split(":", 1)[1].split() if r not in NOT_TABLES]
    raise AssertionError(f"no 'reports that apply' line for {run_name}:\n{out}")


def check_fit(c, db, run_name, report):
    args = ["report", "--run", run_name, report]
    _, piped, _ = run(*args, db=db)
    for cols, use_env in ((80, True), (100, False)):
        rc, out, err = run_tty(args, cols, db, use_env)
        c.eq(f"{run_name} {report} at {cols}: exit code", rc, 0)
        lines = table_lines(out)
        c.true(f"{run_name} {report} at {cols}: has a table", len(lines) >= 2)
        wide = [ln for ln in lines if len(ln) > cols]
        c.true(f"{run_name} {report} at {cols}: table within {cols} columns", not wide,
               f"{len(wide)} lines wider, the first {len(wide[0]) if wide else 0}: "
               f"{wide[:1]}")
        notes = [ln for ln in err.splitlines() if "left out column" in ln]
        if notes:
            c.true(f"{run_name} {report}: the note says how to get them",
                   "--wide" in notes[0] and "--columns" in notes[0], notes[0])
    rc, out, _ = run_tty(args + ["--wide"], 80, db, True)
    c.eq(f"{run_name} {report} --wide on a terminal is what a pipe gets", out, piped)


def distinct_names(lines, column):
    """The distinct cells of a left-aligned text column: each ends where
    the header's next column starts."""
    header = lines[0]
    start = header.index(column)
    stop = start + len(column)
    while stop < len(header) and header[stop] == " ":
        stop += 1
    return {ln[start:stop].rstrip() for ln in lines[2:]}


def check_names(c, db):
    """Kernels cut to 80 columns are as many distinct names as whole."""
    args = ["report", "--run", "trace", "kernels", "--top", "40"]
    _, out, _ = run(*args, "--format", "json", "--names", "short", db=db)
    whole = {row["name"] for row in json.loads(out)}
    _, fitted, _ = run_tty(args, 80, db, True)
    cut = distinct_names(table_lines(fitted), "name")
    c.true("kernels at 80 columns: some names cut", any("…" in n for n in cut))
    c.eq("kernels at 80 columns: as many distinct names as whole", len(cut), len(whole))


def check_columns(c, db):
    args = ["report", "--run", "trace", "kernels", "--top", "5"]
    _, out, _ = run(*args, "--columns", "name,total_us", db=db)
    c.eq("--columns: the header", table_lines(out)[0].split(), ["name", "total_us"])
    _, out, _ = run(*args, "--columns", "total_ns,rank", "--format", "csv", db=db)
    rows = list(csv.reader(io.StringIO(out)))
    c.eq("--columns in CSV: the header (query or printed names)", rows[0], ["total_us", "rank"])
    c.eq("--columns in CSV: two cells a row", {len(r) for r in rows}, {2})
    rc, out, err = run(*args, "--columns", "name,totl_us", check=False, db=db)
    c.eq("--columns with an unknown name: exit code", rc, 2)
    c.true("--columns with an unknown name: says which and lists the columns",
           "totl_us" in err and "total_us" in err and "share_pct" in err, err)


def check_kernel_names(c, db):
    """check -m kernel:NAME takes a short form or a pattern, says which
    kernel it is, and refuses a pattern that matches several."""
    _, out, _ = run("report", "--run", "trace", "kernels", "--top", "3", "--format", "json",
                    "--names", "full", db=db)
    full = json.loads(out)[0]["name"]
    _, out, _ = run("report", "--run", "trace", "kernels", "--top", "3", "--format", "json",
                    "--names", "short", db=db)
    short = json.loads(out)[0]["name"]
    c.true("the top kernel has a short form", short != full and short in full, short)
    rcs = []
    for given in (full, short, "*" + short[3:]):
        rc, out, err = run("check", "trace", "trace", "-m", f"kernel:{given}=10", check=False,
                           db=db)
        rcs.append(rc)
        said = [ln for ln in err.splitlines() if "is the kernel" in ln]
        if given == full:
            c.eq("kernel:FULL: nothing to say", said, [])
        else:
            c.eq(f"kernel:{given[:20]}...: said once which kernel", len(said), 1)
            c.true(f"kernel:{given[:20]}...: names the full name", said and full in said[0],
                   err)
        c.true(f"kernel:{given[:20]}...: gated on its steps", "GPU time per ProfilerStep" in out + err,
               out[-300:])
    c.eq("kernel:FULL, SHORT and a pattern: same exit code", len(set(rcs)), 1)
    rc, _, err = run("check", "trace", "trace", "-m", "kernel:*=10", check=False, db=db)
    c.eq("kernel:* (every kernel): refused", rc, 2)
    c.true("kernel:*: lists candidates", "kernels: " in err and "give more of the name" in err, err[:300])


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for run_name, parts in INPUTS.items():
            run("ingest", "--run", run_name, need_corpus(*parts), db=db)
        pairs = [(run_name, report) for run_name in INPUTS
                 for report in applicable(db, run_name)]
        for run_name, report in checked_subset(pairs, 3, "reports"):
            check_fit(c, db, run_name, report)
        check_names(c, db)
        check_columns(c, db)
        check_kernel_names(c, db)
    c.close()


if __name__ == "__main__":
    main()

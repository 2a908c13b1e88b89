"""scripts/slurm/ on a real, single-node Slurm cluster (issue 16).

Starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm) as root
with a configuration written into a temporary folder (own key, socket,
ports, state and spool), submits scripts/slurm/submit.sh twice at once: two
ranks of one run (--run job: each array task ingests one rank into its own
shard, the dependent job merges them and writes a report), and three traces
as runs of their own, both merging into the same database. Then checks
that the merged database equals a local `profdb ingest --jobs 1` of the same
files (runs, ranks, row counts of every table, analysis rows, reports), that
the report file holds `profdb report gpu`'s output, that the shards are
deleted, and stops the daemons at the end, also on failure.

Four more submissions at the same time have hostile names (issue 30 item
13), each merging its own database: inputs whose names hold newlines (one
in its folder, one at its end; before, the task list shifted and the jobs
failed), PROFDB_INGEST_ARGS with a label value '*' while a file named
'note=GLOBBED' lies in the folder the jobs run in (before, the shell
glob-expanded it), a shard folder given relative to the working folder
that starts with '-' (before, mkdir took it for options), and one holding
'%j', '%a' and '%%' (before, sbatch expanded them in --output and the jobs
failed). Each: every job completed, every input ingested under its own
name, the run equal to a local ingest, the logs in the shard folder under
their own names. A shard folder with a backslash, which sbatch cannot name
per-task logs in (it then replaces no '%a'), is refused before anything is
submitted.

A named long run, not in CI: PROFDB_SLURM_RANKS=N (N >= 8; 1,024 for issue
35) replaces all of the above with one job of N ranks: small generated
traces (profdb-gentrace, 5 steps each, one rank a designed straggler whose
data loading takes 4 times as long) submitted as an N-task array with
PROFDB_KEEP_SHARDS=1 and a dependent merge+report job (rank-spread). Checks
that every task and the merge completed, the job database has N ranks and
N shard files and no events, report.txt names the straggler first on the
step row with 'data loading', and `report --rank` of the straggler prints
what a local ingest of its trace prints; prints the times (README, "On a
Slurm cluster").
"""

# ctest-labels: slow (starts a Slurm cluster, about 10 to 20 s)

import os
import shutil
import signal
import socket
import subprocess
import time

from common import GENTRACE, PROFDB, SOURCE, Checker, missing, need_corpus, run, tempdir
from test_merge import OTHERS, RANK0, RANK1, content, reports, table_counts

DAEMONS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"]
WAIT = 120  # seconds for the jobs (the first scheduling pass can take a while)
SCALE = int(os.environ.get("PROFDB_SLURM_RANKS") or 0)  # the long run: N ranks


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_conf(d, host):
    # OverSubscribe=FORCE:4: up to four jobs share a core. The jobs ingest
    # small traces; one job per core kept all but two of the 18 jobs
    # waiting, and slurmctld starts the next about 3 s after one ends (the
    # test took 37 s, 30 of them waiting; with sharing, 17 s).
    # MaxArraySize: Slurm's default, 1001, allows no 1,024-task array.
    conf = os.path.join(d, "slurm.conf")
    with open(conf, "w") as f:
        f.write(f"""ClusterName=profdbtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
InactiveLimit=0
MinJobAge=600
MaxArraySize=4097
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
""")
    return conf


class Cluster:
    """munged + slurmctld + slurmd in folder d; stop() ends them all."""

    def __init__(self, d):
        self.d = d
        os.mkdir(d)
        for sub in ("state", "spool"):
            os.mkdir(os.path.join(d, sub))
        self.env = dict(os.environ, SLURM_CONF=write_conf(d, socket.gethostname()))

    def log_tail(self):
        out = []
        for name in ("munged.log", "slurmctld.log", "slurmd.log"):
            path = os.path.join(self.d, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    out += [f"{name}: {line.rstrip()}" for line in f.readlines()[-5:]]
        return "\n".join(out)

    def start(self):
        d = self.d
        key = os.path.join(d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        subprocess.run(["munged", "--force", f"--key-file={key}", f"--socket={d}/munge.sock",
                        f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log",
                        f"--seed-file={d}/munged.seed"], check=True, capture_output=True)
        conf = self.env["SLURM_CONF"]
        subprocess.run(["slurmctld", "-f", conf, "-i"], env=self.env, check=True,
                       capture_output=True)
        subprocess.run(["slurmd", "-f", conf], env=self.env, check=True, capture_output=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            p = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True,
                               text=True)
            if p.returncode == 0 and p.stdout.strip() in ("idle", "mixed", "allocated"):
                return True
            time.sleep(0.3)
        return False

    def wait_idle(self, wait=WAIT):
        deadline = time.time() + wait
        while time.time() < deadline:
            p = subprocess.run(["squeue", "-h"], env=self.env, capture_output=True, text=True)
            if p.returncode == 0 and not p.stdout.strip():
                return True
            time.sleep(0.3)
        return False

    def stop(self):
        subprocess.run(["scontrol", "shutdown"], env=self.env, capture_output=True)
        subprocess.run(["munged", "-s", f"--socket={self.d}/munge.sock"], capture_output=True)
        time.sleep(0.5)
        # whatever did not go: by the pid files of this cluster only
        for name in ("slurmd.pid", "slurmctld.pid", "munged.pid"):
            path = os.path.join(self.d, name)
            try:
                with open(path) as f:
                    os.kill(int(f.read().split()[0]), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass


def job_states(cluster, job_ids):
    p = subprocess.run(["scontrol", "-o", "show", "job"], env=cluster.env, capture_output=True,
                       text=True)
    states = {}
    for line in p.stdout.splitlines():
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if fields.get("ArrayJobId", fields.get("JobId")) in job_ids or \
                fields.get("JobId") in job_ids:
            states[fields.get("JobId") + "_" + fields.get("ArrayTaskId", "")] = \
                fields.get("JobState")
    return states


def submit(c, cluster, *args, cwd=None, env=None):
    env = dict(cluster.env, PROFDB=os.path.abspath(PROFDB), **(env or {}))
    p = subprocess.run(["sh", os.path.join(SOURCE, "scripts", "slurm", "submit.sh"), *args],
                       env=env, capture_output=True, text=True, cwd=cwd)
    c.eq(f"submit.sh {' '.join(args[:2])!r}: exit 0", (p.returncode, p.stderr), (0, ""))
    words = p.stdout.split()
    return [w for w in words if w.isdigit()]


# Hostile names, one submission each (case: shard folder relative to tmp,
# whether the inputs' names hold newlines, PROFDB_INGEST_ARGS).
HOSTILE = {
    "newline": ("shards-newline", True, ""),
    "glob": ("shards-glob", False, "--label note=* --label gpus=2"),
    "dash": ("-shards", False, ""),
    "percent": ("shards %j-%a-%%", False, ""),
}


def hostile_inputs(tmp):
    """The two ranks under names holding newlines (one in the folder, one at
    the end of the name)."""
    folder = os.path.join(tmp, "in\nputs")
    os.mkdir(folder)
    inputs = [os.path.join(folder, "first\nrank.json.gz"),
              os.path.join(folder, "second.json.gz\n")]
    for src, dst in zip((RANK0, RANK1), inputs):
        shutil.copyfile(src, dst)
    return inputs


def submit_hostile(c, cluster, tmp):
    """Submits every HOSTILE case; returns {case: (job ids, inputs)}."""
    newline = hostile_inputs(tmp)
    got = {}
    for case, (shards, nl, args) in HOSTILE.items():
        inputs = newline if nl else [RANK0, RANK1]
        if args:  # files a glob of the options would match, where the jobs run
            open(os.path.join(tmp, "note=GLOBBED"), "w").close()
        jobs = submit(c, cluster, "--run", "hostile", f"hostile-{case}.db", shards, *inputs,
                      cwd=tmp, env={"PROFDB_INGEST_ARGS": args})
        got[case] = (jobs, inputs)
    return got


def check_hostile(c, cluster, tmp, submitted):
    for case, (jobs, inputs) in submitted.items():
        shards, _, args = HOSTILE[case]
        states = job_states(cluster, set(jobs))
        c.eq(f"{case}: two tasks and the merge completed", sorted(states.values()),
             ["COMPLETED"] * 3)
        out = os.path.join(tmp, f"hostile-{case}.db")
        if not os.path.exists(out):
            c.true(f"{case}: the merged database exists", False)
            continue
        local = os.path.join(tmp, f"local-{case}.db")
        run("ingest", "--jobs", "1", "-q", "--run", "hostile", *args.split(), "--", *inputs,
            db=local)
        got, want = content(out), content(local)
        c.eq(f"{case}: every input ingested, under its own name",
             sorted(p for (_, p, *_) in got["sources"]), sorted(inputs))
        for k in want:
            c.true(f"{case}: {k} equal to a local ingest", got[k] == want[k],
                   f"{len(got[k])} vs {len(want[k])} rows: {got[k][:3]} vs {want[k][:3]}")
        logs = sorted(f for f in os.listdir(os.path.join(tmp, shards))
                      if f.endswith((".log", ".txt")))
        c.eq(f"{case}: the logs and the report in the shard folder, named as written", logs,
             ["ingest-0.log", "ingest-1.log", "inputs.txt", "merge.log", "report.txt"])
    c.eq("glob: the labels as given, not glob-expanded",
         content(os.path.join(tmp, "hostile-glob.db"))["labels"]
         if os.path.exists(os.path.join(tmp, "hostile-glob.db")) else None,
         [("hostile", "gpus", "2"), ("hostile", "note", "*")])
    stray = [f for f in os.listdir(tmp) if f.endswith(".log")]
    c.eq("no log outside the shard folders", stray, [])
    env = dict(cluster.env, PROFDB=os.path.abspath(PROFDB))
    p = subprocess.run(["sh", os.path.join(SOURCE, "scripts", "slurm", "submit.sh"),
                        "b.db", "back\\slash", RANK0], env=env, cwd=tmp,
                       capture_output=True, text=True)
    c.eq("a shard folder with a backslash: exit 2", p.returncode, 2)
    c.true("... saying why", "backslash" in p.stderr and not p.stdout, p.stdout + p.stderr)
    c.true("... nothing made", not os.path.exists(os.path.join(tmp, "back\\slash")))


def scale_job(c, cluster, tmp, n):
    """PROFDB_SLURM_RANKS=n: an n-task array of generated ranks and its
    dependent merge (without --full) and report; prints the times."""
    straggler = n * 617 // 1024
    traces = os.path.join(tmp, "traces")
    os.mkdir(traces)
    t0 = time.time()
    paths, procs = [], []
    for r in range(n):
        path = os.path.join(traces, f"rank-{r}.json.gz")
        paths.append(path)
        procs.append(subprocess.Popen(
            [GENTRACE, "--steps", "5", "--rank", str(r), "--world", str(n), "--seed", str(r),
             "--straggle", "data:4" if r == straggler else "data:1", "--gzip", path],
            stderr=subprocess.DEVNULL))
        if len(procs) >= 2:
            procs.pop(0).wait()
    for p in procs:
        p.wait()
    print(f"{n} traces generated in {time.time() - t0:.1f} s, straggler rank {straggler}")
    out, shards = os.path.join(tmp, "job.db"), os.path.join(tmp, "shards")
    t1 = time.time()
    jobs = submit(c, cluster, "--run", "job", out, shards, *paths, "--", "rank-spread",
                  env={"PROFDB_KEEP_SHARDS": "1"})
    print(f"submitted in {time.time() - t1:.1f} s: jobs {jobs}")
    c.true("the jobs finished", cluster.wait_idle(WAIT + 2 * n), cluster.log_tail())
    t2 = time.time()
    p = subprocess.run(["scontrol", "-o", "show", "job", jobs[-1]], env=cluster.env,
                       capture_output=True, text=True)
    merge = dict(kv.split("=", 1) for kv in p.stdout.split() if "=" in kv)
    print(f"array and merge done {t2 - t1:.1f} s after the submission; the merge job "
          f"ran {merge.get('RunTime')} ({merge.get('StartTime')} to {merge.get('EndTime')})")
    states = job_states(cluster, set(jobs))
    c.eq(f"{n} tasks and the merge completed", sorted(set(states.values())), ["COMPLETED"])
    c.eq(f"{n} tasks and the merge", len(states), n + 1)
    if not os.path.exists(out):
        c.true("the job database exists", False)
        return
    _, counts, _ = run("sql", "SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM "
                       "shard_files), (SELECT count(*) FROM slices)", "--format", "csv", db=out)
    c.eq("ranks, shard files and event rows of the job database",
         counts.strip().splitlines()[-1].strip(), f"{n},{n},0")
    shard_mb = sum(os.path.getsize(os.path.join(shards, f)) for f in os.listdir(shards)
                   if f.endswith(".db")) / 1048576
    print(f"job database {os.path.getsize(out) / 1048576:.1f} MB, {n} shards {shard_mb:.1f} MB")
    report = os.path.join(shards, "report.txt")
    text = open(report).read() if os.path.exists(report) else ""
    step = [line for line in text.splitlines() if line.startswith("step ")]
    c.true(f"report.txt names rank {straggler} first on the step row, with data loading",
           bool(step) and step[0].split("  ")[-1].startswith(f"{straggler} (+") and
           step[0].split("  ")[-1].split(", ")[0].endswith(": data loading)"), step)
    t3 = time.time()
    _, full, _ = run("report", "--rank", str(straggler), "steps", db=out)
    print(f"report --rank {straggler} steps: {time.time() - t3:.2f} s")
    local = os.path.join(tmp, "local.db")
    run("ingest", "-q", "--run", "job", paths[straggler], db=local)
    c.eq(f"report --rank {straggler} steps: as a local ingest of its trace", full,
         run("report", "steps", db=local)[1])


def main():
    need_corpus("traces")
    if os.geteuid() != 0:
        missing("Slurm's daemons are started as root, and this test does not run as root")
    absent = [d for d in DAEMONS if not shutil.which(d)]
    if absent:
        missing(f"Slurm or munge is not installed ({', '.join(absent)} not on PATH; "
                "apt-get install slurm-wlm munge, as scripts/deps.sh does)")
    c = Checker()
    with tempdir() as tmp:
        cluster = Cluster(os.path.join(tmp, "slurm"))
        try:
            t0 = time.time()
            try:
                up = cluster.start()
            except subprocess.CalledProcessError as e:
                up = False
                print(e.stderr.decode(errors="replace") if e.stderr else e)
            if not up:
                tail = cluster.log_tail()
                cluster.stop()
                missing(f"a single-node Slurm cluster did not come up:\n{tail}")
            print(f"cluster up in {time.time() - t0:.1f} s")
            if SCALE:
                scale_job(c, cluster, tmp, SCALE)
                c.close()  # exits; the cluster is stopped by the finally below
            out = os.path.join(tmp, "merged.db")
            jobs = submit(c, cluster, "--run", "job", out, os.path.join(tmp, "shards-job"),
                          RANK0, RANK1, "--", "gpu")
            jobs += submit(c, cluster, out, os.path.join(tmp, "shards-more"), *OTHERS[1:])
            hostile = submit_hostile(c, cluster, tmp)
            c.true("the jobs finished", cluster.wait_idle(), cluster.log_tail())
            print(f"jobs done {time.time() - t0:.1f} s after the start")
            states = job_states(cluster, set(jobs))
            c.true("every job completed", states and
                   all(s == "COMPLETED" for s in states.values()), states)
            c.eq("two array jobs of 2 and 3 tasks and two merge jobs", len(states), 7)
            local = os.path.join(tmp, "local.db")
            run("ingest", "--jobs", "1", "-q", "--run", "job", RANK0, RANK1, db=local)
            run("ingest", "--jobs", "1", "-q", *OTHERS[1:], db=local)
            c.eq("row count of every table", table_counts(out), table_counts(local))
            got, want = content(out), content(local)
            for k in want:
                c.true(f"{k} equal", got[k] == want[k], f"{len(got[k])} vs {len(want[k])} rows")
            c.true("every report prints the same", reports(out) == reports(local))
            report = os.path.join(tmp, "shards-job", "report.txt")
            _, gpu, _ = run("report", "--run", "job", "gpu", db=local)
            c.true("the merge job wrote the gpu report of run 'job'",
                   os.path.exists(report) and open(report).read() == gpu)
            left = [f for d in ("shards-job", "shards-more")
                    for f in os.listdir(os.path.join(tmp, d)) if f.endswith(".db")]
            c.eq("the shards are deleted after the merge", left, [])
            check_hostile(c, cluster, tmp, hostile)
        finally:
            cluster.stop()
    c.close()


if __name__ == "__main__":
    main()

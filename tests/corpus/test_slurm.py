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

Skips (exit 77, with the reason) where Slurm cannot run: not root, the
daemons missing (scripts/deps.sh installs them), or a cluster that does not
come up; with PROFDB_REQUIRE_PREREQS=1 those are failures, as for every
prerequisite."""

# ctest-labels: slow (starts a Slurm cluster, about 10 to 20 s)

import os
import shutil
import signal
import socket
import subprocess
import time

from common import PROFDB, SOURCE, Checker, missing, need_corpus, run, tempdir
from test_merge import OTHERS, RANK0, RANK1, content, reports, table_counts

DAEMONS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"]
WAIT = 120  # seconds for the jobs (the first scheduling pass can take a while)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_conf(d, host):
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
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
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

    def wait_idle(self):
        deadline = time.time() + WAIT
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


def submit(c, cluster, *args):
    env = dict(cluster.env, PROFDB=os.path.abspath(PROFDB))
    p = subprocess.run(["sh", os.path.join(SOURCE, "scripts", "slurm", "submit.sh"), *args],
                       env=env, capture_output=True, text=True)
    c.eq(f"submit.sh {' '.join(args[:2])}: exit 0", (p.returncode, p.stderr), (0, ""))
    words = p.stdout.split()
    return [w for w in words if w.isdigit()]


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
            out = os.path.join(tmp, "merged.db")
            jobs = submit(c, cluster, "--run", "job", out, os.path.join(tmp, "shards-job"),
                          RANK0, RANK1, "--", "gpu")
            jobs += submit(c, cluster, out, os.path.join(tmp, "shards-more"), *OTHERS[1:])
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
        finally:
            cluster.stop()
    c.close()


if __name__ == "__main__":
    main()

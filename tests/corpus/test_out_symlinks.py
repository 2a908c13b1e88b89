"""--out DIR never writes through a link it did not create (issue 13 item 4).

A folder written by `report --out`, `diff --out` and `trend --out` is first
made once in a scratch folder to learn the names of its files (index.md,
CSVs, chart data, gnuplot scripts and the images gnuplot draws). Then, in
a fresh folder, each of those names is planted as a symbolic link to a
file outside it (and one to a file that does not exist yet), and the same
command writes there: every target outside must be byte for byte what it
was (and the missing one must still not exist), every name in DIR must now
be a regular file, and the folder must hold the same names as the scratch
one. Before output files were created with unlink + O_EXCL|O_NOFOLLOW, the
planted index.md link made profdb overwrite its target."""

import os
import shutil
import subprocess

from common import GENTRACE, Checker, missing_part, run, tempdir

VICTIM = b"not profdb's to write\n"


def files(d):
    return sorted(os.listdir(d))


def plant(c, tmp, what, args, db):
    """Writes the folder once to learn its names, then into a folder of
    planted links; checks nothing outside changed."""
    scratch = os.path.join(tmp, what + "-scratch")
    rc, _, err = run(*args, "--out", scratch, db=db, check=False)
    c.eq(f"{what}: first folder written ({err.strip()[:200]})", rc, 0)
    names = files(scratch)
    c.true(f"{what}: the folder has files to plant", "index.md" in names and len(names) > 2,
           names)
    victims = os.path.join(tmp, what + "-victims")
    os.makedirs(victims)
    out = os.path.join(tmp, what + "-out")
    os.makedirs(out)
    for i, name in enumerate(names):
        target = os.path.join(victims, name)
        if i == 1:
            target += ".absent"   # a dangling link: following it would create the file
        else:
            with open(target, "wb") as f:
                f.write(VICTIM)
        os.symlink(target, os.path.join(out, name))
    rc, _, err = run(*args, "--out", out, db=db, check=False)
    c.eq(f"{what}: written over planted links ({err.strip()[:200]})", rc, 0)
    changed = [n for n in files(victims) if open(os.path.join(victims, n), "rb").read() != VICTIM]
    c.eq(f"{what}: no file outside DIR changed", changed, [])
    c.eq(f"{what}: no file outside DIR created", [n for n in files(victims)
                                                 if n.endswith(".absent")], [])
    links = [n for n in files(out) if os.path.islink(os.path.join(out, n))]
    c.eq(f"{what}: no planted link left in DIR", links, [])
    c.eq(f"{what}: DIR holds the same files as a fresh folder", files(out), names)


def main():
    c = Checker()
    if not shutil.which("gnuplot"):
        missing_part("gnuplot (the images it draws are not planted)")
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for name, seed in (("a", 1), ("b", 2)):
            trace = os.path.join(tmp, name + ".json")
            subprocess.run([GENTRACE, "--steps", "12", "--seed", str(seed), trace], check=True,
                           capture_output=True)
            run("ingest", "-q", "--run", name, trace, db=db)
        plant(c, tmp, "report", ["report", "--run", "a"], db)
        plant(c, tmp, "diff", ["diff", "a", "b"], db)
        plant(c, tmp, "trend", ["trend"], db)
    c.close()


if __name__ == "__main__":
    main()

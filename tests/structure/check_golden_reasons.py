#!/usr/bin/env python3
"""check_golden_reasons.py: every golden change since the rule holds says why.

A golden file (tests/golden/CASE/expected) is profdb's own output; a commit
that changes one needs a line `golden CASE: why` (tests/golden/README.md).
scripts/golden-reasons.sh checks a range of commits; this test runs it over
every commit since db31eb2, the last one that changed a golden file without
a reason (the rule was written down in 73b8576; the three commits between
that missed it are history). Outside a git checkout (a tarball) there is no
history to read: the test says so and exits 77 (Skipped), or fails when
PROFDB_REQUIRE_PREREQS=1; a shallow clone without that commit is Skipped with
its reason.
usage: check_golden_reasons.py SOURCE_DIR"""
import os
import subprocess
import sys

SINCE = "db31eb2"


def main(root):
    shallow = subprocess.run(["git", "-C", root, "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True).stdout.strip()
    have = subprocess.run(["git", "-C", root, "cat-file", "-e", SINCE + "^{commit}"],
                          capture_output=True)
    if shallow == "true" and have.returncode != 0:
        print(f"SKIPPED: {root} is a shallow clone without commit {SINCE}: its history "
              "cannot be checked (git fetch --unshallow)")
        return 77
    if have.returncode != 0:
        why = f"no git history with commit {SINCE} in {root} (not a clone?)"
        if os.environ.get("PROFDB_REQUIRE_PREREQS") == "1":
            print(f"FAIL: {why}, and PROFDB_REQUIRE_PREREQS=1 says it must be there")
            return 1
        print(f"SKIPPED: {why}")
        return 77
    p = subprocess.run(["sh", os.path.join(root, "scripts", "golden-reasons.sh"),
                        f"{SINCE}..HEAD"], capture_output=True, text=True)
    out = (p.stdout + p.stderr).strip()
    if p.returncode != 0:
        for line in out.splitlines():
            print("FAIL:", line)
        return 1
    n = subprocess.run(["git", "-C", root, "rev-list", "--count", f"{SINCE}..HEAD", "--",
                        "tests/golden"], capture_output=True, text=True).stdout.strip()
    print(f"{n} commits since {SINCE} touch tests/golden; every changed expected file says why")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

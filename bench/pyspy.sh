#!/bin/sh
# py-spy ingest benchmark: hostile raw files (a 100 MB single record, 10^6
# distinct frames, a stack 10^5 frames deep) and the largest corpus file of
# each format, each ingested into a fresh database; time as a ratio to
# `cat FILE >/dev/null` (reading the bytes) and peak RSS. Memory must stay
# flat whatever the record length (ingest/pyspy/: streaming, bounded caches).
# Then `report pyspy` on the 10^6-frame and the deep file.
#
# usage: bench/pyspy.sh [BUILD_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
profdb="$build/profdb"
corpus="$here/../../shared/corpus/pyspy"
out="$here/out/pyspy"
mkdir -p "$out"
. "$here/measure.sh"

python3 - "$out" <<'PY'
import os, sys
out = sys.argv[1]
def write(name, gen):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        with open(path, "w") as f:
            gen(f)
# one record of 100 MB: a recursive stack of 6.5 million frames
def long_record(f):
    piece = "rec (/a/r.py:5);" * 10000
    for _ in range(100 * 1024 * 1024 // len(piece)):
        f.write(piece)
    f.write("rec (/a/r.py:5) 1\n")
write("record_100mb.pyspy", long_record)
# 10^6 distinct frames: 250,000 records of 4 frames
def many(f):
    for i in range(250000):
        f.write(f"<module> (/a/main.py:1);g{i} (/a/b{i % 97}.py:{i});h{i} (/a/c.py:{i});"
                f"k{i} (x.so) 3\n")
write("frames_1e6.pyspy", many)
# a stack 10^5 frames deep (each frame distinct)
def deep(f):
    for i in range(99999):
        f.write(f"f{i} (/a/m.py:{i});")
    f.write("f99999 (/a/m.py:99999) 7\n")
write("deep_1e5.pyspy", deep)
PY

printf '%-36s %9s %8s %8s %9s\n' input MB ingest_s cat_s ratio
for f in "$out/record_100mb.pyspy" "$out/frames_1e6.pyspy" "$out/deep_1e5.pyspy" \
         "$corpus/iferadata_torch_run1.pyspy" "$corpus/jax_gp_voronoi.speedscope.json" \
         "$corpus/sim_experiment_rate1000.svg"; do
    [ -f "$f" ] || continue
    db="$out/bench.db"
    set -- $(MEASURE_FRESH="$db" measure "$profdb" --db "$db" ingest -q --no-analyze "$f")
    t=$1 rss=$2
    set -- $(measure cat "$f")
    c=$1
    mb=$(( $(wc -c <"$f") / 1048576 ))
    printf '%-36s %9s %8s %8s %9s   peak %d MiB\n' "$(basename "$f")" "$mb" "$t" "$c" \
        "$(echo "scale=1; $t / ($c + 0.01)" | bc)" $((rss / 1024))
done
rm -f "$out/bench.db"

# `report pyspy --top 20` on the hostile files (peak RSS must not grow with
# the number of distinct frames or the depth: report/pyspy.c, pyspy.sql top_*)
printf '\n%-36s %9s %9s\n' "report pyspy on" seconds peak_MiB
for f in "$out/frames_1e6.pyspy" "$out/deep_1e5.pyspy"; do
    db="$out/report.db"
    rm -f "$db"
    "$profdb" --db "$db" ingest -q --no-analyze "$f"
    set -- $(measure "$profdb" --db "$db" report pyspy --top 20)
    printf '%-36s %9s %9d\n' "$(basename "$f")" "$1" $(($2 / 1024))
done
rm -f "$out/report.db"

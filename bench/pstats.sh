#!/bin/sh
# pstats benchmark: `profdb report pstats` on the largest corpus dump against
# the same report printed by CPython's pstats (what `python3 -m pstats` runs:
# Stats(FILE).sort_stats('cumulative').print_stats(30)), timed with hyperfine
# in the same run, plus ingest + report together and peak RSS.
#
# usage: bench/pstats.sh [BUILD_DIR] [DUMP]
#   default build dir: build; default dump: the largest ../shared/corpus/pstats/*.prof
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
dump=${2:-$(ls -S "$here"/../../shared/corpus/pstats/*.prof 2>/dev/null | head -1)}
[ -n "$dump" ] && [ -f "$dump" ] || { echo "no pstats dump (pass one as DUMP)" >&2; exit 2; }
profdb="$build/profdb"
out="$here/out"
mkdir -p "$out"
db="$out/pstats.db"
rm -f "$db"
"$profdb" --db "$db" ingest --quiet --run bench "$dump"

py="import pstats, sys; pstats.Stats(sys.argv[1]).sort_stats('cumulative').print_stats(30)"
hyperfine --warmup 3 --runs 20 --export-json "$out/pstats.json" -N \
    "python3 -c \"$py\" $dump" \
    "$profdb --db $db report --run bench pstats --sort cumulative --limit 30" \
    "sh -c 'rm -f $out/one.db; $profdb --db $out/one.db ingest -q $dump && $profdb --db $out/one.db report pstats --sort cumulative --limit 30'" \
    "python3 -c pass" \
    >"$out/hyperfine.txt"

python3 - "$out/pstats.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["mean"]
names = ["python3 pstats: load + sort + print", "profdb report pstats (ingested)",
         "profdb ingest + report (fresh db)", "(python3 startup alone, for scale)"]
for name, x in zip(names, r):
    print(f"{name:40s} {x['mean']*1000:8.1f} ms +- {x['stddev']*1000:5.1f}"
          f"   ratio to pstats {x['mean']/base:5.2f}")
PY
/usr/bin/time -f "%M" -o "$out/rss.txt" "$profdb" --db "$db" report --run bench pstats \
    --sort cumulative --limit 30 >/dev/null
echo "profdb report peak RSS: $(( $(cat "$out/rss.txt") / 1024 )) MB"
# Same text apart from pstats' first line (file mtime and name)?
python3 -c "$py" "$dump" | tail -n +2 >"$out/py.txt"
"$profdb" --db "$db" report --run bench pstats --sort cumulative --limit 30 | tail -n +2 >"$out/pdb.txt"
cmp -s "$out/py.txt" "$out/pdb.txt" && echo "output: identical to pstats (after line 1)" \
    || echo "output: DIFFERS from pstats"

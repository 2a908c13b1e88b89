#!/bin/sh
# Step-log ingest benchmark: generates a JSON Lines training log with the
# project's generator (samples/gen/gensteplog.py; 7 metrics + step and epoch
# per line), then times, in the same run, `wc -l` of it (the floor: reading
# the lines), a Python loop that only json.loads() every line (what a script
# would do before storing anything) and `profdb ingest` of it, and prints the
# ratios, lines/s, values/s and peak RSS.
#
# usage: bench/steplog.sh [BUILD_DIR] [LINES]   (default build, 1000000 lines ~ 195 MB)
set -eu
build=$(cd "${1:-build}" && pwd)
lines=${2:-1000000}
src=$(cd "$(dirname "$0")/.." && pwd)
out="$src/bench/out"
mkdir -p "$out"
log="$out/steps_$lines.jsonl"
[ -f "$log" ] || python3 "$src/samples/gen/gensteplog.py" jsonl "$lines" > "$log"
bytes=$(wc -c < "$log")

. "$(dirname "$0")/measure.sh"

wc=$(measure wc -l "$log")
py=$(measure python3 -c "import json, sys
for line in open(sys.argv[1]): json.loads(line)" "$log")
ing=$(MEASURE_FRESH="$out/steplog.db $out/steplog.db-wal $out/steplog.db-shm" measure "$build/profdb" --db "$out/steplog.db" ingest --quiet "$log")
values=$("$build/profdb" --db "$out/steplog.db" sql "SELECT records FROM sources" --format tsv | tail -1)
wt=${wc% *}; pt=${py% *}; it=${ing% *}; rss=${ing#* }
echo "log: $lines lines, $(echo "scale=1; $bytes / 1000000" | bc) MB, $values values"
echo "wc -l:  ${wt} s"
echo "python json.loads loop: ${pt} s"
# ratio A B: A / B, or n/a when B rounds to zero (tiny inputs)
ratio() { if [ "$(echo "$2 > 0" | bc)" = 1 ]; then echo "scale=2; $1 / $2" | bc; else echo n/a; fi; }
echo "ingest: ${it} s  (ratio ingest / wc -l $(ratio "$it" "$wt"),"\
     "ingest / python json.loads $(ratio "$it" "$pt"))"
echo "lines/s: $(echo "$lines / $it" | bc)"
echo "values/s: $(echo "$values / $it" | bc)"
echo "peak RSS: $(echo "$rss / 1024" | bc) MB"

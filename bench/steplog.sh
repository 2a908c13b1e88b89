#!/bin/sh
# Step-log ingest benchmark: generates a JSON Lines training log with the
# project's generator (samples/gen/gensteplog.py; 7 metrics + step and epoch
# per line), then times, in the same run, best of three each: `wc -l` of it
# (the floor: reading the lines), a Python loop that only json.loads() every
# line, pandas.read_json(lines=True) (the baseline of issue 14; pandas from
# Debian's python3-pandas, for this benchmark only) and `profdb ingest` of
# it; then two reports read back from the database. Prints the ratios
# (ingest / pandas, database size / log size), lines/s, values/s and peak
# RSS.
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
db="$out/steplog.db"

. "$(dirname "$0")/measure.sh"

# pandas: the first interpreter that has it (pyenv's python3 may not see
# Debian's packages)
pandas_py=""
for py in python3 /usr/bin/python3; do
    if "$py" -c "import pandas" 2>/dev/null; then pandas_py=$py; break; fi
done

wc=$(measure wc -l "$log")
py=$(measure python3 -c "import json, sys
for line in open(sys.argv[1]): json.loads(line)" "$log")
pd=""
if [ -n "$pandas_py" ]; then
    pd=$(measure "$pandas_py" -c "import pandas, sys
pandas.read_json(sys.argv[1], lines=True)" "$log")
fi
ing=$(MEASURE_FRESH="$db $db-wal $db-shm" measure "$build/profdb" --db "$db" ingest --quiet "$log")
dbbytes=$(wc -c < "$db")
values=$("$build/profdb" --db "$db" sql "SELECT records FROM sources" --format tsv | tail -1)
metric=$(measure "$build/profdb" --db "$db" report metrics --metric step_time --format csv)
phases=$(measure "$build/profdb" --db "$db" report phases --format csv)

wt=${wc% *}; pt=${py% *}; it=${ing% *}; rss=${ing#* }
# ratio A B: A / B, or n/a when B rounds to zero (tiny inputs)
ratio() { if [ "$(echo "$2 > 0" | bc)" = 1 ]; then echo "scale=2; $1 / $2" | bc; else echo n/a; fi; }
mb() { echo "scale=1; $1 / 1000000" | bc; }
echo "log: $lines lines, $(mb "$bytes") MB, $values values"
echo "wc -l:  ${wt} s"
echo "python json.loads loop: ${pt} s"
if [ -n "$pd" ]; then
    echo "pandas read_json(lines=True): ${pd% *} s, peak RSS $(echo "${pd#* } / 1024" | bc) MB"
else
    echo "pandas read_json: not measured (no python3 with pandas; apt-get install python3-pandas)"
fi
echo "ingest: ${it} s  (ratio ingest / wc -l $(ratio "$it" "$wt"),"\
     "ingest / python json.loads $(ratio "$it" "$pt"))"
[ -z "$pd" ] || echo "ratio ingest / pandas read_json: $(ratio "$it" "${pd% *}")  (goal <= 0.5)"
echo "database: $(mb "$dbbytes") MB; ratio database / log: $(ratio "$dbbytes" "$bytes")  (goal <= 0.5)"
echo "lines/s: $(echo "$lines / $it" | bc)"
echo "values/s: $(echo "$values / $it" | bc)"
echo "peak RSS: $(echo "$rss / 1024" | bc) MB"
echo "report metrics --metric step_time: ${metric% *} s; report phases: ${phases% *} s"

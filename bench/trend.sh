#!/bin/sh
# Trend benchmark: a database of RUNS nightly runs (step logs of STEPS steps
# each, ~100 ms, a 10% shift at 70% of the history; generated and ingested
# into bench/out/ at bench time, not committed), then, best of three each in
# the same run:
#   floor     profdb sql "SELECT count(*) FROM runs": start-up and opening
#   runs      profdb runs --format csv: another command over every run
#   cold      profdb trend with no stored summaries: every run's step times
#             read, summarised and stored (what the first trend pays once)
#   warm      profdb trend (table): the summaries read back, change points,
#             the table rendered - what every later trend pays
#   check     profdb trend --check 5%
#   out       profdb trend --out DIR (charts written, not drawn: gnuplot's
#             time is not profdb's)
# and prints the times, the ratios to the floor and to `runs`, and peak RSS.
#
# usage: bench/trend.sh [BUILD_DIR] [RUNS] [STEPS]   (default build, 1000 runs, 200 steps)
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-1000}
steps=${3:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
out="$src/bench/out"
db="$out/trend_${runs}x${steps}.db"
logs="$out/trend_logs_${runs}x${steps}"
mkdir -p "$out"
profdb="$build/profdb"

if [ ! -f "$db" ]; then
    rm -rf "$logs"
    mkdir -p "$logs"
    python3 - "$logs" "$runs" "$steps" <<'EOF'
import os, random, sys
logs, runs, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
for r in range(runs):
    lvl = 0.1 * (1.1 if r >= runs * 7 // 10 else 1.0) * (1 + 0.01 * rng.gauss(0, 1))
    with open(os.path.join(logs, "night%05d.jsonl" % r), "w") as f:
        for s in range(steps):
            f.write('{"step": %d, "step_time": %.6f, "loss": %.4f}\n'
                    % (s + 1, lvl * (1 + 0.02 * rng.gauss(0, 1)), 3 - s * 0.001))
EOF
    "$profdb" --db "$db" ingest --quiet "$logs"/*.jsonl
    rm -rf "$logs"
fi

. "$(dirname "$0")/measure.sh"

# measure10 CMD...: "SECONDS PEAK_KB" per run, from the best of three
# timings of ten runs in a row (/usr/bin/time counts in 10 ms steps; a warm
# trend takes about that).
measure10() {
    set -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do "$@" >/dev/null || exit 1; done' sh "$@"
    r=$(measure "$@")
    echo "$(echo "scale=4; ${r% *} / 10" | bc) ${r#* }"
}

# cold: the stored summaries are dropped before each of three runs.
cold() {
    best=""
    for i in 1 2 3; do
        "$profdb" --db "$db" sql --write "DELETE FROM run_summaries" >/dev/null
        /usr/bin/time -f "%e %M" -o "$out/time.txt" "$profdb" --db "$db" trend >/dev/null
        t=$(cut -d' ' -f1 "$out/time.txt")
        rss=$(cut -d' ' -f2 "$out/time.txt")
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; best_rss=$rss; fi
    done
    echo "$best $best_rss"
}

floor=$(measure10 "$profdb" --db "$db" sql "SELECT count(*) FROM runs")
list=$(measure10 "$profdb" --db "$db" runs --format csv)
cold=$(cold)
warm=$(measure10 "$profdb" --db "$db" trend)
check=$(measure10 "$profdb" --db "$db" trend --check 5%)
folder=$(PROFDB_GNUPLOT= measure10 "$profdb" --db "$db" trend --out "$out/trend_folder")
found=$("$profdb" --db "$db" trend --changes --format csv | tail -n +2 | cut -d, -f1 | tr '\n' ' ')

# ratio A B: A / B, or n/a when B rounds to zero
ratio() { if [ "$(echo "$2 > 0" | bc)" = 1 ]; then echo "scale=2; $1 / $2" | bc; else echo n/a; fi; }
ft=${floor% *}; lt=${list% *}
echo "history: $runs runs x $steps steps; change points found: $found"
for m in "floor:$floor" "runs:$list" "cold trend:$cold" "warm trend:$warm" \
         "trend --check:$check" "trend --out:$folder"; do
    name=${m%%:*}; v=${m#*:}; t=${v% *}; rss=${v#* }
    echo "$name: ${t} s, peak RSS $(echo "$rss / 1024" | bc) MB" \
         "(ratio to floor $(ratio "$t" "$ft"), to runs $(ratio "$t" "$lt"))"
done

#!/bin/sh
# Job-scale benchmark (issue 35): a generated job of RANKS ranks (default
# 1,024), each a small profdb-gentrace trace with its own rank, one of them
# a designed straggler (STRAGGLER, default rank 617) whose extra time is in a
# known place: its compute kernels, its all-reduces (comm wait) or its data
# loading (profdb-gentrace --straggle KIND:F); it also arrives LATE_US
# (default 300) late at every all-reduce (profdb-gentrace --late: the other
# ranks' all-reduces wait for it). The ranks are ingested as a job
# of PER_SHARD-rank nodes would ingest them: one shard per node, each by
# `profdb ingest --jobs 2` of its ranks' traces; the shards are merged without
# --full into a job database, the straggler's shard last, and the job report
# (`report ranks gpu rank-spread rank-kernels collectives steps`) is timed
# after that last shard.
#
# Checked, for each straggler kind (exit 1 when a check fails):
#   - `ranks` notes no other rank as 'straggler' (its p-value and note for
#     the straggler are printed: see below);
#   - `rank-spread` names it first on the step row with its cause (compute:
#     'GPU computation', comm: 'GPU communication', data: 'data loading');
#   - `collectives` names it alone as the latest rank, about LATE_US late
#     (when LATE_US > 0; not for comm, where its own all-reduces are slow);
#   - `report --out` of the job: the per-rank charts (gpu, rank-steps) draw
#     at most 15 ranks (the quantiles and the outliers), rank-steps names it
#     '(max, outlier)', and rank-hist draws the ranks' distribution;
#   - on the 32 ranks of the four shards around the straggler, the same
#     reports print the same output merged without --full as merged --full.
#
# usage: bench/job_scale.sh [BUILD_DIR] [KIND:F...]
#   (default: build compute:1.5 comm:1.5 data:4)
#   RANKS (1024), PER_SHARD (8), STEPS (5 steps a rank), STRAGGLER (617),
#   LATE_US (300; 0: no late arrival).
# The 1,023 other ranks are the same for every kind (--straggle KIND:1 gives
# the same trace whatever KIND), so only the straggler's shard is made again
# per kind. Traces and shards are kept in bench/out/job_scale/.
set -eu
build=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- compute:1.5 comm:1.5 data:4
ranks=${RANKS:-1024}
per=${PER_SHARD:-8}
steps=${STEPS:-5}
straggler=${STRAGGLER:-617}
late_us=${LATE_US:-300}
late=""
[ "$late_us" != 0 ] && late="--late $straggler:$late_us"
if [ $((ranks % per)) -ne 0 ] || [ "$ranks" -lt $((4 * per)) ] || [ "$straggler" -ge "$ranks" ]; then
    echo "job_scale.sh: RANKS must be a multiple of PER_SHARD, at least 4 shards, STRAGGLER < RANKS" >&2
    exit 2
fi
profdb=$build/profdb
gen=$build/profdb-gentrace
out=$(cd "$(dirname "$0")" && pwd)/out/job_scale/r$ranks-p$per-s$steps-l$late_us
mkdir -p "$out/traces" "$out/shards"
shards=$((ranks / per))
sk=$((straggler / per))  # the straggler's shard
# the four shards around the straggler's: the 32-rank subset (at PER_SHARD 8)
lo=$((sk - 1)); [ "$lo" -lt 0 ] && lo=0
[ $((lo + 4)) -gt "$shards" ] && lo=$((shards - 4))
fail=0
t0=$(date +%s)

# Traces of the ranks, one per rank (F = 1 for all: the straggler's own is made per kind).
r=0
while [ "$r" -lt "$ranks" ]; do
    [ -f "$out/traces/rank-$r.json.gz" ] || echo "$r"
    r=$((r + 1))
# shellcheck disable=SC2086 # $late: two words or none
done | xargs -r -P 2 -I R "$gen" --steps "$steps" --rank R --world "$ranks" --seed R \
    --straggle data:1 $late --gzip "$out/traces/rank-R.json.gz" 2>/dev/null
t1=$(date +%s)

# One shard per node of PER_SHARD ranks, ingested by `ingest --jobs 2`; the
# straggler's node gets its shard per kind below.
node_inputs() { # node [straggler's trace]
    i=$(($1 * per))
    while [ "$i" -lt $((($1 + 1) * per)) ]; do
        if [ "$i" -eq "$straggler" ] && [ -n "${2:-}" ]; then echo "$2"; else echo "$out/traces/rank-$i.json.gz"; fi
        i=$((i + 1))
    done
}
k=0
while [ "$k" -lt "$shards" ]; do
    if [ "$k" -ne "$sk" ] && [ ! -f "$out/shards/node-$k.db" ]; then
        # shellcheck disable=SC2046 # trace paths without blanks, made here
        "$profdb" --db "$out/shards/node-$k.db" ingest -q --jobs 2 --run job $(node_inputs "$k")
    fi
    k=$((k + 1))
done
t2=$(date +%s)
# The job database of every node but the straggler's, made once.
if [ ! -f "$out/others.db" ]; then
    k=0
    set_list=""
    while [ "$k" -lt "$shards" ]; do
        [ "$k" -ne "$sk" ] && set_list="$set_list $out/shards/node-$k.db"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086 # paths made here, without blanks
    /usr/bin/time -f "%e" -o "$out/others.time" "$profdb" merge -q "$out/others.tmp.db" $set_list
    mv "$out/others.tmp.db" "$out/others.db"
fi
t3=$(date +%s)
others_mb=$(du -cm "$out"/shards/node-*.db | tail -1 | cut -f1)  # with the straggler variants
echo "job: $ranks ranks of $steps steps, $shards shards of $per ranks (profdb ingest --jobs 2 each)," \
    "straggler rank $straggler; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "traces made or reused in $((t1 - t0)) s, shards in $((t2 - t1)) s ($others_mb MB)," \
    "merge of the $((shards - 1)) other shards $(cat "$out/others.time") s (made once, reused: $((t3 - t2)) s now)"
printf '%-12s %9s %10s %10s %8s %6s  %-22s %s\n' straggler "ingest s" "last merge" "reports s" \
    "job MB" subset "ranks: p, note" "rank-spread's step row"

for kf in "$@"; do
    kind=${kf%%:*}
    f=${kf#*:}
    case $kind in
    compute) cause="GPU computation" ;;
    comm) cause="GPU communication" ;;
    data) cause="data loading" ;;
    *) echo "job_scale.sh: $kf: KIND is compute, comm or data" >&2; exit 2 ;;
    esac
    tag="$kind-$f"
    st="$out/traces/rank-$straggler-$tag.json.gz"
    # shellcheck disable=SC2086 # $late: two words or none
    [ -f "$st" ] || "$gen" --steps "$steps" --rank "$straggler" --world "$ranks" --seed "$straggler" \
        --straggle "$kind:$f" $late --gzip "$st" 2>/dev/null
    shard="$out/shards/node-$sk-$tag.db"
    rm -f "$shard"
    # shellcheck disable=SC2046 # trace paths without blanks, made here
    /usr/bin/time -f "%e" -o "$out/time.txt" "$profdb" --db "$shard" ingest -q --jobs 2 --run job \
        $(node_inputs "$sk" "$st")
    ingest_s=$(cat "$out/time.txt")
    # the last shard into the job database of the others, then the job report
    job="$out/job-$tag.db"
    rm -f "$job" "$job-wal" "$job-shm"
    cp "$out/others.db" "$job"
    /usr/bin/time -f "%e" -o "$out/time.txt" "$profdb" merge -q "$job" "$shard"
    merge_s=$(cat "$out/time.txt")
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
    /usr/bin/time -f "%e" -o "$out/time.txt" sh -c \
        '"$1" --db "$2" report ranks gpu rank-spread rank-kernels collectives steps >"$3"' sh "$profdb" "$job" "$out/report-$tag.txt"
    report_s=$(cat "$out/time.txt")
    job_mb=$(echo "scale=1; $(stat -c %s "$job") / 1048576" | bc)
    # `ranks`: the straggler's p-value and note (its Mann-Whitney test is
    # Bonferroni-corrected over the ranks: p x ranks < 0.01; with 5 steps a
    # rank at 1,024 ranks that needs steps all above nearly every other)
    noted=$("$profdb" --db "$job" report --format tsv ranks | tr -d "\r" |
        awk -F"\t" -v r="$straggler" '$1 == r { printf "p %.2g %s\n", $(NF - 1), ($NF == "" ? "-" : $NF) }
            $1 != r && $NF == "straggler" { print "and rank " $1 "!" }' | tr '\n' ' ')
    case $noted in *!*) echo "FAIL $tag: ranks notes another rank as straggler: $noted" >&2; fail=1 ;; esac
    # rank-spread's step row names it first, with its cause
    step_row=$("$profdb" --db "$job" report --format tsv rank-spread | awk -F'\t' '$1 == "step" { print $NF }')
    case $step_row in
    "$straggler (+"*": $cause)"*) ;;
    *) echo "FAIL $tag: rank-spread's step row is '$step_row', not rank $straggler with '$cause'" >&2; fail=1 ;;
    esac
    # collectives names it alone, about LATE_US late
    latest=$("$profdb" --db "$job" report --format tsv collectives | awk -F'\t' 'NR == 2 { print $NF }')
    # (not for comm: the straggler's own all-reduce kernels are the slow ones
    # there, longer than the others' wait for it, so it does not look late)
    if [ "$late_us" != 0 ] && [ "$kind" != comm ]; then
        case $latest in
        "$straggler (+"*" us, last "*)
            case $latest in *"), "*) echo "FAIL $tag: collectives names more than the straggler: '$latest'" >&2; fail=1 ;; esac ;;
        *) echo "FAIL $tag: collectives' latest is '$latest', not rank $straggler" >&2; fail=1 ;;
        esac
    fi
    # the report folder: per-rank charts draw the quantile ranks and the
    # outliers, not 1,024 bars, and name the straggler
    rm -rf "$out/folder-$tag"
    /usr/bin/time -f "%e" -o "$out/time.txt" "$profdb" --db "$job" report --out "$out/folder-$tag" >/dev/null 2>&1
    folder_s=$(cat "$out/time.txt")
    bars=""
    for ch in gpu rank-steps; do
        n=$(grep -c '^"rank ' "$out/folder-$tag/$ch.dat" || true)
        bars="$bars $ch $n"
        [ "$n" -le 15 ] || { echo "FAIL $tag: chart $ch draws $n ranks" >&2; fail=1; }
    done
    grep -q "^\"rank $straggler (max, outlier)\"" "$out/folder-$tag/rank-steps.dat" ||
        { echo "FAIL $tag: rank-steps does not name rank $straggler as the max outlier" >&2; fail=1; }
    [ -f "$out/folder-$tag/rank-hist.svg" ] || { echo "FAIL $tag: no rank-hist chart" >&2; fail=1; }
    # the 32-rank subset: without --full and --full give the same reports
    set --
    k=$lo
    while [ "$k" -lt $((lo + 4)) ]; do
        if [ "$k" -eq "$sk" ]; then set -- "$@" "$shard"; else set -- "$@" "$out/shards/node-$k.db"; fi
        k=$((k + 1))
    done
    rm -f "$out/sub.db" "$out/sub-full.db"
    "$profdb" merge -q "$out/sub.db" "$@"
    "$profdb" merge -q --full "$out/sub-full.db" "$@"
    same=same
    for rep in ranks gpu rank-spread rank-kernels collectives steps; do
        "$profdb" --db "$out/sub.db" report "$rep" >"$out/sub.txt"
        "$profdb" --db "$out/sub-full.db" report "$rep" >"$out/sub-full.txt"
        cmp -s "$out/sub.txt" "$out/sub-full.txt" || { same=DIFFERS; fail=1
            echo "FAIL $tag: report $rep on ranks $((lo * per))-$(((lo + 4) * per - 1)): not as on --full" >&2; }
    done
    printf '%-12s %9s %10s %10s %8s %6s  %-22s %s\n' "$tag" "$ingest_s" "$merge_s" "$report_s" "$job_mb" \
        "$same" "$noted" "$step_row; latest at all-reduces: ${latest:--}; report --out ${folder_s} s, bars:$bars"
done
for rep in ranks gpu rank-spread rank-kernels collectives steps; do
    # shellcheck disable=SC2016 # $1 $2 $3 are the inner shell's arguments
    /usr/bin/time -f "%e" -o "$out/time.txt" sh -c '"$1" --db "$2" report "$3" >/dev/null' sh "$profdb" \
        "$job" "$rep"
    printf 'report %s: %s s  ' "$rep" "$(cat "$out/time.txt")"
done
echo
echo "(each row: the straggler's shard ingested, merged last into the job database of the other" \
    "$((shards - 1)), then 'report ranks gpu rank-spread rank-kernels collectives steps' of the $ranks ranks; target <= 5 s;" \
    "subset: ranks $((lo * per))-$(((lo + 4) * per - 1)) merged without and with --full)"
exit "$fail"

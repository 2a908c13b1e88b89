# measure.sh: sourced by the bench scripts. Needs $out (a scratch folder).
#
# measure CMD...  prints "SECONDS PEAK_KB": the best wall time of three runs
# (from /usr/bin/time) and that run's peak RSS. Before each run the files
# named in $MEASURE_FRESH (space-separated) are removed, so a database
# benchmark starts from nothing every time.
measure() {
    best=""
    for i in 1 2 3; do
        [ -z "${MEASURE_FRESH:-}" ] || rm -f $MEASURE_FRESH
        /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/stderr.txt"
        t=$(cut -d' ' -f1 "$out/time.txt")
        rss=$(cut -d' ' -f2 "$out/time.txt")
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; best_rss=$rss; fi
    done
    echo "$best $best_rss"
}

# measure.sh: sourced by the bench scripts. Needs $out (a scratch folder).
#
# measure CMD...  prints "SECONDS PEAK_KB": the best wall time of three runs
# (from /usr/bin/time) and that run's peak RSS. Before each run the files
# named in $MEASURE_FRESH (space-separated) are removed, so a database
# benchmark starts from nothing every time. The CPU seconds (user + system)
# of that best run are left in $out/measure_cpu.txt: on a busy machine
# they move less than the wall time.
measure() {
    best=""
    for i in 1 2 3; do
        [ -z "${MEASURE_FRESH:-}" ] || rm -f $MEASURE_FRESH
        /usr/bin/time -f "%e %M %U %S" -o "$out/time.txt" "$@" >/dev/null 2>"$out/stderr.txt"
        t=$(cut -d' ' -f1 "$out/time.txt")
        rss=$(cut -d' ' -f2 "$out/time.txt")
        cpu=$(echo "$(cut -d' ' -f3 "$out/time.txt") + $(cut -d' ' -f4 "$out/time.txt")" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
            best=$t; best_rss=$rss; echo "$cpu" >"$out/measure_cpu.txt"
        fi
    done
    echo "$best $best_rss"
}

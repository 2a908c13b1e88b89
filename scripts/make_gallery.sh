#!/bin/sh
# Regenerates the chart gallery of docs/reports.md from the samples, so a
# reader sees every chart before running anything:
#   docs/img/gallery/NAME.png   each chart as `profdb report --out`,
#                               `profdb diff --out` and `profdb trend --out`
#                               draw it (default size, pngcairo)
#   docs/img/sample_gpu.png,    the README's charts
#   docs/img/sample_steps.png
#   docs/reports.md             the text between the gallery markers
# Inputs: samples/traces (two ranks, and rank 0 alone), samples/pstats,
# samples/steplogs/train.jsonl and generic_trainer.log. Made here from them,
# and said so under each chart: a slower copy of the traces and of the step
# log (the "after" of the diffs), the step log on two ranks (one slow), an
# nvidia-smi log and a nightly history of step logs (the trend).
# usage: scripts/make_gallery.sh [PROFDB]   (default: build/profdb)
# Needs gnuplot (scripts/deps.sh installs gnuplot-nox); chromium for the
# screenshot of a report page (left out without it). Deterministic.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
profdb=${1:-$root/build/profdb}
command -v gnuplot >/dev/null || { echo "gnuplot is not on PATH (scripts/deps.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=$root/samples
out=$root/docs/img/gallery
rm -rf "$out"
mkdir -p "$out"

# scale FIELD FACTOR: multiplies a JSON number field of every line by FACTOR.
scale() {
    awk -v f="\"$1\": " -v k="$2" '{
        if (match($0, f "[0-9.]+")) {
            v = substr($0, RSTART + length(f), RLENGTH - length(f))
            $0 = substr($0, 1, RSTART - 1) f sprintf("%.3f", v * k) substr($0, RSTART + RLENGTH)
        }
        print }'
}

# The slower traces: one GEMM kernel 2.5 times longer, the layer norm 1.4
# times, host-to-device copies twice as fast, and kernel launches 40%
# shorter (a leaf call: shorter, it still nests in its op).
for r in 0 1; do
    zcat "$s/traces/train_rank$r.pt.trace.json.gz" | awk '
        function mul(k) { if (match($0, /"dur": [0-9.]+/)) $0 = substr($0, 1, RSTART - 1) \
            sprintf("\"dur\": %.3f", substr($0, RSTART + 7, RLENGTH - 7) * k) \
            substr($0, RSTART + RLENGTH) }
        /"name": "ampere_sgemm_128x64_tn"/ { mul(2.5) }
        /"name": "void at::native::\(anonymous namespace\)::vectorized_layer_norm_kernel/ { mul(1.4) }
        /"name": "Memcpy HtoD/ { mul(0.5) }
        /"name": "cudaLaunchKernel"/ { mul(0.6) }
        { print }' > "$tmp/after$r.json"
done
# The slower step log: backward 15% longer (the step time with it).
awk '{ if (match($0, /"time_backward_ms": [0-9.]+/)) {
           b = substr($0, RSTART + 20, RLENGTH - 20)
           $0 = substr($0, 1, RSTART - 1) sprintf("\"time_backward_ms\": %.3f", b * 1.15) \
               substr($0, RSTART + RLENGTH)
           if (match($0, /"step_time_ms": [0-9.]+/)) {
               t = substr($0, RSTART + 16, RLENGTH - 16)
               $0 = substr($0, 1, RSTART - 1) sprintf("\"step_time_ms\": %.3f", t + b * 0.15) \
                   substr($0, RSTART + RLENGTH)
           }
       }
       print }' "$s/steplogs/train.jsonl" > "$tmp/after.jsonl"
# The step log on two ranks; rank 1 is 25% slower in its forward pass.
awk '{ r0 = $0; r1 = $0; sub(/^\{/, "{\"rank\": 0, ", r0); sub(/^\{/, "{\"rank\": 1, ", r1)
       if (match(r1, /"time_forward_ms": [0-9.]+/)) {
           f = substr(r1, RSTART + 19, RLENGTH - 19)
           r1 = substr(r1, 1, RSTART - 1) sprintf("\"time_forward_ms\": %.3f", f * 1.25) \
               substr(r1, RSTART + RLENGTH)
           if (match(r1, /"step_time_ms": [0-9.]+/)) {
               t = substr(r1, RSTART + 16, RLENGTH - 16)
               r1 = substr(r1, 1, RSTART - 1) sprintf("\"step_time_ms\": %.3f", t + f * 0.25) \
                   substr(r1, RSTART + RLENGTH)
           }
       }
       print r0; print r1 }' "$s/steplogs/train.jsonl" > "$tmp/ranks.jsonl"
# nvidia-smi every 5 s for 10 minutes on two GPUs: loading, training, an
# evaluation pause.
awk 'BEGIN { print "timestamp, index, utilization.gpu [%], memory.used [MiB]"
    for (t = 0; t < 600; t += 5) for (g = 0; g < 2; g++) {
        u = t < 60 ? 5 + (t * 7 + g * 3) % 11 : t >= 300 && t < 360 ? 12 : 88 + (t * 13 + g * 5) % 9
        printf "2025/03/30 19:%02d:%02d.000, %d, %d %%, %d MiB\n", 25 + int(t / 60), t % 60, g, u, 40000 }
}' > "$tmp/smi.csv"

"$profdb" report --run sample --out "$tmp/traces" "$s/traces" 2>/dev/null
"$profdb" report --run rank0 --out "$tmp/rank0" "$s/traces/train_rank0.pt.trace.json.gz" 2>/dev/null
"$profdb" report --run sample --out "$tmp/pstats" "$s/pstats/sample.prof" 2>/dev/null
"$profdb" report --run memory --out "$tmp/memory" "$root/tests/traces/train_memory.trace.json.gz" 2>/dev/null
"$profdb" report --run train --out "$tmp/log" "$s/steplogs/train.jsonl" 2>/dev/null
"$profdb" report --run trainer --out "$tmp/short" "$s/steplogs/generic_trainer.log" 2>/dev/null
"$profdb" report --run ranks --out "$tmp/ranks" "$tmp/ranks.jsonl" 2>/dev/null
"$profdb" report --run smi --out "$tmp/smi" "$tmp/smi.csv" 2>/dev/null
db=$tmp/g.db
"$profdb" ingest -q --db "$db" --run before "$s/traces"
"$profdb" ingest -q --db "$db" --run after "$tmp/after0.json" "$tmp/after1.json"
"$profdb" diff --db "$db" before after --out "$tmp/diff" 2>/dev/null
"$profdb" ingest -q --db "$db" --run log-before "$s/steplogs/train.jsonl"
"$profdb" ingest -q --db "$db" --run log-after "$tmp/after.jsonl"
"$profdb" diff --db "$db" log-before log-after --out "$tmp/diff-log" 2>/dev/null
# Twelve nights of 30 steps of ~50 ms; from the ninth, 12% slower.
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
    awk -v n="$n" 'BEGIN { f = n >= 9 ? 1.12 : 1.0
        for (i = 1; i <= 30; i++)
            printf "{\"step\": %d, \"step_time\": %.6f}\n", i, (0.050 + 0.0004 * ((i * 7 + n * 3) % 11)) * f }' \
        > "$tmp/night$n.jsonl"
    "$profdb" ingest -q --db "$db" --run "nightly-$n" --label "date=2025-04-$(printf %02d "$n")" \
        "$tmp/night$n.jsonl"
done
"$profdb" trend --db "$db" --runs 'nightly-*' --by date --out "$tmp/trend" step_time >/dev/null 2>&1

# The gallery: name, image, what it shows (Markdown).
md=$tmp/gallery.md
add() { # add FOLDER CHART NAME HEADING TEXT
    cp "$tmp/$1/$2.png" "$out/$3.png"
    printf '### %s\n\n%s\n\n![%s](img/gallery/%s.png)\n\n' "$4" "$5" "$3" "$3" >> "$md"
}
: > "$md"
add traces steps steps "\`steps\`" "Per-step time by category, columns with their totals (samples/traces: two ranks, four steps each). More than 40 columns become stacked areas, as in \`phase-steps\` below."
add traces gpu gpu "\`gpu\`" "GPU time per rank: compute, non-compute and idle, each named with its share of the span on the bar (two ranks); a part too narrow for its name is named after the bar, so no legend is needed."
add rank0 gpu gpu-one-rank "\`gpu\`, one rank" "The same for one rank: one bar with its parts named (rank 0 of the sample alone). Beyond 16 ranks, one stacked column per rank."
add traces kernel-types kernel-types "\`kernel-types\`" "GPU busy time by kernel type per rank: compute, communication, memory and their overlaps, each part named with its share on the bar or, when too narrow, after it (no legend)."
add traces top-kernels top-kernels "\`top-kernels\`" "The top kernels by total time over all ranks: short names above the bars, time and share of all kernel time at their ends, coloured by kind (the full names are in kernels.csv)."
add traces top-ops top-ops "\`top-ops\`" "The top CPU ops by self time, coloured by class: operator, runtime call, Python frame. Annotations are left out: their self time is the time nothing under them ran, mostly waiting (the annotations table has them)."
add traces critical-path critical-path "\`critical-path\`" "The critical path of each iteration by what bounds it: CPU-bound, GPU compute, GPU communication and waiting (on a launch; between kernels), in the colours of the CPU side, compute, communication, the runtime and idle (the first 50 iterations per rank)."
add traces queue-length queue-length "\`queue-length\`" "Launches issued to each stream and not yet started on the GPU, over time: step lines at the points' own times; of the points of each of 400 intervals the largest and the last are kept, so a spike stays visible (two ranks on their own clocks)."
add traces memory-bw memory-bw "\`memory-bw\`" "Memory bandwidth of copies and sets over time, one panel per kind with its own y axis (a device-to-device copy at hundreds of GB/s would flatten host-to-device copies on one axis), drawn as the queue length is."
add memory memory memory "\`memory\`" "Allocated (and, for devices with a caching allocator, reserved) memory per device of a profile_memory trace, the peak marked (tests/traces/train_memory.trace.json.gz: four training steps on the CPU)."
add traces rank-steps rank-steps "\`rank-steps\`" "Mean step time per rank; a straggler, by the ranks report's test, would be red and labelled."
add traces step-hist step-hist "\`step-hist\`, few steps" "Step times: with 40 or fewer, each step is a dot (8 here), the median marked."
add log phase-hist phase-hist "\`phase-hist\`, many steps" "With more steps, a histogram and its median (samples/steplogs/train.jsonl, 200 steps)."
add log phase-steps phase-steps "\`phase-steps\`, many steps" "Step-log phases per step; 200 steps as stacked areas, the step time the line on top."
add short phase-steps phase-steps-few "\`phase-steps\`, few steps" "The same for a log of 4 steps: columns with totals (samples/steplogs/generic_trainer.log)."
add ranks phase-ranks phase-ranks "\`phase-ranks\`" "Mean step time per rank from a step log (train.jsonl on two ranks, made here; rank 1 25% slower in its forward pass, a straggler by the test)."
add pstats top-functions top-functions "\`top-functions\`" "The top Python functions by own time (tottime), each inside its cumulative time (samples/pstats/sample.prof)."
add smi gpu-util gpu-util "\`gpu-util\`" "GPU utilisation per GPU from nvidia-smi, on its 0-100% scale (a 10-minute log of two GPUs, made here)."
add diff kernels diff-kernels "diff: \`kernels\`" "\`profdb diff before after --out DIR\`: the kernels whose time changed most, before (light) and after (solid) with the change (the sample traces and a copy made here with one GEMM 2.5 times and the layer norm 1.4 times longer, host-to-device copies twice as fast, kernel launches 40% shorter)."
add diff ops diff-ops "diff: \`ops\`" "The CPU ops whose self time changed most (the same two runs: shorter launches leave more self time to the ops around them)."
add diff gpu diff-gpu "diff: \`gpu\`" "GPU time by part, before and after."
add diff step-dist diff-step-dist "diff: \`step-dist\`, few steps" "Step times of the two runs, before open, after filled (8 steps each)."
add diff-log step-dist diff-step-dist-many "diff: \`step-dist\`, many steps" "With more steps, the two histograms overlaid (train.jsonl and a copy with backward 15% longer)."
add diff-log phases diff-phases "diff: \`phases\`" "Median time per phase, before and after."
add trend trend-1 trend "trend: \`trend-1\`" "\`profdb trend --out DIR\`: the median step time per run, each run's quartiles as a box around it (only where a run has a spread), the level and the change point (twelve nightly step logs made here, 12% slower from the ninth)."

# The report folder's page in a browser (headless Chromium), when installed.
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$browser" ]; then
    # From samples/, so the page names the inputs without this checkout's path.
    (cd "$s" && "$profdb" report --run sample --out "$tmp/page" traces 2>/dev/null)
    "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --window-size=1200,1500 \
        --user-data-dir="$tmp/chrome" --screenshot="$out/report-page.png" \
        "file://$tmp/page/index.html" >/dev/null 2>&1
    printf '### %s\n\n%s\n\n![%s](img/gallery/%s.png)\n\n' "report page: \`index.html\`" \
        "\`profdb report --out DIR\` also writes index.html, index.md as a page for the browser: the top of it for the sample traces, as headless Chromium draws it at 1200 pixels wide (tables sort by a click on a column header; long names are shortened, the full name shows on hover)." \
        report-page report-page >> "$md"
else
    echo "chromium not found: the report page's screenshot is left out of the gallery" >&2
fi

for chart in gpu steps; do
    cp "$tmp/traces/$chart.png" "$root/docs/img/sample_$chart.png"
done

# docs/reports.md: replace the text between the markers.
doc=$root/docs/reports.md
begin='<!-- gallery: made by scripts/make_gallery.sh; edit the script, not this -->'
end='<!-- end of gallery -->'
grep -qF "$begin" "$doc" && grep -qF "$end" "$doc" || { echo "$doc: gallery markers missing" >&2; exit 1; }
awk -v b="$begin" -v e="$end" -v g="$md" '
    $0 == b { print; while ((getline l < g) > 0) print l; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$doc" > "$tmp/reports.md"
cp "$tmp/reports.md" "$doc"
du -ch "$out"/*.png "$root"/docs/img/sample_*.png | tail -1

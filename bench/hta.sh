#!/bin/sh
# profdb against Holistic Trace Analysis on the same trace, in the same run
# (issue 16): `profdb ingest` (analysis included) + the reports gpu
# (temporal breakdown and communication/computation overlap), kernel-types,
# kernels and idle, in HTA's conventions (--compat hta), against HTA: load +
# get_temporal_breakdown, get_gpu_kernel_breakdown, get_comm_comp_overlap and
# get_idle_time_breakdown. Best of three each; prints times, the ratio and
# peak RSS. HTA is not a dependency: it runs from ../shared/anchors/hta
# (see its README) with Debian's python3-pandas and friends; where it cannot
# run the script says why and stops.
#
# usage: bench/hta.sh [BUILD_DIR] [TRACE]
#   (default TRACE: the largest real corpus trace, 26 MB of JSON)
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
trace=${2:-$root/../shared/corpus/traces/negative_queue_length_values_check_rank0.json.gz}
hta=${HTA_DIR:-$root/../shared/anchors/hta}
py=${HTA_PYTHON:-/usr/bin/python3}
skip() { echo "bench/hta.sh: skipped: $*"; exit 0; }
[ -f "$trace" ] || skip "no trace at $trace"
[ -d "$hta/hta" ] || skip "HTA is not at $hta (set HTA_DIR)"
"$py" -c "import pandas, numpy, plotly, networkx" 2>/dev/null ||
    skip "$py lacks HTA's modules (apt-get install python3-pandas python3-numpy python3-plotly python3-networkx python3-pydot python3-psutil)"
out=$(cd "$(dirname "$0")" && pwd)/out
mkdir -p "$out/hta_trace"
rm -f "$out"/hta_trace/*
cp "$trace" "$out/hta_trace/"   # HTA analyses a folder holding the trace
cat > "$out/hta_run.py" <<PY
import sys
sys.path.insert(0, "$hta")
from hta.trace_analysis import TraceAnalysis
ta = TraceAnalysis(trace_dir="$out/hta_trace")
ta.get_temporal_breakdown(visualize=False)
ta.get_gpu_kernel_breakdown(visualize=False)
ta.get_comm_comp_overlap(visualize=False)
ta.get_idle_time_breakdown(visualize=False)
PY
"$py" "$out/hta_run.py" >/dev/null 2>&1 || skip "HTA failed on $trace: $("$py" "$out/hta_run.py" 2>&1 | tail -1)"

. "$(dirname "$0")/measure.sh"
db="$out/hta.db"
cat > "$out/profdb_run.sh" <<SH
set -e
"$build/profdb" --db "$db" ingest -q "$trace"
for r in gpu kernel-types kernels idle; do "$build/profdb" --db "$db" report --compat hta \$r; done
SH
p=$(MEASURE_FRESH="$db $db-wal $db-shm" measure sh "$out/profdb_run.sh")
h=$(measure "$py" "$out/hta_run.py")
pt=${p% *}; ht=${h% *}
echo "trace: $(basename "$trace"), $(zcat -f "$trace" | wc -c | awk '{printf "%.1f", $1 / 1e6}') MB of JSON; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "profdb ingest + 4 reports: ${pt} s, peak RSS $(echo "${p#* } / 1024" | bc) MB"
echo "HTA load + 4 analyses:     ${ht} s, peak RSS $(echo "${h#* } / 1024" | bc) MB"
echo "profdb is $(echo "scale=1; $ht / $pt" | bc)x faster (goal >= 10)"

#!/bin/sh
# Runs the whole test suite, as CI does. Installs what is missing, then runs
# these stages, each in its own build folder:
#   suite     warning-free build (-Werror) and ctest                  build/
#   asan      the same suite under AddressSanitizer + UBSan           build-asan/
#   valgrind  the same suite, every profdb under valgrind memcheck    build-valgrind/
#   fuzz      every libFuzzer target for FUZZ_SECONDS (default 30)    build-fuzz/
# usage: scripts/test.sh [STAGE...]     (default: all four, in this order)
# A failing stage does not stop the others; the summary lists each stage's
# result and time, and the exit status is 1 if any failed.
# Tests that need ../shared/corpus report Skipped, with the reason, without it.
set -u
cd "$(dirname "$0")/.."
stages=${*:-suite asan valgrind fuzz}
for s in $stages; do
    case $s in
        suite | asan | valgrind | fuzz) ;;
        *) echo "scripts/test.sh: unknown stage '$s' (suite, asan, valgrind, fuzz)" >&2; exit 2 ;;
    esac
done
sh scripts/deps.sh test || exit 1
if [ ! -d ../shared/corpus ]; then
    echo "note: ../shared/corpus is absent, so the corpus tests report Skipped" \
         "(they compare against real traces and oracle answers; CI has the corpus)"
fi

ctest_in() { # build folder, cmake options...
    dir=$1
    shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFDB_WERROR=ON "$@" >/dev/null &&
        cmake --build "$dir" -j2 &&
        (cd "$dir" && ctest --output-on-failure -j2 --timeout 1800)
}

run_stage() {
    echo "=== stage $1 ==="
    case $1 in
        suite) ctest_in build -DPROFDB_SANITIZE=OFF -DPROFDB_VALGRIND=OFF ;;
        asan) ctest_in build-asan -DPROFDB_SANITIZE=ON ;;
        valgrind) ctest_in build-valgrind -DPROFDB_VALGRIND=ON ;;
        fuzz) FUZZ_BUILD=build-fuzz bash fuzz/run.sh "${FUZZ_SECONDS:-30}" ;;
    esac
}

summary=""
status=0
for s in $stages; do
    t0=$(date +%s)
    if run_stage "$s"; then result=passed; else result=FAILED; status=1; fi
    summary="$summary
  $s: $result ($(($(date +%s) - t0)) s)"
done
echo "=== summary ===$summary"
exit $status

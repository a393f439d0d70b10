#!/usr/bin/env bash
# ctest label fuzz-smoke (fuzz/CMakeLists.txt).
#   smoke.sh build SRC            configure + build the `fuzz` preset into SRC/build/fuzz (cached)
#   smoke.sh run SRC TARGET       run TARGET under ASan+UBSan for FUZZ_SMOKE_SECONDS (default 15)
#   smoke.sh oss-fuzz SRC         run oss-fuzz/build.sh with local clang/libFuzzer, then each target
#   smoke.sh verdict SRC TARGET RC DIR   the verdict both modes give (fuzz/scripts/runner_selftest.sh)
#   smoke.sh list SRC             print the targets (SRC/fuzz/targets.txt, the one list)
# The corpus in the tree is only read: new inputs go to a scratch directory.
set -euo pipefail
usage() { sed -n '2,8p' "$0"; }
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
[[ $# -ge 2 ]] || { usage >&2; exit 2; }
mode=$1 src=$2
secs=${FUZZ_SMOKE_SECONDS:-15}
build=$src/build/fuzz
targets=$(bash "$src/fuzz/scripts/list-targets" "$src/fuzz/targets.txt")

# Fails (exit 1) when the fuzzer exited non-zero or left any artifact (crash, leak, timeout, oom,
# slow-unit) under DIR; each artifact's decoded scenario is printed first. Each kind is globbed on
# its own: `ls` with several globs fails as soon as one matches nothing, which once hid a crash.
fail_on_findings() {
  local t=$1 rc=$2 dir=$3 found=0 f
  for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
    [[ -f $f ]] || continue
    found=1
    echo "fuzz-smoke: $t left artifact $(basename "$f")"
    [[ -x $build/fuzz/fuzz_repro ]] && { "$build/fuzz/fuzz_repro" --target "$t" "$f" || true; }
  done
  [[ $rc -eq 0 ]] || echo "fuzz-smoke: $t exited with $rc"
  [[ $found -eq 0 && $rc -eq 0 ]] || { echo "fuzz-smoke: $t reported a failure"; exit 1; }
}

case $mode in
  build)
    cd "$src"
    # A cache from another generator or source tree cannot be reused: start that build over.
    if [[ -f $build/CMakeCache.txt ]] && ! grep -q "CMAKE_HOME_DIRECTORY:INTERNAL=$src\$" "$build/CMakeCache.txt"; then
      rm -rf "$build"
    fi
    cmake --preset fuzz >/dev/null
    cmake --build "$build" -j2 --target $targets fuzz_repro
    ;;
  run)
    t=$3
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    opts=()
    [[ -f $src/corpus/$t.dict ]] && opts+=(-dict="$src/corpus/$t.dict")
    # libFuzzer runs every corpus input once before mutating (a failing one is a crash), then fuzzes.
    rc=0
    mkdir "$scratch/new"
    "$build/fuzz/$t" "${opts[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$scratch/" "$scratch/new" "$src/corpus/$t" >"$scratch/log" 2>&1 || rc=$?
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==|SUMMARY|CROSSGRAD-FUZZ-FAILURE)" "$scratch/log" || true
    [[ $rc -eq 0 ]] || { tail -20 "$scratch/log"; echo "fuzz-smoke: $t exited with $rc"; }
    fail_on_findings "$t" "$rc" "$scratch"
    ;;
  oss-fuzz)
    work=$src/build/oss-fuzz-local
    rm -rf "$work"
    mkdir -p "$work/out" "$work/work"
    export CC=${CC_FUZZ:-clang} CXX=${CXX_FUZZ:-clang++}
    # The fuzz preset's flags and build dir, so build.sh's configure/build/package steps run for
    # real but recompile nothing that `smoke.sh build` already compiled.
    export CXXFLAGS=$(sed -n 's/^CMAKE_CXX_FLAGS:STRING=//p' "$build/CMakeCache.txt")
    export CFLAGS=$CXXFLAGS CROSSGRAD_BUILD_DIR=$build
    export LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC=$src OUT=$work/out WORK=$work/work
    bash "$src/oss-fuzz/build.sh"
    for t in $targets; do
      [[ -x $OUT/$t && -f $OUT/${t}_seed_corpus.zip ]] || { echo "build.sh did not produce $t and its seed corpus"; exit 1; }
      seeds=$(mktemp -d)
      unzip -q "$OUT/${t}_seed_corpus.zip" -d "$seeds"
      opts=()
      [[ -f $OUT/$t.dict ]] && opts+=(-dict="$OUT/$t.dict")
      arts=$(mktemp -d)
      rc=0
      "$OUT/$t" "${opts[@]}" -artifact_prefix="$arts/" -max_total_time="${FUZZ_SMOKE_OSS_SECONDS:-5}" -timeout=10 \
        -rss_limit_mb=2048 "$seeds" >"$arts/log" 2>&1 || rc=$?
      grep -E "DONE|CROSSGRAD-FUZZ-FAILURE|SUMMARY" "$arts/log" || true
      [[ $rc -eq 0 ]] || tail -20 "$arts/log"
      rm -rf "$seeds"
      ( fail_on_findings "$t" "$rc" "$arts" ) || { rm -rf "$arts"; exit 1; }
      rm -rf "$arts"
    done
    ;;
  verdict) fail_on_findings "$3" "$4" "$5" ;;
  list) echo "$targets" ;;
  *) usage >&2; exit 2 ;;
esac

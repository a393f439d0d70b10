#!/usr/bin/env bash
# ctest label fuzz-smoke (fuzz/CMakeLists.txt).
#   smoke.sh build SRC            configure + build the `fuzz` preset into SRC/build/fuzz (cached)
#   smoke.sh run SRC TARGET       run TARGET under ASan+UBSan for FUZZ_SMOKE_SECONDS (default 15)
#   smoke.sh oss-fuzz SRC         run oss-fuzz/build.sh with local clang/libFuzzer, then each target
#   smoke.sh settings SRC         a fuzzer run directly uses its compiled-in settings; env and command line win
#   smoke.sh verdict SRC TARGET RC DIR   the verdict both modes give (fuzz/scripts/runner_selftest.sh)
#   smoke.sh list SRC             print the targets (SRC/fuzz/targets.txt, the one list)
# The corpus in the tree is only read: new inputs go to a scratch directory.
set -euo pipefail
usage() { sed -n '2,9p' "$0"; }
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
    source "$src/scripts/lib/build-dir.sh"
    reset_stale_build_dir "$build" "$(pwd -P)"
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
  settings)
    # Note [Settings travel with the binary] (fuzz/entry/fuzz_entry.cpp), observed from outside:
    # grad_replace_fuzzer's corpus/*.options sets entropic = 0 (libFuzzer prints "entropic power
    # schedule" only when it is on) and quarantine_size_mb = 64 (ASAN_OPTIONS=help=1 prints each
    # flag's current value), and without CROSSGRAD_FUZZ_REMOTE the binary leaves Remote off.
    t=grad_replace_fuzzer bin=$build/fuzz/grad_replace_fuzzer
    grep -q '^entropic *= *0' "$src/corpus/$t.options" && grep -q '^quarantine_size_mb *= *64' "$src/corpus/$t.options" \
      || { echo "smoke settings: corpus/$t.options no longer sets entropic = 0 and quarantine_size_mb = 64; update this check"; exit 1; }
    empty=$(mktemp -d); trap 'rm -rf "$empty" "$empty.failed"' EXIT
    fails=0
    # Every direct run must exit 0: a non-zero exit is reported with its status and last lines
    # (inside $(...) under set -e it would otherwise end the script without a word).
    run_direct() {
      local rc=0 text
      text=$(env -u CROSSGRAD_FUZZ_REMOTE -u ASAN_OPTIONS -u CROSSGRAD_FUZZ_DEFAULTS "$@" -runs=0 "$empty" 2>&1) || rc=$?
      printf '%s\n' "$text"
      if [[ $rc != 0 ]]; then
        { echo "FAIL run directly ($*): exit status $rc; its last lines:"; tail -30 <<<"$text" | sed 's/^/    /'; } >&2
        echo 1 >>"$empty.failed"
      fi
    }
    expect_in() {  # NAME OUTPUT PATTERN [!]: the output has (or, with !, lacks) the pattern
      local has=0; grep -qE -- "$3" <<<"$2" && has=1
      if [[ ${4:-} == "!" ]]; then has=$(( 1 - has )); fi
      if [[ $has == 1 ]]; then echo "ok   $1"; else echo "FAIL $1 (/$3/ ${4:+not }expected)"; fails=$((fails + 1)); fi
    }
    out=$(run_direct "$bin")
    expect_in "run directly: the compiled-in flags are announced" "$out" "compiled-in settings \(corpus/$t.options.*-max_len=4096 -timeout=10 -rss_limit_mb=2560 -entropic=0"
    expect_in "run directly: entropic off (from the .options file)" "$out" "entropic power schedule" !
    expect_in "run directly: Remote off" "$out" "Remote: off \(CROSSGRAD_FUZZ_REMOTE=off\)"
    out=$(run_direct "$bin" -entropic=1)
    expect_in "the command line wins (-entropic=1)" "$out" "entropic power schedule"
    out=$(run_direct env CROSSGRAD_FUZZ_DEFAULTS=off "$bin")
    expect_in "CROSSGRAD_FUZZ_DEFAULTS=off: libFuzzer's own defaults (entropic on)" "$out" "entropic power schedule"
    out=$(run_direct env CROSSGRAD_FUZZ_REMOTE=on "$bin")
    expect_in "CROSSGRAD_FUZZ_REMOTE=on: the environment wins" "$out" "Remote: off" !
    # help=1 prints each flag's name on a line, its description and "(Current Value: V)" on the next.
    quarantine() { grep -A1 -E '^\s*quarantine_size_mb$' <<<"$1" | sed -n 's/.*(Current Value: \(.*\))$/quarantine \1/p'; }
    out=$(quarantine "$(run_direct env ASAN_OPTIONS=help=1 "$bin")")
    expect_in "run directly: ASan's quarantine from the .options file" "$out" "^quarantine 64$"
    out=$(quarantine "$(run_direct env ASAN_OPTIONS=help=1:quarantine_size_mb=7 "$bin")")
    expect_in "ASAN_OPTIONS wins over the compiled-in value" "$out" "^quarantine 7$"
    if [[ -f $empty.failed ]]; then fails=$((fails + $(wc -l <"$empty.failed"))); fi
    [[ $fails == 0 ]]
    ;;
  verdict) fail_on_findings "$3" "$4" "$5" ;;
  list) echo "$targets" ;;
  *) usage >&2; exit 2 ;;
esac

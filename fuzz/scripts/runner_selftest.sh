#!/usr/bin/env bash
# ctest fuzz.runner_verdicts: scripts/fuzz's verdicts and corpus layout, checked against a stand-in
# fuzzer so that no sanitizer build is needed. The stand-in writes the artifacts a scenario asks
# for (and one new input into the corpus folder it fuzzes), and on replay (-runs=1) prints a stack
# and exits 1 unless the input says "fixed"; -merge=1 copies the new-* inputs of its second folder
# into its first. Each case states the exit status and the output scripts/fuzz must give.
# Flavours (issue 41): the same stand-in sits in bin/ (the ASan build) and bin-fast/ (the fast
# build) and knows which it is by its folder: FAKE_ARTIFACTS_FAST adds artifacts that only the fast
# one writes, FAKE_MARK=1 makes each write a by-<flavour> input into the corpus folder it fuzzes,
# and a replay prints which build ran it; an input saying "fastonly" crashes only the fast build.
#   runner_selftest.sh SRC
set -uo pipefail
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/bin-fast" "$work/corpus/fake_fuzzer" "$work/corpus/other_fuzzer"
echo seed >"$work/corpus/fake_fuzzer/seed-1"
echo seed >"$work/corpus/other_fuzzer/seed-1"

cat >"$work/bin/fake_fuzzer" <<'FAKE'
#!/usr/bin/env bash
prefix="" runs=0 merge=0 input="" dirs=() secs=1
flavour=asan; [[ $(basename "$(dirname "$0")") == bin-fast ]] && flavour=fast
for a in "$@"; do
  case $a in
    -artifact_prefix=*) prefix=${a#-artifact_prefix=} ;;
    -max_total_time=*) secs=${a#-max_total_time=} ;;
    -runs=1) runs=1 ;;
    -merge=1) merge=1 ;;
    -*) ;;
    *) input=$a; dirs+=("$a") ;;
  esac
done
if [[ $merge == 1 ]]; then
  for f in "${dirs[1]}"/new-*; do [[ -f $f ]] && cp -n "$f" "${dirs[0]}/"; done
  exit 0
fi
if [[ $runs == 1 ]]; then
  body=$(cat "$input")
  echo "stand-in replay by the $flavour build"
  [[ $body == fixed* ]] && { echo "#1 DONE"; exit 0; }
  [[ $body == fastonly* && $flavour == asan ]] && { echo "#1 DONE"; exit 0; }
  case $body in
    timeout*)
      echo "==1== ERROR: libFuzzer: timeout after 10 seconds"
      echo "    #0 0x1 in crossgrad::backends::inner_loop_${body##*-}(int) kernels.cpp:1"
      echo "    #1 0x2 in crossgrad::oracle::finite_difference(double) numeric.cpp:2"
      echo "    #2 0x3 in crossgrad::oracle::check_finite_differences() checks.cpp:3"
      echo "    #3 0x4 in LLVMFuzzerTestOneInput fuzz_entry.cpp:4"
      echo "    #4 0x5 in fuzzer::Fuzzer::ExecuteCallback() FuzzerLoop.cpp:5" ;;
    leak*)
      echo "==1==ERROR: LeakSanitizer: detected memory leaks"
      echo "    #0 0x1 in operator new(unsigned long)"
      echo "    #1 0x2 in crossgrad::HostBuffer::allocate(unsigned long) host_buffer.cpp:7" ;;
    *) echo "CROSSGRAD-FUZZ-FAILURE: oracle mismatch 12" ;;
  esac
  exit 1
fi
# Fuzzing: a new input in the corpus folder, the artifacts the scenario names, then its exit code
# (a clean slice lasts its time, at most 1 s here, as libFuzzer's -max_total_time does).
echo new >"$input/new-$(basename "$0")"
[[ ${FAKE_MARK:-0} == 1 ]] && echo "$flavour" >"$input/by-$flavour"
echo "#21 NEW    cov: 1 ft: 1 corp: 1/1b exec/s: 1"
arts=${FAKE_ARTIFACTS:-}; [[ $flavour == fast ]] && arts+=" ${FAKE_ARTIFACTS_FAST:-}"
for spec in $arts; do
  printf '%s' "${spec#*=}" >"${prefix}${spec%%=*}"
  echo "artifact_prefix='$prefix'; Test unit written to ${prefix}${spec%%=*}"
done
[[ ${FAKE_EXIT:-0} == 0 ]] && sleep $(( secs < 1 ? secs : 1 ))
echo "#42 DONE cov: 1 ft: 1 corp: 1/1b exec/s: 1"
echo "stat::number_of_executed_units: 42"
exit "${FAKE_EXIT:-0}"
FAKE
chmod +x "$work/bin/fake_fuzzer"
cp "$work/bin/fake_fuzzer" "$work/bin/other_fuzzer"
cp "$work/bin/fake_fuzzer" "$work/bin-fast/fake_fuzzer"; cp "$work/bin/fake_fuzzer" "$work/bin-fast/other_fuzzer"

pass=0 fail=0
# expect NAME STATUS PATTERN [PATTERN...]: run scripts/fuzz (on fake_fuzzer, 2 cores, 1 s, ASan
# only, or with the options in ARGS) with the scenario in the environment; its output stays in $out.
# The cases up to the flavour ones check verdicts that do not depend on the flavour, on one build.
out=""
expect() {
  local name=$1 want=$2 got=0 p
  shift 2
  # shellcheck disable=SC2086
  out=$(CROSSGRAD_FUZZ_OUT="$work/out" CROSSGRAD_CORPUS="$work/corpus" \
        "$src/scripts/fuzz" --no-build --bin "$work/bin" --fast-bin "$work/bin-fast" \
        ${ARGS:---flavours asan --targets fake_fuzzer --jobs 2 --time 1} 2>&1) || got=$?
  local ok=1
  [[ $got == "$want" ]] || { ok=0; echo "  $name: exit $got, want $want"; }
  for p in "$@"; do
    grep -qE -- "$p" <<<"$out" || { ok=0; echo "  $name: output lacks /$p/"; }
  done
  if [[ $ok == 1 ]]; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; printf '%s\n' "$out" | tail -15; fi
}
# check NAME CONDITION...: a fact about the files a run left.
check() {
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name ($*)"; fi
}
files_in() { find "$1" -maxdepth 1 -type f | wc -l; }
last_run() { ls -d "$work/out/runs"/* | sort | tail -1; }

FAKE_ARTIFACTS="" FAKE_EXIT=0 expect "clean run passes" 0 "0 findings \(0 reproduce\)" "fuzzer exit codes: fake_fuzzer=0" \
  "2 processes at a time" "execs/s aggregate \[asan [0-9]+ execs = [0-9]+ execs/s, 2 processes at [0-9]+/s each\]; fake_fuzzer [0-9]+ \(" \
  "\+1 new inputs in the working corpus"
# Layout: the run fuzzed fuzz-out/corpus/<target>, seeded from corpus/<target>, and left corpus/ alone.
check "fuzzing never writes corpus/" test "$(files_in "$work/corpus/fake_fuzzer")" = 1
check "the working corpus is seeded from corpus/ and keeps new inputs" \
  test -f "$work/out/corpus/fake_fuzzer/seed-1" -a -f "$work/out/corpus/fake_fuzzer/new-fake_fuzzer"
check "both jobs fuzzed" test "$(ls "$(last_run)/fake_fuzzer/slices"/*.log | wc -l)" -ge 2
ARGS="--flavours asan --targets fake_fuzzer,other_fuzzer --jobs 1 --slice 1 --time 3" FAKE_ARTIFACTS="" FAKE_EXIT=0 \
  expect "one core takes the targets in turn" 0 "fake_fuzzer [1-9][0-9]* \(" "other_fuzzer [1-9][0-9]* \(" \
  "1 processes at a time" "2 targets" "round-robin slices of 1s"
ARGS="--flavours asan --targets fake_fuzzer,other_fuzzer --time 1" FAKE_ARTIFACTS="" FAKE_EXIT=0 \
  expect "by default every target has a process of its own" 0 "one per target" "other_fuzzer [1-9][0-9]* \("
# A working corpus past twice corpus/ is compacted to the seeds plus what adds coverage (for the
# stand-in: new-* inputs), so stale-* inputs go and the seed stays.
for i in 1 2 3; do echo stale >"$work/out/corpus/fake_fuzzer/stale-$i"; done
FAKE_ARTIFACTS="" FAKE_EXIT=0 expect "a grown working corpus is compacted" 0 "compacted .*fake_fuzzer 2"
check "compaction keeps the seeds and the inputs adding coverage" \
  test -f "$work/out/corpus/fake_fuzzer/seed-1" -a -f "$work/out/corpus/fake_fuzzer/new-fake_fuzzer" \
  -a ! -e "$work/out/corpus/fake_fuzzer/stale-1"
ARGS="--promote --targets fake_fuzzer" expect "--promote adds the new inputs to corpus/" 0 \
  "fake_fuzzer: \+1 inputs promoted" "promote: \+1 inputs"
check "--promote wrote corpus/" test -f "$work/corpus/fake_fuzzer/new-fake_fuzzer"
ARGS="--no-merge" expect "--no-merge is refused (fuzzing never writes corpus/)" 2 "--promote"
export FAKE_ARTIFACTS="timeout-a=timeout-1 timeout-b=timeout-2"
FAKE_EXIT=0 expect "two timeouts of one cause are one finding" 1 "2 findings \(2 reproduce\), 1 new distinct" \
  "timeout \| crossgrad::oracle::finite_difference crossgrad::oracle::check_finite_differences"
FAKE_EXIT=0 expect "a known finding that still reproduces fails the run" 1 "known timeout" "0 new distinct"
export FAKE_ARTIFACTS="leak-c=leak"
FAKE_EXIT=0 expect "a leak is a finding" 1 "NEW leak" "LeakSanitizer"
export FAKE_ARTIFACTS="oom-d=oracle"
FAKE_EXIT=0 expect "an oom is a finding" 1 "NEW oom" "1 findings \(1 reproduce\)"
export FAKE_ARTIFACTS="crash-e=fixed"
FAKE_EXIT=0 expect "a finding that no longer reproduces passes" 0 "does not reproduce" "1 findings \(0 reproduce\)"
export FAKE_ARTIFACTS=""
FAKE_EXIT=3 expect "a fuzzer exiting non-zero fails the run" 1 "fuzzer exit codes: fake_fuzzer=3"
check "a failed fuzzer gets no further slices" test "$(ls "$(last_run)/fake_fuzzer/slices"/*.log | wc -l)" -le 2
export FAKE_ARTIFACTS="crash-f=fixed"
FAKE_EXIT=77 expect "a fuzzer exiting non-zero on a finding is not a failed fuzzer" 0 "fuzzer exit codes: fake_fuzzer=0" \
  "1 findings \(0 reproduce\)"
export FAKE_ARTIFACTS=""
# ---- flavours (issue 41): ASan by default, the mix on request, one shared working corpus, ASan's view
# of every finding
slice_flavours() { cat "$(last_run)"/*/slices/*.flavour | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}'; }
ARGS="--targets fake_fuzzer,other_fuzzer --time 1" FAKE_EXIT=0 expect "ASan only by default" 0 "asan 2 \(one per target\)" \
  "aggregate \[asan [0-9]+ execs[^;]*\];"
check "... no fast slices" test "$(slice_flavours)" = "asan=2 "
ARGS="--flavours fast,asan --targets fake_fuzzer,other_fuzzer --time 1" FAKE_EXIT=0 expect "the mix: a fast process per target, one ASan" 0 \
  "3 processes at a time" "fast 2 \(one per target\), asan 1 \(round-robin slices" \
  "aggregate \[fast [0-9]+ execs = [0-9]+ execs/s, 2 processes at [0-9]+/s each; asan [0-9]+ execs = [0-9]+ execs/s, 1 processes" \
  "execs/s aggregate over the last [0-9]+s \(fast [0-9]+, asan [0-9]+\)"
check "both flavours ran slices" grep -q "asan=.*fast=" <<<"$(slice_flavours)"
ARGS="--flavours fast,asan --targets fake_fuzzer,other_fuzzer --jobs 4 --time 2" FAKE_EXIT=0 expect "--jobs 4 in the mix: one in four runs ASan" 0 \
  "fast 3 \(one per target\), asan 1 \(round-robin slices of 1s\)"
rm -rf "$work/out/corpus/fake_fuzzer"
ARGS="--flavours fast,asan --targets fake_fuzzer --jobs 2 --time 1" FAKE_MARK=1 FAKE_EXIT=0 expect "--jobs 2 with one target: one fast, one ASan" 0 \
  "fast 1 \(one per target\), asan 1 \(one per target\)" "shared by all flavours"
check "both flavours fuzz the one working corpus" \
  test -f "$work/out/corpus/fake_fuzzer/by-fast" -a -f "$work/out/corpus/fake_fuzzer/by-asan"
rm -rf "$work/out/crashes"   # the earlier cases stored this oracle failure already
ARGS="--flavours fast,asan --targets fake_fuzzer,other_fuzzer --time 1" FAKE_EXIT=0 FAKE_ARTIFACTS_FAST="crash-g=oracle-g" \
  expect "a fast job's finding is replayed under the ASan build" 1 \
  "NEW crash fake_fuzzer/[0-9a-f]+ \(found by fast, reproduces under asan\): oracle mismatch N"
check "the stored report is the ASan build's replay" \
  grep -rq -A1 -- "---- found by the fast build; libFuzzer replay under the asan build (exit 1)" "$work/out/crashes/fake_fuzzer"
check "... by the ASan stand-in" grep -rqx "stand-in replay by the asan build" "$work/out/crashes/fake_fuzzer"
ARGS="--flavours fast,asan --targets fake_fuzzer --jobs 2 --time 1" FAKE_EXIT=0 FAKE_ARTIFACTS_FAST="crash-h=fastonly" \
  expect "a fast finding that ASan's build does not reproduce is reported as such" 1 \
  "found by fast, reproduces under the fast build only, not under asan\): fast build only \| oracle mismatch N" "1 findings \(1 reproduce\)"
ARGS="--flavours asan --targets fake_fuzzer,other_fuzzer --time 1" FAKE_EXIT=0 FAKE_ARTIFACTS_FAST="crash-i=oracle-i" \
  expect "--flavours asan runs ASan only" 0 "asan 2 \(one per target\)" "aggregate \[asan [0-9]+ execs[^;]*\];" "0 findings"
check "... and no fast slices" test "$(slice_flavours)" = "asan=2 "
ARGS="--flavours tsan" expect "an unknown flavour is refused" 2 "--flavours takes"
# fuzz-smoke's verdict (both its run and oss-fuzz modes): any artifact or a non-zero exit fails.
smoke_verdict() {
  local name=$1 want=$2 rc=$3 got=0
  shift 3
  local d
  d=$(mktemp -d "$work/smoke.XXXX")
  for f in "$@"; do : >"$d/$f"; done
  "$src/fuzz/scripts/smoke.sh" verdict "$src" fake_fuzzer "$rc" "$d" >/dev/null 2>&1 || got=$?
  if [[ $got == "$want" ]]; then pass=$((pass + 1)); echo "ok   smoke: $name"; else fail=$((fail + 1)); echo "FAIL smoke: $name (exit $got, want $want)"; fi
}
smoke_verdict "clean" 0 0
for kind in crash leak timeout oom slow-unit; do smoke_verdict "$kind artifact fails" 1 0 "$kind-0123"; done
smoke_verdict "non-zero fuzzer exit fails" 1 77
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]

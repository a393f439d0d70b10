#!/usr/bin/env bash
# ctest fuzz.runner_selftest: scripts/fuzz's verdicts, checked against a stand-in fuzzer so that no
# sanitizer build is needed. The stand-in writes the artifacts a scenario asks for, and on replay
# (-runs=1) prints a stack and exits 1 unless the input says "fixed". Each case states the exit
# status and the output scripts/fuzz must give.
#   runner_selftest.sh SRC
set -uo pipefail
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/corpus/fake_fuzzer"

cat >"$work/bin/fake_fuzzer" <<'FAKE'
#!/usr/bin/env bash
prefix="" runs=0 input=""
for a in "$@"; do
  case $a in
    -artifact_prefix=*) prefix=${a#-artifact_prefix=} ;;
    -runs=1) runs=1 ;;
    -merge=1) exit 0 ;;
    -*) ;;
    *) input=$a ;;
  esac
done
if [[ $runs == 1 ]]; then
  body=$(cat "$input")
  [[ $body == fixed* ]] && { echo "#1 DONE"; exit 0; }
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
# Fuzzing: write the artifacts the scenario names, then exit with its code.
for spec in ${FAKE_ARTIFACTS:-}; do printf '%s' "${spec#*=}" >"${prefix}${spec%%=*}"; done
echo "#42 DONE cov: 1 ft: 1 corp: 1/1b exec/s: 1"
exit "${FAKE_EXIT:-0}"
FAKE
chmod +x "$work/bin/fake_fuzzer"

pass=0 fail=0
# expect NAME STATUS PATTERN [PATTERN...]: run scripts/fuzz with the scenario in the environment.
expect() {
  local name=$1 want=$2 got=0 p out
  shift 2
  out=$(CROSSGRAD_FUZZ_OUT="$work/out" CROSSGRAD_CORPUS="$work/corpus" \
        "$src/scripts/fuzz" --no-build --bin "$work/bin" --targets fake_fuzzer --time 1 --no-merge 2>&1) || got=$?
  local ok=1
  [[ $got == "$want" ]] || { ok=0; echo "  $name: exit $got, want $want"; }
  for p in "$@"; do
    grep -qE -- "$p" <<<"$out" || { ok=0; echo "  $name: output lacks /$p/"; }
  done
  if [[ $ok == 1 ]]; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; printf '%s\n' "$out" | tail -15; fi
}

FAKE_ARTIFACTS="" FAKE_EXIT=0 expect "clean run passes" 0 "0 findings \(0 reproduce\)" "fuzzer exit codes: fake_fuzzer=0"
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

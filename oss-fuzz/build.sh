#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: $CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $SRC $OUT (and
# optionally $WORK) come from the infrastructure. Builds the targets listed in fuzz/targets.txt with
# the same CMake project, copies them to $OUT with their seed corpus zips (from corpus/<target>/),
# dicts, options.
project=${SRC}/crossgrad
[[ -d $project ]] || project=$SRC   # local runs point SRC at the checkout itself
# CROSSGRAD_BUILD_DIR lets the local smoke test reuse build/fuzz (same flags: nothing recompiles).
build=${CROSSGRAD_BUILD_DIR:-${WORK:-/tmp}/crossgrad-build}
targets=$(bash "$project/fuzz/scripts/list-targets" "$project/fuzz/targets.txt")   # the one list

# remote_protocol_fuzzer needs crossgrad-server (gRPC + protobuf, the Dockerfile's packages). Debian's
# gRPC is built against libstdc++: with libc++ (OSS-Fuzz's default CXXFLAGS) it cannot link, so Remote
# is off there and the target builds with every input counted as not applicable here. Elsewhere the
# project's default applies (on when gRPC and protobuf are found).
remote=()
if [[ " $CXXFLAGS " == *" -stdlib=libc++ "* ]]; then
  remote=(-DCROSSGRAD_WITH_REMOTE=OFF)
  echo "oss-fuzz/build.sh: libc++ build: Remote off (remote_protocol_fuzzer inputs are not applicable here)"
fi

# The flavour the binaries report (Note [Settings travel with the binary]): OSS-Fuzz builds one
# binary set per $SANITIZER (address, undefined, ...) and fuzzes each as a separate job over the
# project's shared corpus, the model scripts/fuzz follows with its fast and asan flavours. Without
# $SANITIZER (the local smoke test, which reuses build/fuzz) it stays asan.
case ${SANITIZER:-} in
  address) flavour=asan ;;
  undefined) flavour=ubsan ;;
  "") flavour=asan ;;
  *) flavour=$SANITIZER ;;
esac

# OSS-Fuzz's images have no libtorch: LibTorch is off (its scenarios are not applicable there), stated
# rather than left to AUTO so an image that happened to carry Torch's CMake package changes nothing.
# RelWithDebInfo's own flags come after $CXXFLAGS, and their -g would override the infrastructure's
# -gline-tables-only: full debug info costs the ASan build about 10 % more compile time and objects
# half as large again, and the sanitizers' reports need only the line tables. So the build type
# adds -O2 alone, as the fuzz presets do (CMakePresets.json), which also keeps the local smoke
# test's reuse of build/fuzz from recompiling anything.
cmake -S "$project" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROSSGRAD_FUZZ_FLAVOUR="$flavour" -DCROSSGRAD_LIBTORCH=OFF \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCROSSGRAD_BUILD_FUZZERS=ON -DCROSSGRAD_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DCROSSGRAD_BUILD_TESTS=OFF -DCROSSGRAD_BUILD_BENCH=OFF -DCROSSGRAD_CUDA=OFF ${remote[@]+"${remote[@]}"} >/dev/null
cmake --build "$build" -j"$(nproc)" --target $targets

for t in $targets; do
  cp "$build/fuzz/$t" "$OUT/"
  rm -f "$OUT/${t}_seed_corpus.zip"
  (cd "$project/corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  [[ -f $project/corpus/$t.dict ]] && cp "$project/corpus/$t.dict" "$OUT/$t.dict"
  [[ -f $project/corpus/$t.options ]] && cp "$project/corpus/$t.options" "$OUT/$t.options"
done
echo "oss-fuzz/build.sh: built $targets into $OUT"

// LLVMFuzzerTestOneInput for one target, chosen at compile time
// (CROSSGRAD_FUZZ_TARGET). Linked with libFuzzer's main (-fsanitize=fuzzer) it
// is a fuzzer; linked with replay_main.cpp it is the replay executable that
// ctest runs over corpus/<target>/.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/core/host_buffer.hpp>

#include "entry/in_process_server.hpp"
#include "entry/loop_clock.hpp"
#include "harness/target.hpp"

namespace {
const crossgrad::fuzz::Target &target() {
  static const crossgrad::fuzz::Target *t = [] {
    const crossgrad::fuzz::Target *found = crossgrad::fuzz::find_target(CROSSGRAD_FUZZ_TARGET);
    if (found == nullptr) {
      std::fprintf(stderr, "no fuzz target named %s\n", CROSSGRAD_FUZZ_TARGET);
      std::abort();
    }
    return found;
  }();
  return *t;
}
}  // namespace

// Note [Settings travel with the binary]
// The tuned settings of a target live in corpus/<target>.options, which scripts/fuzz and ClusterFuzz
// read; a fuzzer binary run by hand used to get libFuzzer's and ASan's defaults instead, and every
// Remote scenario through its in-process server: grad_replace_fuzzer ran at 146 execs/s by hand
// against 1,768 under scripts/fuzz (issue 41). So the libFuzzer executables compile the file in
// (fuzz/targets.cmake writes generated/settings/<target>.inc at configure time):
//   - libFuzzer flags: LLVMFuzzerInitialize puts them right after argv[0]. libFuzzer parses argv
//     after LLVMFuzzerInitialize returns and a later flag overrides an earlier one, so every flag
//     on the command line still wins. corpus/<target>.dict is added as -dict= when the binary was
//     built from a checkout that has one, the file still exists and no -dict= was given.
//   - sanitizer options: __asan_default_options / __ubsan_default_options, which the sanitizers
//     read before ASAN_OPTIONS / UBSAN_OPTIONS, so the environment still wins.
//   - Remote: CROSSGRAD_FUZZ_REMOTE=off unless the environment sets it (=on asks for the
//     in-process server), as scripts/fuzz does without --remote.
// CROSSGRAD_FUZZ_DEFAULTS=off leaves argv as given (libFuzzer's own defaults). The replay
// executables (ctest corpus.*) are unaffected: they do not call LLVMFuzzerInitialize.
#if defined(CROSSGRAD_FUZZ_SETTINGS_INC)
#include CROSSGRAD_FUZZ_SETTINGS_INC

extern "C" const char *__asan_default_options() { return CROSSGRAD_FUZZ_ASAN_OPTIONS; }
// print_stacktrace: the report names the frames scripts/fuzz keys a finding by; the .options
// file's own [ubsan] values come after it and win. Literals only: the sanitizers call these while
// they start, before any constructor or allocation may run.
extern "C" const char *__ubsan_default_options() { return "print_stacktrace=1:" CROSSGRAD_FUZZ_UBSAN_OPTIONS; }

namespace {
bool defaults_off() {
  const char *v = std::getenv("CROSSGRAD_FUZZ_DEFAULTS");
  return v != nullptr && std::strcmp(v, "off") == 0;
}

void apply_compiled_settings(int *argc, char ***argv) {
  if (argc == nullptr || argv == nullptr || *argc < 1) return;
  ::setenv("CROSSGRAD_FUZZ_REMOTE", "off", /*overwrite=*/0);
  if (defaults_off()) return;
  static std::vector<char *> args;  // libFuzzer keeps pointers into argv for the whole run
  static std::string dict_flag;
  static const char *const flags[] = {CROSSGRAD_FUZZ_LIBFUZZER_FLAGS nullptr};
  args.push_back((*argv)[0]);  // argv[0] must stay the same pointer's text (libFuzzer checks it)
  std::string shown;
  for (const char *const *f = flags; *f != nullptr; ++f) {
    args.push_back(const_cast<char *>(*f));
    shown += std::string(" ") + *f;
  }
  bool has_dict = false;
  for (int i = 1; i < *argc; ++i) has_dict = has_dict || std::strncmp((*argv)[i], "-dict=", 6) == 0;
  const char *dict = CROSSGRAD_FUZZ_DICT;
  if (std::FILE *f = (has_dict || dict[0] == '\0') ? nullptr : std::fopen(dict, "rb"); f != nullptr) {
    std::fclose(f);
    dict_flag = std::string("-dict=") + dict;
    args.push_back(dict_flag.data());
    shown += " " + dict_flag;
  }
  for (int i = 1; i < *argc; ++i) args.push_back((*argv)[i]);
  args.push_back(nullptr);
  *argc = static_cast<int>(args.size()) - 1;
  *argv = args.data();
  std::fprintf(stderr, "crossgrad-fuzz: %s flavour; compiled-in settings (corpus/%s.options; the command line wins):%s\n",
               CROSSGRAD_FUZZ_FLAVOUR, CROSSGRAD_FUZZ_TARGET, shown.c_str());
}
}  // namespace
#endif

// libFuzzer only (the replay main prints its own summary): at exit, how many
// inputs ran and how many were not applicable here.
// Also gives Remote a server when none is configured (Note [Fuzzing Remote through an in-process
// server]).
//
// Note [Threads start before the first input]
// Flex starts its worker pool on first use. Started inside an input, a worker can be between
// ASan's thread set-up (pthread_getattr_np, whose attribute holds a calloc'd block until
// pthread_attr_destroy) and its registration when libFuzzer's leak check runs: LeakSanitizer does
// not scan that thread yet and reports the block, a leak of 152 + 32 bytes that no replay
// reproduces (seen in a 10-minute time-to-detect trial, docs/FUZZ_MUTATOR.md). So the pool starts
// here, before any input, and no input creates a thread; the pool returns only once its workers
// run (Note [Workers have started when the pool exists], thread_pool.cpp), so a replay that ends
// a millisecond later does not catch one half started either.
// Fresh buffers start as 0xFF and, without ASan, the spare bytes past each buffer are guarded,
// as in the test builds (Note [Filling fresh buffers in tests], Note [Guard bytes past every
// buffer in tests]): the fast flavour, which has no ASan, then still sees a kernel that leaves an
// element unwritten or writes just past its output. Both flavours fill, so what a fast job finds
// through the fill reproduces when scripts/fuzz replays it under the ASan build.
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
#if defined(CROSSGRAD_FUZZ_SETTINGS_INC)
  apply_compiled_settings(argc, argv);
#else
  (void)argc;
  (void)argv;
#endif
  crossgrad::set_fresh_host_buffer_fill(0xFF);
  crossgrad::set_host_buffer_guard(true);  // a no-op under ASan, which poisons those bytes instead
  (void)crossgrad::fuzz::process_tally();  // exists before the handler below is registered
  (void)crossgrad::backends::flex::num_threads();
  std::fprintf(stderr, "crossgrad-fuzz: Remote: %s\n", crossgrad::fuzz::serve_remote_in_process().c_str());
  crossgrad::fuzz::loop_clock::totals.started = crossgrad::fuzz::loop_clock::Clock::now();
  std::atexit([] {
    std::fprintf(stderr, "crossgrad-fuzz: %s\n", crossgrad::fuzz::process_tally().summary().c_str());
    std::fprintf(stderr, "crossgrad-fuzz: %s\n", crossgrad::fuzz::loop_clock::summary().c_str());
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const crossgrad::fuzz::loop_clock::Span timed(crossgrad::fuzz::loop_clock::totals.target);
  crossgrad::fuzz::run_or_abort(target(), crossgrad::fuzz::Bytes(data, size));
  return 0;
}

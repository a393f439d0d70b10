// The mutation build's trace (tools/mutate/mutation_switch.hpp, Note [Traces are written as sites
// are first seen]): a site a process runs is in its trace even when the process then dies the way
// a death test's child does, by abort() or _exit(), which run no destructor.
#include "mutation_switch.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// Every trace in `dir`: its header line and the site ids after it.
struct Trace {
  std::string header;
  std::vector<int> ids;
};

std::vector<Trace> traces_in(const fs::path& dir) {
  std::vector<Trace> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    Trace t;
    std::getline(in, t.header);
    for (std::string line; std::getline(in, line);) t.ids.push_back(std::stoi(line));
    out.push_back(std::move(t));
  }
  return out;
}

class TraceSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("crossgrad-trace-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Read by the child's first on() call: this process never calls it, so its State is unmade.
    ASSERT_EQ(setenv("CROSSGRAD_MUTATION_TRACE", dir_.c_str(), 1), 0);
    ASSERT_EQ(unsetenv("CROSSGRAD_MUTANT"), 0);
    GTEST_FLAG_SET(death_test_style, "fast");  // forked: the child starts with no State made
  }
  void TearDown() override {
    unsetenv("CROSSGRAD_MUTATION_TRACE");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(TraceSwitch, ASiteRunBeforeAbortIsInTheTrace) {
  EXPECT_DEATH(
      {
        (void)crossgrad_mutation::on(7);
        (void)crossgrad_mutation::on(9);
        (void)crossgrad_mutation::on(7);  // once per process
        std::abort();
      },
      "");
  const auto traces = traces_in(dir_);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_NE(traces[0].header.find("trace_switch_test"), std::string::npos) << traces[0].header;
  EXPECT_EQ(traces[0].ids, (std::vector<int>{7, 9}));
}

TEST_F(TraceSwitch, ASiteRunBeforeUnderscoreExitIsInTheTrace) {
  EXPECT_EXIT(
      {
        (void)crossgrad_mutation::on(12);
        ::_exit(3);
      },
      ::testing::ExitedWithCode(3), "");
  const auto traces = traces_in(dir_);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces[0].ids, (std::vector<int>{12}));
}

TEST_F(TraceSwitch, TheLiveMutantIsTheOneNamedAndOthersRunTheOriginal) {
  ASSERT_EQ(setenv("CROSSGRAD_MUTANT", "5", 1), 0);
  EXPECT_EXIT(std::_Exit(crossgrad_mutation::on(5) && !crossgrad_mutation::on(6) ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
  const auto traces = traces_in(dir_);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(std::set<int>(traces[0].ids.begin(), traces[0].ids.end()), (std::set<int>{5, 6}));
}

}  // namespace

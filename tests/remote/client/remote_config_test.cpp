// How the Remote client reads its configuration from the environment (remote_config.hpp): the
// endpoint file's blank lines and '#' comments, the comma list and its token, the file winning over
// the list, CROSSGRAD_REMOTE_DEADLINE_MS and CROSSGRAD_REMOTE_BULK_BYTES with bad values falling
// back to the defaults, and configure()'s own deadline rule. The environment is read once per
// process, at first use, so each case runs in a fresh process: a threadsafe death-test child re-runs
// the test up to its statement, with the variables set just before it, and exits 0 only when what
// it read is what the case expects (it prints what it read either way).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <crossgrad/backends/remote_config.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace crossgrad {
namespace {

using namespace std::chrono_literals;
using remote::Endpoint;
using ::testing::ExitedWithCode;

constexpr const char* kVariables[] = {"CROSSGRAD_REMOTE_FILE", "CROSSGRAD_REMOTE", "CROSSGRAD_REMOTE_TOKEN",
                                      "CROSSGRAD_REMOTE_DEADLINE_MS", "CROSSGRAD_REMOTE_BULK_BYTES"};

// Sets exactly the given Remote variables (the others unset, whatever the ctest fixture exported)
// and puts every one back as it was at the end of the test.
class RemoteEnvironment {
 public:
  explicit RemoteEnvironment(std::initializer_list<std::pair<const char*, std::string>> values) {
    for (const char* name : kVariables) {
      const char* v = std::getenv(name);
      saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
      unsetenv(name);
    }
    for (const auto& [name, value] : values) setenv(name, value.c_str(), 1);
  }
  ~RemoteEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) setenv(name, value->c_str(), 1);
      else unsetenv(name);
    }
  }
  RemoteEnvironment(const RemoteEnvironment&) = delete;
  RemoteEnvironment& operator=(const RemoteEnvironment&) = delete;

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

std::string render(const std::vector<Endpoint>& endpoints) {
  std::string out;
  for (const Endpoint& e : endpoints) out += "[" + e.address + " | " + e.token + "] ";
  return out;
}

[[noreturn]] void exit_reporting(bool as_expected, const std::string& what) {
  std::fprintf(stderr, "read: %s\n", what.c_str());
  std::exit(as_expected ? 0 : 1);
}

void child_expects_endpoints(const std::vector<Endpoint>& expected) {
  const std::vector<Endpoint> got = remote::endpoints();
  exit_reporting(got == expected, render(got));
}

void child_expects_deadline(std::chrono::milliseconds expected) {
  const std::chrono::milliseconds got = remote::deadline();
  exit_reporting(got == expected, std::to_string(got.count()) + " ms");
}

void child_expects_bulk_threshold(std::size_t expected) {
  const std::size_t got = remote::bulk_threshold();
  exit_reporting(got == expected, std::to_string(got) + " bytes");
}

// A file for this test process; removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_("/tmp/crossgrad-remote-config-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(RemoteConfig, FileSkipsBlankLinesAndCommentsWherePlaced) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // A comment first, blank and whitespace-only lines, an indented comment, a commented-out server,
  // surrounding blanks and a CR on a server line: only the two server lines count, in file order.
  const TempFile file(
      "# servers for the config test\n"
      "\n"
      "   \t \n"
      "  127.0.0.1:50001   token-a  \r\n"
      "#127.0.0.1:50009 never-used\n"
      "    # an indented comment\n"
      "localhost:50002 token-b\n");
  const RemoteEnvironment env({{"CROSSGRAD_REMOTE_FILE", file.path()}});
  EXPECT_EXIT(child_expects_endpoints({{"127.0.0.1:50001", "token-a"}, {"localhost:50002", "token-b"}}),
              ExitedWithCode(0), "read: ");
}

TEST(RemoteConfig, FileOfOnlyCommentsListsNoServer) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const TempFile file("# nothing here yet\n\n  # still nothing\n");
  const RemoteEnvironment env({{"CROSSGRAD_REMOTE_FILE", file.path()}});
  EXPECT_EXIT(child_expects_endpoints({}), ExitedWithCode(0), "read: ");
}

TEST(RemoteConfig, CommaListTrimsItemsSkipsEmptyOnesAndSharesTheToken) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const RemoteEnvironment env({{"CROSSGRAD_REMOTE", " 127.0.0.1:50001 ,, localhost:50002,"},
                               {"CROSSGRAD_REMOTE_TOKEN", "shared"}});
  EXPECT_EXIT(child_expects_endpoints({{"127.0.0.1:50001", "shared"}, {"localhost:50002", "shared"}}),
              ExitedWithCode(0), "read: ");
}

TEST(RemoteConfig, FileWinsOverTheCommaList) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const TempFile file("127.0.0.1:50001 from-file\n");
  const RemoteEnvironment env({{"CROSSGRAD_REMOTE_FILE", file.path()},
                               {"CROSSGRAD_REMOTE", "localhost:50002"},
                               {"CROSSGRAD_REMOTE_TOKEN", "from-list"}});
  EXPECT_EXIT(child_expects_endpoints({{"127.0.0.1:50001", "from-file"}}), ExitedWithCode(0), "read: ");
}

TEST(RemoteConfig, DeadlineFromTheEnvironmentOnlyWhenAPositiveWholeNumber) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  {
    const RemoteEnvironment env({{"CROSSGRAD_REMOTE", "localhost:50002"}, {"CROSSGRAD_REMOTE_DEADLINE_MS", "250"}});
    EXPECT_EXIT(child_expects_deadline(250ms), ExitedWithCode(0), "read: ");
  }
  for (const char* ignored : {"0", "-5", "abc", "12x", ""}) {
    const RemoteEnvironment env({{"CROSSGRAD_REMOTE", "localhost:50002"}, {"CROSSGRAD_REMOTE_DEADLINE_MS", ignored}});
    EXPECT_EXIT(child_expects_deadline(remote::kDefaultDeadline), ExitedWithCode(0), "read: ") << "'" << ignored << "'";
  }
}

TEST(RemoteConfig, ConfigureKeepsAPositiveDeadlineElseTheDefault) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const RemoteEnvironment env({});
  const auto configure_then_expect = [](std::chrono::milliseconds given, std::chrono::milliseconds expected) {
    remote::configure({{"127.0.0.1:50001", "t"}}, given);
    child_expects_deadline(expected);
  };
  EXPECT_EXIT(configure_then_expect(123ms, 123ms), ExitedWithCode(0), "read: ");
  EXPECT_EXIT(configure_then_expect(0ms, remote::kDefaultDeadline), ExitedWithCode(0), "read: ");
  EXPECT_EXIT(configure_then_expect(-40ms, remote::kDefaultDeadline), ExitedWithCode(0), "read: ");
}

TEST(RemoteConfig, BulkThresholdFromTheEnvironment) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  {
    const RemoteEnvironment env({{"CROSSGRAD_REMOTE_BULK_BYTES", "4096"}});
    EXPECT_EXIT(child_expects_bulk_threshold(4096), ExitedWithCode(0), "read: ");
  }
  {
    const RemoteEnvironment env({{"CROSSGRAD_REMOTE_BULK_BYTES", "off"}});
    EXPECT_EXIT(child_expects_bulk_threshold(remote::kBulkOff), ExitedWithCode(0), "read: ");
  }
  for (const char* ignored : {"12k", "-1", "", "Off", "99999999999999999999"}) {  // the last: 20 digits
    const RemoteEnvironment env({{"CROSSGRAD_REMOTE_BULK_BYTES", ignored}});
    EXPECT_EXIT(child_expects_bulk_threshold(remote::kDefaultBulkBytes), ExitedWithCode(0), "read: ")
        << "'" << ignored << "'";
  }
}

}  // namespace
}  // namespace crossgrad

// Flex's worker pool (engine/src/backends/flex/thread_pool.cpp) by its documented behaviour
// (<crossgrad/backends/flex_testing.hpp>, Note [Flex tuning] in flex_tuning.hpp):
//  - parallel_for runs body(i) exactly once for every i in [0, tasks), for task counts that are
//    0, 1, below, at and above the thread count, and large; with any planned thread count;
//  - it runs inline (on the calling thread) for one task, with one planned thread, and when called
//    from inside a pool task; otherwise the tasks really run on more than one thread (two tasks
//    that each wait for the other finish), also after a failed job and after nested calls;
//  - the pool has the documented size (CROSSGRAD_NUM_THREADS or the hardware's), a job never runs
//    on more threads than that, and parallel_for returns only after every task finished;
//  - a second caller while the pool is busy runs its tasks inline instead of waiting;
//  - an exception from a body (on any thread) reaches the caller as the same exception, and the
//    pool still works afterwards;
//  - parallel_range splits [0, n) exactly by the rule in Note [Flex tuning].
// The waits below are liveness checks with a generous deadline (20 s), not timing asserts: on a
// working pool they end as soon as both tasks have started.
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace flex = crossgrad::backends::flex;
using Chunk = std::pair<std::size_t, std::size_t>;

constexpr auto kDeadline = std::chrono::seconds(20);

// The pool size the documentation gives (thread_pool.hpp, flex_tuning.hpp): CROSSGRAD_NUM_THREADS
// when it is all digits and at least 1 (capped at 256), else std::thread::hardware_concurrency()
// (1 when that is unknown). Worked out here, so that a pool of the wrong size fails the tests that
// need two threads instead of skipping them.
std::size_t documented_pool_size() {
  if (const char* env = std::getenv("CROSSGRAD_NUM_THREADS"); env != nullptr && *env != '\0') {
    bool digits = true;
    unsigned long long value = 0;
    for (const char* c = env; *c != '\0'; ++c) {
      if (*c < '0' || *c > '9') digits = false;
      else value = std::min<unsigned long long>(value * 10 + static_cast<unsigned>(*c - '0'), 1000);
    }
    if (digits && value >= 1) return static_cast<std::size_t>(std::min<unsigned long long>(value, 256));
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Restores the planned thread count whatever a test set.
class FlexPoolBehaviour : public ::testing::Test {
 protected:
  void SetUp() override { flex::set_num_threads(0); }
  void TearDown() override { flex::set_num_threads(0); }
  // The pool's own size: tests of real concurrency need two threads.
  static std::size_t pool_size() { return documented_pool_size(); }
};

// Waits until `flag` is set; false when the deadline passed first.
bool wait_for(const std::atomic<bool>& flag) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Counts one arrival, then waits until `count` have arrived; false when the deadline passed first.
bool meet(std::atomic<int>& arrived, int count) {
  arrived.fetch_add(1);
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (arrived.load() < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// parallel_for(2, ...) whose two tasks each wait for the other to start: true when both met, which
// needs two threads running them at once.
bool two_tasks_overlap() {
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  flex::parallel_for(2, [&](std::size_t) {
    if (meet(arrived, 2)) met.fetch_add(1);
  });
  return met.load() == 2;
}

void expect_each_index_once(std::size_t tasks, const std::string& what) {
  std::vector<std::atomic<int>> hits(tasks);
  flex::parallel_for(tasks, [&](std::size_t i) {
    ASSERT_LT(i, tasks) << what;
    hits[i].fetch_add(1);
  });
  for (std::size_t i = 0; i < tasks; ++i) {
    if (hits[i].load() != 1) {
      ADD_FAILURE() << what << ": index " << i << " ran " << hits[i].load() << " times";
      return;
    }
  }
}

TEST_F(FlexPoolBehaviour, ParallelForRunsEveryIndexExactlyOnce) {
  const std::size_t counts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 1000, 100003};
  for (std::size_t planned : {0u, 1u, 2u, 3u, 8u, 64u}) {  // 0: the pool's own size
    flex::set_num_threads(planned);
    for (std::size_t tasks : counts) {
      expect_each_index_once(tasks, std::to_string(tasks) + " tasks, " + std::to_string(planned) + " planned threads");
    }
  }
}

TEST_F(FlexPoolBehaviour, ZeroTasksRunNothing) {
  for (std::size_t planned : {0u, 1u, 4u}) {
    flex::set_num_threads(planned);
    std::atomic<int> calls{0};
    flex::parallel_for(0, [&](std::size_t) { calls.fetch_add(1); });
    flex::parallel_range(0, 1, [&](std::size_t, std::size_t) { calls.fetch_add(1); });
    flex::parallel_range(0, 0, [&](std::size_t, std::size_t) { calls.fetch_add(1); });
    EXPECT_EQ(calls.load(), 0) << planned << " planned threads";
  }
}

TEST_F(FlexPoolBehaviour, InlineCasesRunOnTheCallingThread) {
  const auto caller = std::this_thread::get_id();
  // One task.
  std::thread::id ran_on;
  flex::parallel_for(1, [&](std::size_t) { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, caller);
  // One planned thread: everything on the caller, in any number of tasks.
  flex::set_num_threads(1);
  std::atomic<int> elsewhere{0};
  flex::parallel_for(1000, [&](std::size_t) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
  });
  flex::parallel_range(100000, 1, [&](std::size_t, std::size_t) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
  });
  EXPECT_EQ(elsewhere.load(), 0);
  flex::set_num_threads(0);
  // Nested: the inner tasks run on the thread of the outer task that called them.
  std::atomic<int> nested_elsewhere{0}, inner_runs{0};
  flex::parallel_for(8, [&](std::size_t) {
    const auto outer = std::this_thread::get_id();
    flex::parallel_for(5, [&](std::size_t) {
      inner_runs.fetch_add(1);
      if (std::this_thread::get_id() != outer) nested_elsewhere.fetch_add(1);
    });
  });
  EXPECT_EQ(inner_runs.load(), 40);
  EXPECT_EQ(nested_elsewhere.load(), 0);
}

TEST_F(FlexPoolBehaviour, TasksRunOnMoreThanOneThread) {
  if (pool_size() < 2) GTEST_SKIP() << "the pool has one thread (CROSSGRAD_NUM_THREADS or one core)";
  ASSERT_TRUE(two_tasks_overlap()) << "first job";  // the rest would each wait out the deadline too
  EXPECT_TRUE(two_tasks_overlap()) << "second job: the pool must be ready again after a job";
  // After nested calls (which run inline) the caller is a plain caller again.
  std::atomic<int> inner{0};
  flex::parallel_for(4, [&](std::size_t) { flex::parallel_for(3, [&](std::size_t) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 12);
  EXPECT_TRUE(two_tasks_overlap()) << "after a nested call";
  // After a job that failed.
  EXPECT_THROW(flex::parallel_for(4, [](std::size_t i) { if (i == 2) throw std::runtime_error("task 2"); }),
               std::runtime_error);
  EXPECT_TRUE(two_tasks_overlap()) << "after a failed job";
  // parallel_range with two chunks of one grain each is two parallel tasks as well.
  flex::set_num_threads(2);
  std::atomic<int> arrived{0}, met{0};
  flex::parallel_range(2 * flex::kTuning.split_min_grains, 2, [&](std::size_t, std::size_t) {
    if (meet(arrived, 2)) met.fetch_add(1);
  });
  EXPECT_EQ(met.load(), 2) << "parallel_range chunks did not overlap";
}

TEST_F(FlexPoolBehaviour, PoolHasTheDocumentedSize) {
  EXPECT_EQ(flex::num_threads(), documented_pool_size());
  flex::set_num_threads(5);
  EXPECT_EQ(flex::num_threads(), 5u);
  flex::set_num_threads(0);
  EXPECT_EQ(flex::num_threads(), documented_pool_size());
}

// The caller and (size - 1) workers: never more distinct threads in one job than the pool's size,
// however many tasks or planned threads. Tasks sleep a little so that every worker wakes and joins.
TEST_F(FlexPoolBehaviour, AJobUsesAtMostThePoolsThreads) {
  for (std::size_t planned : {0u, 64u}) {
    flex::set_num_threads(planned);
    std::mutex mutex;
    std::set<std::thread::id> seen;
    flex::parallel_for(48, [&](std::size_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    });
    EXPECT_LE(seen.size(), pool_size()) << planned << " planned threads";
    EXPECT_GE(seen.size(), 1u);
  }
}

// parallel_for returns only when every task has finished, also a task a worker is still running
// after the caller ran out of tasks to claim.
TEST_F(FlexPoolBehaviour, ParallelForReturnsAfterEveryTaskFinished) {
  if (pool_size() < 2) GTEST_SKIP() << "the pool has one thread";
  const auto caller = std::this_thread::get_id();
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> arrived{0};
    std::atomic<bool> finished[2] = {false, false};
    std::atomic<bool> missed{false};
    flex::parallel_for(2, [&](std::size_t i) {
      if (!meet(arrived, 2)) missed.store(true);
      if (std::this_thread::get_id() != caller) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      finished[i].store(true);
    });
    ASSERT_FALSE(missed.load()) << "round " << round << ": the two tasks never ran at once";
    ASSERT_TRUE(finished[0].load() && finished[1].load()) << "round " << round;
  }
}

TEST_F(FlexPoolBehaviour, ASecondCallerWhileThePoolIsBusyRunsInline) {
  if (pool_size() < 2) GTEST_SKIP() << "the pool has one thread";
  std::atomic<bool> job_running{false}, other_done{false};
  std::vector<std::atomic<int>> other_hits(1000);
  bool other_saw_job = false;
  std::thread other([&] {
    other_saw_job = wait_for(job_running);
    flex::parallel_for(other_hits.size(), [&](std::size_t i) { other_hits[i].fetch_add(1); });
    other_done.store(true);
  });
  std::atomic<int> waited_ok{0};
  // Both tasks of this job wait for the other caller's whole job: it must not wait for this one.
  flex::parallel_for(2, [&](std::size_t) {
    job_running.store(true);
    if (wait_for(other_done)) waited_ok.fetch_add(1);
  });
  other.join();
  EXPECT_TRUE(other_saw_job);
  EXPECT_EQ(waited_ok.load(), 2) << "the second caller's job did not finish while the pool was busy";
  for (std::size_t i = 0; i < other_hits.size(); ++i) ASSERT_EQ(other_hits[i].load(), 1) << "index " << i;
}

TEST_F(FlexPoolBehaviour, ConcurrentCallersEachGetEveryIndexOnce) {
  constexpr std::size_t kCallers = 4, kTasks = 5000;
  std::vector<std::vector<std::atomic<int>>> hits(kCallers);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(kTasks);
  std::vector<std::thread> callers;
  for (std::size_t c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 5; ++round) flex::parallel_for(kTasks, [&](std::size_t i) { hits[c][i].fetch_add(1); });
    });
  }
  for (auto& t : callers) t.join();
  for (std::size_t c = 0; c < kCallers; ++c)
    for (std::size_t i = 0; i < kTasks; ++i) ASSERT_EQ(hits[c][i].load(), 5) << "caller " << c << " index " << i;
}

struct TaskError {
  std::size_t task;
};

TEST_F(FlexPoolBehaviour, ExceptionsReachTheCallerUnchanged) {
  for (std::size_t planned : {0u, 1u, 2u, 4u}) {
    flex::set_num_threads(planned);
    const std::string where = std::to_string(planned) + " planned threads";
    // One failing task among many: the caller gets that task's own exception object.
    try {
      flex::parallel_for(1000, [](std::size_t i) {
        if (i == 637) throw TaskError{i};
      });
      ADD_FAILURE() << "no exception, " << where;
    } catch (const TaskError& e) {
      EXPECT_EQ(e.task, 637u) << where;
    }
    // Several failing tasks: one of them.
    try {
      flex::parallel_for(1000, [](std::size_t i) {
        if (i == 3 || i == 998) throw TaskError{i};
      });
      ADD_FAILURE() << "no exception, " << where;
    } catch (const TaskError& e) {
      EXPECT_TRUE(e.task == 3 || e.task == 998) << e.task << ", " << where;
    }
    // The first and the last task, and a single task (the inline path).
    for (std::size_t bad : {std::size_t{0}, std::size_t{99}}) {
      EXPECT_THROW(flex::parallel_for(100, [&](std::size_t i) { if (i == bad) throw TaskError{i}; }), TaskError)
          << "task " << bad << ", " << where;
    }
    EXPECT_THROW(flex::parallel_for(1, [](std::size_t) { throw std::logic_error("one"); }), std::logic_error) << where;
    // parallel_range passes exceptions on too.
    EXPECT_THROW(flex::parallel_range(100000, 10, [](std::size_t b, std::size_t e) {
                   if (b <= 77777 && 77777 < e) throw TaskError{b};
                 }),
                 TaskError)
        << where;
    // The pool still runs every task after a failure.
    expect_each_index_once(1000, "after a failure, " + where);
  }
}

TEST_F(FlexPoolBehaviour, AnExceptionFromAWorkerThreadReachesTheCaller) {
  if (pool_size() < 2) GTEST_SKIP() << "the pool has one thread";
  const auto caller = std::this_thread::get_id();
  std::atomic<int> arrived{0};
  std::atomic<bool> worker_threw{false};
  try {
    flex::parallel_for(2, [&](std::size_t i) {
      meet(arrived, 2);  // both tasks start, so one of them is on a worker
      if (std::this_thread::get_id() != caller) {
        worker_threw.store(true);
        throw TaskError{i};
      }
    });
  } catch (const TaskError&) {
    EXPECT_TRUE(worker_threw.load());
    return;
  }
  EXPECT_FALSE(worker_threw.load()) << "a worker threw and the caller did not see it";
  ADD_FAILURE() << "both tasks ran on the calling thread";
}

// The split Note [Flex tuning] documents: serial (one body(0, n), none for n == 0) while
// n < split_min_grains * grain or with one thread; otherwise min(threads * chunks_per_thread,
// n / grain) chunks of n / chunks items, the first n % chunks of them one longer; grain 0 counts as 1.
std::vector<Chunk> documented_chunks(std::size_t n, std::size_t grain, std::size_t threads) {
  grain = std::max<std::size_t>(grain, 1);
  if (n < flex::kTuning.split_min_grains * grain || threads == 1) {
    if (n == 0) return {};
    return {Chunk{0, n}};
  }
  const std::size_t chunks = std::min(threads * flex::kTuning.chunks_per_thread, n / grain);
  const std::size_t base = n / chunks, extra = n % chunks;
  std::vector<Chunk> out;
  std::size_t begin = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t end = begin + base + (c < extra ? 1 : 0);
    out.emplace_back(begin, end);
    begin = end;
  }
  return out;
}

TEST_F(FlexPoolBehaviour, ParallelRangeSplitsAsDocumented) {
  const std::pair<std::size_t, std::size_t> ranges[] = {
      {1, 0},    {1, 1},    {2, 1},    {3, 0},      {3, 1},      {5, 3},      {6, 3},       {7, 3},
      {17, 4},   {100, 1},  {100, 7},  {1999, 1000}, {2000, 1000}, {2001, 1000}, {100003, 1000}, {1000000, 7},
      {64, 100}, {33, 16},  {32, 16},  {31, 16}};
  for (std::size_t threads : {1u, 2u, 3u, 4u, 7u, 16u}) {
    flex::set_num_threads(threads);
    for (const auto& [n, grain] : ranges) {
      std::mutex mutex;
      std::vector<Chunk> got;
      flex::parallel_range(n, grain, [&](std::size_t b, std::size_t e) {
        std::lock_guard lock(mutex);
        got.emplace_back(b, e);
      });
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, documented_chunks(n, grain, threads))
          << "n " << n << ", grain " << grain << ", " << threads << " threads";
    }
  }
}

TEST_F(FlexPoolBehaviour, ParallelRangeInsideATaskCoversTheRangeOnce) {
  flex::set_num_threads(4);
  std::vector<std::atomic<int>> hits(4 * 10000);
  flex::parallel_for(4, [&](std::size_t t) {
    flex::parallel_range(10000, 100, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) hits[t * 10000 + i].fetch_add(1);
    });
  });
  for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
}

// Flex's pool is sized once, from CROSSGRAD_NUM_THREADS when it is a whole number >= 1, else from the
// hardware (flex_tuning.hpp, docs/PERFORMANCE.md). The cap at 256 threads is thread_pool.cpp's own.
// Only digits count, read in base 10 ("010" is 10); a sign, a space or a trailing letter gives the
// hardware's count ("-2" once gave 256 threads). The pool is created on first use, so each value is
// checked in a fresh process: a threadsafe death-test child re-runs this test up to its statement,
// with the variable set just before it.
int hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

void exit_with_pool_size() {
  const std::size_t n = crossgrad::backends::flex::num_threads();
  std::fprintf(stderr, "pool size %zu\n", n);
  std::exit(static_cast<int>(n % 256));  // exit codes are 8 bits: 256 reads as 0
}

TEST(FlexPoolSize, NumThreadsVariableSizesThePool) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  using ::testing::ExitedWithCode;
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "3", 1), 0);
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(3), "pool size 3\n");
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "1", 1), 0);
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(1), "pool size 1\n");
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "100000", 1), 0);  // capped
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(0), "pool size 256\n");
  ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", "010", 1), 0);  // decimal, not octal
  EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(10), "pool size 10\n");
  const std::string hw = "pool size " + std::to_string(hardware_threads()) + "\n";
  for (const char* ignored : {"0", "4x", "1a", "", "-2", "+3", " 3"}) {  // not digits >= 1: the hardware's count
    ASSERT_EQ(setenv("CROSSGRAD_NUM_THREADS", ignored, 1), 0);
    EXPECT_EXIT(exit_with_pool_size(), ExitedWithCode(hardware_threads() % 256), hw) << "'" << ignored << "'";
  }
  ASSERT_EQ(unsetenv("CROSSGRAD_NUM_THREADS"), 0);
}

}  // namespace

// Note [Flex thread pool]
// One process-wide pool of (num_threads() - 1) workers; the calling thread works too. A job is a
// task count plus a body; workers and the caller claim task indices from the job's atomic
// counter, so uneven tasks balance themselves, and the caller only ever waits for tasks that a
// worker has claimed and is running — never for a worker to wake up (which, on a loaded machine,
// can take a scheduler tick). Workers sleep on a condition variable between jobs, after a spin of
// at most 50 us (Note [Flex pool spins briefly]; the machine is shared, so never longer), and hold
// the job by shared_ptr, so one that wakes late finds the job
// exhausted and touches nothing. Only one job runs at a time: a second caller, or a nested call
// from inside a task, runs its tasks inline, which is always correct.
#include "thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace crossgrad::backends::flex {
namespace {

std::size_t configured_threads() {
  // Digits only: strtoull alone would also take "-2" (as 2^64 - 2, capped to 256 threads), "+3" and
  // " 3"; anything else falls back to the hardware's count.
  if (const char* env = std::getenv("CROSSGRAD_NUM_THREADS"); env != nullptr && *env >= '0' && *env <= '9') {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(env, &end, 10);
    if (*end == '\0' && value >= 1) return std::min<unsigned long long>(value, 256);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

thread_local bool inside_pool_task = false;

struct Job {
  const std::function<void(std::size_t)>* body = nullptr;
  std::size_t tasks = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
};

class Pool {
 public:
  // Note [Workers have started when the pool exists]
  // The constructor returns only once every worker runs worker_loop. A thread that is still
  // starting has a sanitizer's set-up half done (ASan's pthread_getattr_np holds a block that
  // LeakSanitizer cannot see yet): a short process that exits then, such as a fuzzer replaying
  // one input, got a 32-byte "leak" that no rerun reproduced. Waiting costs one start-up per
  // process and makes the pool's state after its first use the same on every run.
  explicit Pool(std::size_t threads) : threads_(threads) {
    for (std::size_t i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return started_ == workers_.size(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  std::size_t threads() const { return threads_; }

  // False when another job holds the pool (the caller then runs inline).
  bool run(std::size_t tasks, const std::function<void(std::size_t)>& body) {
    std::unique_lock job_lock(job_mutex_, std::try_to_lock);
    if (!job_lock.owns_lock()) return false;
    auto job = std::make_shared<Job>();
    job->body = &body;
    job->tasks = tasks;
    {
      std::lock_guard lock(mutex_);
      job_ = job;
      ++generation_;
      published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    work(*job);
    // The tasks left are running on workers: a short spin usually sees them finish, where a sleep
    // costs a futex wait and a wake-up (Note [Flex pool spins briefly]).
    spin_until([&] { return job->finished.load(std::memory_order_acquire) == tasks; });
    if (job->finished.load(std::memory_order_acquire) != tasks) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return job->finished.load(std::memory_order_acquire) == tasks; });
    }
    {
      std::lock_guard lock(mutex_);
      job_.reset();
    }
    if (job->error) std::rethrow_exception(job->error);
    return true;
  }

 private:
  // Note [Flex pool spins briefly]
  // A worker that sleeps between jobs takes a futex wake-up to start the next one, and a caller
  // that sleeps until the workers finish takes another: together about 4 us on this machine, more
  // than a cheap op's whole 64K-element run (clamp_min: 3.8 us on one thread, 7.4 us split in two;
  // crossgrad_bench, CROSSGRAD_NUM_THREADS=1 against 2). So both first spin, for at most kSpin,
  // then sleep as before: a run of ops finds the workers awake (clamp_min at 64K: 4.9 us), and an
  // idle process still sleeps after that short while, so a shared machine loses at most kSpin of
  // a core per job and worker.
  static constexpr std::chrono::microseconds kSpin{50};
  template <class Ready>
  static void spin_until(Ready ready) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 0;; ++i) {
      if (ready()) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return;
    }
  }

  // Claims and runs tasks until none are left. After a failure the remaining tasks are claimed
  // and counted without running.
  void work(Job& job) {
    inside_pool_task = true;
    for (;;) {
      const std::size_t task = job.next.fetch_add(1, std::memory_order_relaxed);
      if (task >= job.tasks) break;
      if (!job.failed.load(std::memory_order_relaxed)) {
        try {
          (*job.body)(task);
        } catch (...) {
          std::lock_guard lock(job.error_mutex);
          if (!job.error) job.error = std::current_exception();
          job.failed.store(true, std::memory_order_relaxed);
        }
      }
      if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == job.tasks) {
        std::lock_guard lock(mutex_);
        done_.notify_all();
      }
    }
    inside_pool_task = false;
  }

  void worker_loop() {
    {
      std::lock_guard lock(mutex_);
      ++started_;
    }
    done_.notify_all();
    std::size_t seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      // A job that follows within the spin finds this worker awake (Note [Flex pool spins briefly]).
      spin_until([&] { return published_.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        job = job_;
      }
      if (job) work(*job);
    }
  }

  std::size_t threads_;
  std::vector<std::thread> workers_;
  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::shared_ptr<Job> job_;
  std::size_t generation_ = 0;
  std::atomic<std::size_t> published_{0};  // generation_, readable without the mutex while spinning
  std::size_t started_ = 0;  // workers inside worker_loop
  bool stopping_ = false;
};

Pool& pool() {
  static Pool instance(configured_threads());
  return instance;
}

// set_num_threads_override (flex_tuning.hpp); 0 when not set.
std::atomic<std::size_t> thread_override{0};

}  // namespace

std::size_t num_threads() {
  const std::size_t forced = thread_override.load(std::memory_order_relaxed);
  return forced != 0 ? forced : pool().threads();
}

void set_num_threads_override(std::size_t threads) {
  thread_override.store(threads, std::memory_order_relaxed);
}

void set_num_threads(std::size_t threads) { set_num_threads_override(threads); }

void parallel_for(std::size_t tasks, const std::function<void(std::size_t)>& body) {
  if (tasks == 0) return;
  if (tasks == 1 || inside_pool_task || num_threads() == 1 || !pool().run(tasks, body)) {
    for (std::size_t task = 0; task < tasks; ++task) body(task);
  }
}

void parallel_range(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t threads = num_threads();
  if (n < kTuning.split_min_grains * grain || threads == 1 || inside_pool_task) {
    if (n > 0) body(0, n);
    return;
  }
  // A few chunks per thread balance uneven progress without many wake-ups.
  const std::size_t max_chunks = threads * kTuning.chunks_per_thread;
  const std::size_t chunks = std::min(max_chunks, n / grain);
  const std::size_t base = n / chunks;
  const std::size_t extra = n % chunks;
  parallel_for(chunks, [&](std::size_t c) {
    const std::size_t begin = c * base + std::min(c, extra);
    const std::size_t end = begin + base + (c < extra ? 1 : 0);
    body(begin, end);
  });
}

}  // namespace crossgrad::backends::flex

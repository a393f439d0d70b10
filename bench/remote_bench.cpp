// The Remote backend's own costs, beside the anchor they are judged against (issue 15, item 7):
//   roundtrip/Remote/1        one 1-element float_add, each call timed alone: p50_us and p99_us
//   from_data/Remote/64M      64 MiB of F32 sent to the server (upload, on the bulk channel)
//   into_data/Remote/64M      64 MiB read back (download, on the bulk channel)
//   {from,into}_data/Remote/64M/grpc  the same inside gRPC messages (remote::kBulkOff): what the
//                             bulk channel (Note [Remote bulk channel]) saves
//   copy/tcp_loopback/64M     the anchor: 64 MiB over a raw TCP socket on 127.0.0.1, one writer and
//                             one reader thread, no framing; what the transfers above cannot beat.
// The op kernels (<op>/Remote/<size>) come from kernels_bench.cpp like every backend's, whenever
// Remote is available; bench/main.cpp starts an in-process server when none is configured.
#include "bench_common.hpp"

#if CROSSGRAD_WITH_REMOTE
#include <crossgrad/backends/remote.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <semaphore>
#include <string>
#include <stdexcept>
#include <thread>

namespace crossgrad::bench {
namespace {

using backends::Remote;
constexpr std::size_t kTransferBytes = std::size_t{64} << 20;

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(q * double(v.size() - 1) + 0.5));
  return v[i];
}

// Each call is timed on its own (manual time), so the tail is visible: p50 is the target,
// p99 shows what a scheduler hiccup or a gRPC wake-up costs.
void roundtrip(benchmark::State& state) {
  const Remote::Tensor a = random_tensor<Remote>(Shape{1}, 1), b = random_tensor<Remote>(Shape{1}, 2);
  benchmark::DoNotOptimize(Remote::float_add(a, b));
  std::vector<double> micros;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(Remote::float_add(a, b));
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    state.SetIterationTime(dt.count());
    micros.push_back(dt.count() * 1e6);
  }
  state.counters["p50_us"] = percentile(micros, 0.50);
  state.counters["p99_us"] = percentile(micros, 0.99);
}

// Runs the transfer benchmarks with the bulk channel on (the default threshold) or off.
class BulkSetting {
 public:
  explicit BulkSetting(bool bulk) { remote::set_bulk_threshold(bulk ? remote::kDefaultBulkBytes : remote::kBulkOff); }
  ~BulkSetting() { remote::set_bulk_threshold(remote::kDefaultBulkBytes); }
};

void upload(benchmark::State& state, bool bulk_channel) {
  const BulkSetting bulk(bulk_channel);
  const TensorData data = TensorData::from_f32(random_values(kTransferBytes / sizeof(float)),
                                               Shape{kTransferBytes / sizeof(float)});
  for (auto _ : state) benchmark::DoNotOptimize(Remote::from_data(data, Remote::default_device()));
  set_bytes(state, double(kTransferBytes));
}

void download(benchmark::State& state, bool bulk_channel) {
  const BulkSetting bulk(bulk_channel);
  const Remote::Tensor t = random_tensor<Remote>(Shape{kTransferBytes / sizeof(float)});
  for (auto _ : state) benchmark::DoNotOptimize(Remote::into_data(t));
  set_bytes(state, double(kTransferBytes));
}

// A connected TCP pair on loopback with a reader thread that drains exactly one message per
// iteration into a preallocated buffer (as a client receiving a tensor would).
class LoopbackPair {
 public:
  LoopbackPair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener, 1) != 0 || ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("loopback anchor: cannot listen on 127.0.0.1");
    }
    writer_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (writer_ < 0 || ::connect(writer_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      throw std::runtime_error("loopback anchor: cannot connect");
    }
    reader_ = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    if (reader_ < 0) throw std::runtime_error("loopback anchor: accept failed");
    thread_ = std::thread([this] {
      for (;;) {
        go_.acquire();
        if (stop_) return;
        std::size_t got = 0;
        while (got < sink_.size()) {
          const ssize_t r = ::read(reader_, sink_.data() + got, sink_.size() - got);
          if (r <= 0) break;
          got += static_cast<std::size_t>(r);
        }
        done_.release();
      }
    });
  }
  ~LoopbackPair() {
    stop_ = true;
    go_.release();
    thread_.join();
    ::close(writer_);
    ::close(reader_);
  }
  void send(const std::vector<char>& message) {
    sink_.resize(message.size());
    go_.release();
    std::size_t sent = 0;
    while (sent < message.size()) {
      const ssize_t w = ::write(writer_, message.data() + sent, message.size() - sent);
      if (w <= 0) throw std::runtime_error("loopback anchor: write failed");
      sent += static_cast<std::size_t>(w);
    }
    done_.acquire();
  }

 private:
  int writer_ = -1, reader_ = -1;
  std::vector<char> sink_;
  std::binary_semaphore go_{0}, done_{0};
  bool stop_ = false;
  std::thread thread_;
};

void tcp_loopback(benchmark::State& state) {
  LoopbackPair pair;
  const std::vector<char> message(kTransferBytes, 'x');
  pair.send(message);
  for (auto _ : state) pair.send(message);
  set_bytes(state, double(kTransferBytes));
}

}  // namespace

void register_remote_benchmarks() {
  benchmark::RegisterBenchmark("copy/tcp_loopback/64M", tcp_loopback)->UseRealTime()->Unit(benchmark::kMillisecond);
  if (!Remote::is_available()) return;
  benchmark::RegisterBenchmark("roundtrip/Remote/1", roundtrip)->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (const bool bulk : {true, false}) {
    const std::string tail = bulk ? "" : "/grpc";
    benchmark::RegisterBenchmark(("from_data/Remote/64M" + tail).c_str(), upload, bulk)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("into_data/Remote/64M" + tail).c_str(), download, bulk)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
  }
}

}  // namespace crossgrad::bench

#else

namespace crossgrad::bench {
void register_remote_benchmarks() {}
}  // namespace crossgrad::bench

#endif

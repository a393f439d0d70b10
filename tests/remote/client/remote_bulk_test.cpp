// The bulk channel from the client (Note [Remote bulk channel]): large from_data / into_data bytes
// travel beside gRPC, bit-identical, for every storable dtype, from many threads at once; a server
// without one (or a client with the channel off) still works through gRPC messages; a server killed
// or stalled around a bulk transfer fails with remote-unavailable within the deadline.
// Which path carried the bytes is made visible with a tiny --max-message-bytes: gRPC messages
// larger than it are refused (remote-rejected, RESOURCE_EXHAUSTED), bulk frames are not.
#include "remote_test_support.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <regex>
#include <thread>

namespace crossgrad {
namespace {
using namespace std::chrono_literals;
using backends::Remote;
using remote_tests::Caught;
using remote_tests::InProcessServer;
using remote_tests::panic_of;
using remote_tests::panic_within;
using remote_tests::ServerProcess;

constexpr std::size_t kSmallMessages = std::size_t{64} << 10;  // --max-message-bytes of these servers

// Sets the client's bulk threshold for one test and restores the default after it.
class BulkThreshold {
 public:
  explicit BulkThreshold(std::size_t bytes) { remote::set_bulk_threshold(bytes); }
  ~BulkThreshold() { remote::set_bulk_threshold(remote::kDefaultBulkBytes); }
};

// n F32 values with every kind of bit pattern a copy could lose: NaN payloads, signed zeros,
// infinities, subnormals, and a counter in the rest so that a shifted or reordered byte shows.
TensorData awkward_f32(std::size_t n) {
  std::vector<float> v(n);
  const std::uint32_t specials[] = {0x7fc00001u, 0xffc0abcdu, 0x80000000u, 0x00000000u,
                                    0x7f800000u, 0xff800000u, 0x00000001u, 0x807fffffu};
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits = i % 97 < 8 ? specials[i % 97] : static_cast<std::uint32_t>(i * 2654435761u) | 0x3f000000u;
    std::memcpy(&v[i], &bits, sizeof bits);
  }
  return TensorData::from_f32(std::move(v), Shape{n});
}

server::ServerOptions small_messages(bool bulk = true) {
  server::ServerOptions o;
  o.max_message_bytes = kSmallMessages;
  o.bulk = bulk;
  o.log = [](std::string_view) {};
  return o;
}

// Every storable dtype's data of n elements (values depend on the index).
std::vector<TensorData> one_of_each_dtype(std::size_t n) {
  std::vector<double> f64(n);
  std::vector<std::int64_t> i64(n);
  std::vector<std::int32_t> i32(n);
  std::vector<std::int8_t> i8(n);
  std::vector<std::uint8_t> u8(n);
  std::vector<bool> b(n);
  for (std::size_t i = 0; i < n; ++i) {
    f64[i] = i % 5 == 0 ? -0.0 : std::ldexp(static_cast<double>(i) + 0.25, static_cast<int>(i % 60) - 30);
    i64[i] = static_cast<std::int64_t>(i * 0x9e3779b97f4a7c15ull);
    i32[i] = static_cast<std::int32_t>(i * 2654435761u);
    i8[i] = static_cast<std::int8_t>(i * 7);
    u8[i] = static_cast<std::uint8_t>(255 - i % 256);
    b[i] = i % 3 == 1;
  }
  return {awkward_f32(n), TensorData::from_f64(f64, {n}), TensorData::from_i64(i64, {n}),
          TensorData::from_i32(i32, {n}), TensorData::from_i8(i8, {n}), TensorData::from_u8(u8, {n}),
          TensorData::from_bool(b, {n})};
}

TEST(RemoteBulk, LargeTensorsTravelOnTheBulkChannelBitIdentical) {
  InProcessServer server(small_messages());
  server.use();
  const BulkThreshold threshold(remote::kDefaultBulkBytes);
  const TensorData data = awkward_f32((std::size_t{3} << 20) / 4 + 5);  // 3 MiB + 20 bytes: over the threshold
  const Remote::Tensor t = Remote::from_data(data, Remote::default_device());
  EXPECT_TRUE(Remote::into_data(t) == data);
  // An op's result comes back the same way, equal to Flex's.
  const Remote::Tensor doubled = Remote::float_add(t, t);
  const backends::Flex::Tensor local = backends::Flex::from_data(data, backends::Flex::default_device());
  EXPECT_TRUE(Remote::into_data(doubled) == backends::Flex::into_data(backends::Flex::float_add(local, local)));
}

TEST(RemoteBulk, BelowTheThresholdOrWithTheChannelOffGrpcCarriesTheBytes) {
  InProcessServer server(small_messages());
  server.use();
  const TensorData data = awkward_f32(std::size_t{1} << 18);  // 1 MiB: over --max-message-bytes
  {
    const BulkThreshold off(remote::kBulkOff);
    const std::optional<Caught> caught = panic_of([&] { Remote::from_data(data, Remote::default_device()); });
    ASSERT_TRUE(caught.has_value()) << "a gRPC message over --max-message-bytes was accepted";
    EXPECT_EQ(caught->id, "remote-rejected");
    // gRPC's own receive limit (set from --max-message-bytes) refuses it before the handler.
    EXPECT_NE(caught->message.find("RESOURCE_EXHAUSTED"), std::string::npos) << caught->message;
  }
  {
    const BulkThreshold at(data.bytes().size());  // exactly the threshold: bulk
    EXPECT_TRUE(Remote::into_data(Remote::from_data(data, Remote::default_device())) == data);
  }
  {
    const BulkThreshold above(data.bytes().size() + 1);
    const std::optional<Caught> caught = panic_of([&] { Remote::from_data(data, Remote::default_device()); });
    ASSERT_TRUE(caught.has_value()) << "bytes below the threshold did not travel in a gRPC message";
    EXPECT_EQ(caught->id, "remote-rejected");
  }
}

TEST(RemoteBulk, EveryDtypeAndEmptyTensorsRoundTripThroughBulk) {
  InProcessServer server(small_messages());
  server.use();
  const BulkThreshold always(0);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4099}, std::size_t{70000}}) {
    for (const TensorData& data : one_of_each_dtype(n)) {
      SCOPED_TRACE(std::string(dtype_name(data.dtype())) + " x " + std::to_string(n));
      EXPECT_TRUE(Remote::into_data(Remote::from_data(data, Remote::default_device())) == data);
    }
  }
  const TensorData empty = TensorData::from_bytes({}, {2, 0, 3}, DType::F32);
  EXPECT_TRUE(Remote::into_data(Remote::from_data(empty, Remote::default_device())) == empty);
}

TEST(RemoteBulk, AServerWithoutTheChannelIsServedThroughGrpc) {
  InProcessServer server(small_messages(/*bulk=*/false));
  server.use();
  const BulkThreshold always(0);
  const TensorData data = awkward_f32(1000);  // under the message limit
  EXPECT_TRUE(Remote::into_data(Remote::from_data(data, Remote::default_device())) == data);
  const std::optional<Caught> caught =
      panic_of([&] { Remote::from_data(awkward_f32(std::size_t{1} << 16), Remote::default_device()); });
  ASSERT_TRUE(caught.has_value()) << "without a bulk channel the limit of gRPC messages must apply";
  EXPECT_EQ(caught->id, "remote-rejected");
}

// Threads of one process share one session and so one bulk connection: transfers interleave
// with each other's gRPC calls, and each must get its own bytes.
TEST(RemoteBulk, ConcurrentTransfersOfOneSessionKeepTheirOwnBytes) {
  InProcessServer server(small_messages());
  server.use();
  const BulkThreshold always(0);
  constexpr int kThreads = 4;
  constexpr int kRounds = 12;
  std::vector<std::thread> threads;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int r = 0; r < kRounds; ++r) {
          const std::size_t n = 1000 + static_cast<std::size_t>(t * 7919 + r * 104729) % 50000;
          std::vector<float> v(n);
          for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(t * 1000000 + r * 10000) + static_cast<float>(i);
          const TensorData data = TensorData::from_f32(v, {n});
          const Remote::Tensor x = Remote::from_data(data, Remote::default_device());
          if (!(Remote::into_data(x) == data)) ++mismatches[t];
          if (!(Remote::into_data(Remote::float_neg(Remote::float_neg(x))) == data)) ++mismatches[t];
        }
      } catch (const Panic& p) {
        errors[t] = p.message();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
    EXPECT_EQ(errors[t], "") << "thread " << t;
  }
}

const std::regex kUnavailable(R"(Remote server 127\.0\.0\.1:(\d+) is unavailable: (\S+) failed with ([A-Z_]+) \((.*)\)\.)");

TEST(RemoteBulk, ServerKilledAroundABulkTransferIsRemoteUnavailable) {
  ServerProcess server(0, remote_tests::random_token());
  const auto deadline = 1500ms;
  server.use(deadline);
  const BulkThreshold always(0);
  const TensorData data = awkward_f32(std::size_t{1} << 20);  // 4 MiB: more than the socket buffers
  const Remote::Tensor held = Remote::from_data(data, Remote::default_device());  // the link is up
  server.kill_hard();
  for (const char* call : {"from_data", "into_data"}) {
    SCOPED_TRACE(call);
    std::chrono::milliseconds took{0};
    const std::optional<Caught> caught = panic_within(
        deadline + 20s,
        [&] {
          if (std::string(call) == "from_data") {
            Remote::from_data(data, Remote::default_device());
          } else {
            Remote::into_data(held);
          }
        },
        &took);
    ASSERT_TRUE(caught.has_value()) << "a bulk transfer to a killed server returned";
    EXPECT_EQ(caught->id, "remote-unavailable") << caught->message;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(caught->message, m, kUnavailable)) << caught->message;
    EXPECT_EQ(m[1], std::to_string(server.port()));
    EXPECT_EQ(m[2], call);
    EXPECT_LE(took, deadline + 2s) << "the deadline bounds a failed bulk transfer";
  }
}

TEST(RemoteBulk, StalledServerHitsTheDeadlineOnABulkUpload) {
  ServerProcess server(0, remote_tests::random_token(), {"--stall-ms", "4000"});
  const auto deadline = 1000ms;
  server.use(deadline);
  const BulkThreshold always(0);
  std::chrono::milliseconds took{0};
  const std::optional<Caught> caught =
      panic_within(deadline + 20s, [&] { Remote::from_data(awkward_f32(std::size_t{1} << 19), Remote::default_device()); }, &took);
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "remote-unavailable");
  EXPECT_NE(caught->message.find("DEADLINE_EXCEEDED"), std::string::npos) << caught->message;
  EXPECT_LT(took, 4000ms) << "the client waited for the stalled server instead of its deadline";
}

}  // namespace
}  // namespace crossgrad

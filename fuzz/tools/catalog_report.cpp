// fuzz_catalog_report: which catalog entries each corpus reaches.
//   fuzz_catalog_report [--require-all] CORPUS_ROOT
// Replays every file of CORPUS_ROOT/<target>/ for every target and prints, per
// catalog entry, the targets (and file counts) that raise it as an expected
// panic, and per target how many inputs ran and how many were not applicable
// here. With --require-all it fails when an entry is reached by no corpus, or
// when any corpus file fails. The only exemptions are entries that need a
// backend's device (the cuda-* entries need an available Cuda backend) on a
// machine where that backend cannot run; each is listed with the registry's
// reason ("cuda-error: exempt here (Cuda: not built with CUDA)"). On a machine
// with a Cuda device nothing is exempt: no input can make a CUDA call fail on
// demand, so there cuda-error is reached through the documented fault-injection
// switch (Note [Cuda fault injection]) on one from_data, and reported as such.
// Entries that no fuzz schema can express yet are raised directly through the public API and
// listed apart as "outside the fuzz schemas" (duplicate-node-id: the decoders give every leaf a
// fresh node id; backward-gradient-mismatch: an internal invariant no correct rule breaks), so the gap stays visible in every report instead of being exempted.
#include <algorithm>
#include <crossgrad/crossgrad.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if CROSSGRAD_WITH_REMOTE
#include <crossgrad/backends/remote_config.hpp>
#include <crossgrad/server/server.hpp>
#include <chrono>
#include <memory>
#endif

#include "harness/catalog.hpp"
#include "harness/target.hpp"

#if CROSSGRAD_WITH_CUDA
#include <crossgrad/backends/cuda_testing.hpp>
#endif

namespace fs = std::filesystem;
using namespace crossgrad;
using namespace crossgrad::fuzz;

namespace {

// The backend whose device an entry's trigger needs, or nothing. Only the cuda-* entries need
// hardware: a failing CUDA call needs a Cuda device (or, on a machine with one, the Cuda
// fault-injection switch).
std::optional<std::string_view> backend_needed(const std::string &entry) {
  if (entry.rfind("cuda-", 0) == 0) return "Cuda";
  return std::nullopt;
}

// Why `entry` cannot be reached here ("Cuda: no device"), or nothing when it can: keyed on the
// registry's availability, so a machine with a Cuda device exempts nothing.
std::optional<std::string> exempt_here(const std::string &entry) {
  const std::optional<std::string_view> needed = backend_needed(entry);
  if (!needed) return std::nullopt;
  for (const BackendInfo &b : registered_backends()) {
    if (b.name != *needed) continue;
    if (b.available) return std::nullopt;
    return std::string(b.name) + ": " + (b.unavailable_reason.empty() ? std::string("no device") : b.unavailable_reason);
  }
  return std::string(*needed) + ": not registered";
}

// Entries no input can raise on demand, raised here through a documented test switch where the
// hardware is present: the reach line, or nothing.
std::optional<std::string> reach_by_fault_injection([[maybe_unused]] const std::string &entry) {
#if CROSSGRAD_WITH_CUDA
  if (entry != "cuda-error" || exempt_here(entry)) return std::nullopt;
  namespace ct = backends::cuda_testing;
  ct::fail_nth_call(ct::kErrorMemoryAllocation, 1);
  std::optional<std::string> reached;
  try {
    (void)Dispatch::float_from_data(TensorData::from_f32({1.0f, 2.0f}, {2}),
                                    DispatchDevice::of<backends::Cuda>(Device::cuda(0)));
  } catch (const Panic &p) {
    if (panic_id_name(p.id()) == entry && !check_catalogued(p)) reached = "fault injection here (" + p.message() + ")";
  }
  ct::disarm();
  return reached;
#else
  return std::nullopt;
#endif
}

// Entries outside every fuzz schema, raised directly through the public API: the reach line, or
// nothing when the direct trigger did not give the entry with a catalogued message. (The argument
// panics of the registry's structured ops are reached by op_args_fuzzer's corpus.)
std::optional<std::string> reach_remote_faults(const std::string &entry);

// An internal invariant: no input makes a correct engine's rule return a misfit gradient, so a
// hand-built node (Node is public) with a rule giving a [4] leaf a [2] gradient raises it.
std::optional<std::string> reach_backward_gradient_mismatch(const std::string &entry) {
  using B = backends::Flex;
  AutodiffTensor<B> leaf = Autodiff<B>::from_inner(B::from_data(TensorData::from_f32({1, 2, 3, 4}, {4}), B::default_device()));
  auto node = std::make_shared<Node>();
  node->id = next_node_id();
  node->parents.push_back(leaf.node);
  node->op = "hand_built";
  node->backward = [](const AnyTensor &) {
    return std::vector<AnyTensor>{AnyTensor{B::from_data(TensorData::from_f32({1, 2}, {2}), B::default_device())}};
  };
  B::Tensor value = B::from_data(TensorData::from_f32({1, 2, 3, 4}, {4}), B::default_device());
  node->meta = node_meta_of<B>(value);
  const DispatchTensor root{DispatchTensorKind::Autodiff(DispatchTensorKind{BackendTensor<B>::Autodiff(AutodiffTensor<B>{std::move(value), std::move(node)})}),
                            CheckpointingStrategy::Disabled};
  try {
    (void)Dispatch::backward(root);
  } catch (const Panic &p) {
    if (panic_id_name(p.id()) == entry && !check_catalogued(p)) return "raised directly, outside the fuzz schemas (an internal invariant: no rule of the engine breaks it)";
  }
  return std::nullopt;
}

std::optional<std::string> reach_outside_schemas(const std::string &entry) {
  if (entry.rfind("remote-", 0) == 0) return reach_remote_faults(entry);
  if (entry == "backward-gradient-mismatch") return reach_backward_gradient_mismatch(entry);
  if (entry != "duplicate-node-id") return std::nullopt;
  // Two distinct Flex leaves given one id with the public Autodiff<B>::leaf_with_id.
  using B = backends::Flex;
  const NodeId id = next_node_id();
  const auto leaf = [&](float v) {
    auto t = Autodiff<B>::leaf_with_id(B::from_data(TensorData::from_f32({v}, {1}), B::default_device()), id);
    return DispatchTensor{DispatchTensorKind::Autodiff(DispatchTensorKind{BackendTensor<B>::Autodiff(std::move(t))}),
                          CheckpointingStrategy::Disabled};
  };
  try {
    (void)Dispatch::backward(Dispatch::float_mul(leaf(1.0f), leaf(2.0f)));
  } catch (const Panic &p) {
    if (panic_id_name(p.id()) == entry && !check_catalogued(p)) return "raised directly, outside the fuzz schemas (node ids are not decoded)";
  }
  return std::nullopt;
}

// The Remote faults (a server refusing the token, over a limit, restarted, gone) are not inputs of
// any fuzz schema: each is raised here against an in-process crossgrad server, the way
// tests/remote/client's RemoteFaults.* raise them, and the client's configuration is restored.
std::optional<std::string> reach_remote_faults([[maybe_unused]] const std::string &entry) {
#if CROSSGRAD_WITH_REMOTE
  const std::vector<remote::Endpoint> saved = remote::endpoints();
  const std::chrono::milliseconds saved_deadline = remote::deadline();
  server::ServerOptions options;
  options.token = "catalog-report";
  options.max_tensors = 1;  // a second tensor in one session is over the limit: remote-rejected
  std::unique_ptr<server::Server> srv = server::Server::start(options);
  const std::string address = "127.0.0.1:" + std::to_string(srv->port());
  const TensorData data = TensorData::from_f32({1.0f}, {1});
  const auto make = [&] { return Dispatch::float_from_data(data, DispatchDevice::Remote(0)); };
  std::optional<std::string> reached;
  const auto attempt = [&](const auto &run) {
    try {
      run();
    } catch (const Panic &p) {
      if (panic_id_name(p.id()) == entry && !check_catalogued(p)) {
        reached = "raised directly against an in-process crossgrad server (server faults are outside the fuzz schemas)";
      }
    }
  };
  remote::configure({{address, options.token}}, std::chrono::milliseconds(5000));
  if (entry == "remote-refused") {
    remote::configure({{address, "not-the-token"}}, std::chrono::milliseconds(5000));
    attempt([&] { (void)make(); });
  } else if (entry == "remote-rejected") {
    attempt([&] {
      const DispatchTensor first = make();
      (void)make();
    });
  } else if (entry == "remote-session-lost") {
    const DispatchTensor old = make();
    remote::configure({{address, options.token}}, std::chrono::milliseconds(5000));  // a new session
    attempt([&] { (void)Dispatch::float_into_data(old); });
  } else if (entry == "remote-unavailable") {
    srv->shutdown();
    remote::configure({{address, options.token}}, std::chrono::milliseconds(300));
    attempt([&] { (void)make(); });
  }
  remote::configure(saved, saved_deadline);
  return reached;
#else
  return std::nullopt;
#endif
}

}  // namespace

int main(int argc, char **argv) {
  bool require_all = false;
  fs::path root;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--require-all")
      require_all = true;
    else
      root = a;
  }
  if (root.empty()) {
    std::fprintf(stderr, "usage: fuzz_catalog_report [--require-all] CORPUS_ROOT\n");
    return 2;
  }
  std::map<PanicId, std::map<std::string, int>> reach;
  int failures = 0;
  std::vector<std::string> tallies;
  for (const Target &t : all_targets()) {
    const fs::path dir = root / std::string(t.name);
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto &e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    Tally tally;
    for (const fs::path &f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const Outcome out = run_target(t, bytes);
      tally.add(out);
      if (out.failure) {
        ++failures;
        std::printf("FAILING INPUT %s: %s\n", f.string().c_str(), out.failure->c_str());
      }
      for (PanicId id : out.panics) ++reach[id][std::string(t.name)];
    }
    tallies.push_back(std::string(t.name) + ": " + tally.summary());
  }
  int missing = 0;
  std::vector<std::string> exempt_lines, outside_lines;
  std::printf("%-30s %s\n", "catalog entry", "reached by (files)");
  for (PanicId id : all_panic_ids()) {
    const std::string name(panic_id_name(id));
    std::string by;
    for (const auto &[target, n] : reach[id]) by += (by.empty() ? "" : ", ") + target + " (" + std::to_string(n) + ")";
    if (by.empty()) {
      if (const std::optional<std::string> injected = reach_by_fault_injection(name)) by = "-- " + *injected;
    }
    if (by.empty()) {
      if (const std::optional<std::string> direct = reach_outside_schemas(name)) {
        by = "-- " + *direct;
        outside_lines.push_back(name + ": " + *direct);
      }
    }
    const std::optional<std::string> exempt = exempt_here(name);
    if (exempt) exempt_lines.push_back(name + ": exempt here (" + *exempt + ")");
    if (by.empty()) {
      by = exempt ? "-- exempt here (" + *exempt + ")" : "-- NOT REACHED";
      if (!exempt) ++missing;
    }
    std::printf("%-30s %s\n", name.c_str(), by.c_str());
  }
  for (const std::string &line : tallies) std::printf("%s\n", line.c_str());
  std::printf("exempt here: %s\n", exempt_lines.empty() ? "none" : "");
  for (const std::string &line : exempt_lines) std::printf("  %s\n", line.c_str());
  std::printf("outside the fuzz schemas: %s\n", outside_lines.empty() ? "none" : "");
  for (const std::string &line : outside_lines) std::printf("  %s\n", line.c_str());
  std::printf("%zu entries, %d not reached, %zu exempt here, %zu outside the fuzz schemas, %d failing inputs\n",
              all_panic_ids().size(), missing, exempt_lines.size(), outside_lines.size(), failures);
  if (failures) return 1;
  return require_all && missing ? 1 : 0;
}

// op_args_vs_torch: op_args_fuzzer inputs judged by PyTorch.
//
// Note [Fuzzing against PyTorch]
// The libFuzzer builds are clang's, and LibTorch 1.13's headers do not compile with clang 16 in
// C++20, so no libFuzzer binary can hold ATen. The fuzzer therefore searches and PyTorch judges
// afterwards: this GCC-built program replays op_args_fuzzer inputs (the stored corpus in every
// test run, ctest corpus.op_args_vs_torch; a campaign's grown corpus through `scripts/fuzz
// --torch`) and judges each call with the same verdict as property.torch_differential
// (oracle/torch: ATen for the value, PyTorch's autograd for the gradients, documented differences
// as the only excuse). Each input is the op_args call it decodes to (harness/op_args_call.hpp), on
// its own backend when that is one the differential judges (NdArray, Flex, Cuda) and available
// here; inputs on Remote or LibTorch, on a device this machine lacks, or invalid for the oracle's
// reference are counted, never remapped. Ops with a backward rule run tracked, so their gradients
// are judged too; the cotangent and whether ATen gets non-contiguous operands come from the
// input's bytes, so a verdict is the same on every machine.
//   op_args_vs_torch [-v] FILE_OR_DIR...
// Exit 0 when every judged input agrees, 1 on the first disagreement (printed with its file).
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/spec.hpp>
#include <crossgrad/oracle/torch_judge.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "decode/op_args.hpp"
#include "harness/io.hpp"
#include "harness/op_args_call.hpp"
#include "harness/target.hpp"

namespace fs = std::filesystem;
using namespace crossgrad;
namespace og = crossgrad::oracle;
namespace oa = crossgrad::fuzz::op_args;

namespace {

std::uint64_t fnv1a(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

bool judged_backend(const og::BackendRef& b) { return b.name == "NdArray" || b.name == "Flex" || b.name == "Cuda"; }

std::vector<double> values_of(OpKind kind, const DispatchTensor& t) {
  switch (kind) {
    case OpKind::Float: return Dispatch::float_into_data(t).to_f64();
    case OpKind::Int: {
      std::vector<double> out;
      for (std::int64_t v : Dispatch::int_into_data(t).to_i64()) out.push_back(static_cast<double>(v));
      return out;
    }
    case OpKind::Bool: {
      std::vector<double> out;
      for (bool v : Dispatch::bool_into_data(t).to_bool()) out.push_back(v ? 1 : 0);
      return out;
    }
  }
  return {};
}

// The op on the case's device, then sum(result * cotangent) backward when there is a cotangent.
og::EngineAnswer run_engine(const oa::OpArgsCase& c, const OpInfo& op, const og::HostArray* cotangent) {
  const DispatchDevice dev = og::dispatch_device(c.backend, og::all_backends().at(c.backend).default_device, c.tracked);
  const oa::Call in = oa::build(c, op, dev);
  const DispatchTensor y = oa::dispatch(op.id, in);
  og::EngineAnswer r;
  r.value = values_of(op.result, y);
  r.gradients.resize(in.reference_operands.size());
  if (!cotangent) return r;
  const DispatchTensor ct = oa::engine_tensor(*cotangent, dev);
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, ct)));
  // The float operands, in reference order: in.tensors holds them in that order, the index
  // tensor or mask (reference operand in.index_operand: 1, attention's mask 3) aside.
  std::size_t t = 0;
  for (std::size_t k = 0; k < in.reference_operands.size(); ++k) {
    const og::HostArray& h = in.reference_operands[k];
    const bool is_index = in.indices && k == in.index_operand;
    if (is_index) continue;
    const DispatchTensor& operand = in.tensors.at(t++);
    if (h.dtype != DType::F32 && h.dtype != DType::F64) continue;
    const auto g = Dispatch::grad(operand, grads);
    r.gradients[k] = og::HostArray{h.shape, h.dtype,
                                   g ? Dispatch::float_into_data(*g).to_f64() : std::vector<double>(og::element_count(h.shape), 0.0)};
  }
  return r;
}

std::vector<fs::path> inputs(int argc, char** argv, bool& verbose) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-v" || arg == "--verbose") {
      verbose = true;
      continue;
    }
    const fs::path p(arg);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "op_args_vs_torch: no such file or directory: %s\n", arg.c_str());
      std::exit(2);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false;
  const std::vector<fs::path> files = inputs(argc, argv, verbose);
  std::map<std::string, og::TorchTally> tallies;
  std::map<std::string, std::size_t> not_judged;  // reason -> inputs
  std::size_t judged = 0;
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto decoded = fuzz::decode_with<oa::OpArgsCase>(std::span<const std::uint8_t>(bytes),
                                                          [](auto& io, auto& x) { oa::schema(io, x); });
    oa::OpArgsCase c = decoded;
    if (!oa::is_op(c)) {
      ++not_judged["op code past the registry's last op"];
      continue;
    }
    const og::BackendRef& backend = og::all_backends().at(c.backend);
    if (!judged_backend(backend)) {
      ++not_judged["on " + backend.name + " (PyTorch judges NdArray, Flex and Cuda)"];
      continue;
    }
    if (!backend.available) {
      ++not_judged[backend.name + ": not available here"];
      continue;
    }
    const OpInfo& op = oa::op_of(c);
    c.tracked = c.tracked || op.rule == OpRule::Backward;
    const oa::ReferenceCall call = oa::reference_call(c);
    const std::uint64_t h = fnv1a(bytes);
    if (verbose) std::printf("judging %s: %s on %s\n", f.c_str(), std::string(op.name).c_str(), backend.name.c_str());
    std::optional<std::string> failed;
    try {
      failed = og::judge_against_torch(op.id, call.operands, call.args, (h & 1) != 0, h >> 1,
                                       [&](const og::HostArray* cot) { return run_engine(c, op, cot); },
                                       tallies[std::string(op.name)]);
    } catch (const Panic& p) {
      failed = "the engine panicked on inputs the reference accepts: " + std::string(panic_id_name(p.id())) + ": " + p.message();
    }
    ++judged;
    if (failed) {
      std::fprintf(stderr, "op_args_vs_torch: %s disagrees with PyTorch\n  %s on %s%s\n  %s\n", f.c_str(),
                   std::string(op.name).c_str(), backend.name.c_str(), (h & 1) ? " (ATen operands non-contiguous)" : "",
                   failed->c_str());
      std::fprintf(stderr, "  the scenario: build/default/fuzz/fuzz_repro --target op_args_fuzzer %s\n", f.c_str());
      return 1;
    }
  }
  std::printf("%s", og::render_torch_tallies(tallies, "op_args_vs_torch: ").c_str());
  std::string skipped;
  std::size_t skipped_count = 0;
  for (const auto& [why, n] : not_judged) {
    skipped += (skipped.empty() ? "" : ", ") + std::to_string(n) + " " + why;
    skipped_count += n;
  }
  std::printf("op_args_vs_torch: %zu inputs, %zu judged against PyTorch, %zu not judged%s%s; no disagreement\n", files.size(),
              judged, skipped_count, skipped.empty() ? "" : ": ", skipped.c_str());
  return 0;
}

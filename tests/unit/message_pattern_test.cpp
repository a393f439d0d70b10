// The oracle's MessagePattern against std::regex (ECMAScript, libstdc++), the matcher it replaces
// on the per-input paths (fuzz/harness/catalog.cpp, oracle checks.cpp and op_probe.cpp): for every
// catalog entry and every pattern the oracle writes itself, on messages built from the contract's
// grammar (the catalog template with typed placeholder values) and on near misses made from them
// (each character dropped, each of a set of characters inserted before and written over each
// position), both must give the same verdict and the same groups, for a full match (regex_match)
// and for a search inside a panic report (regex_search). std::regex is used here only.
#include <crossgrad/core/panic.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/message_pattern.hpp>
#include <crossgrad/oracle/render.hpp>

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace crossgrad::oracle {
namespace {

// Placeholder values from the contract's grammar (CONTRACT sections 3 and 4).
const std::vector<std::string> kKinds = {
    "Flex(Float(FlexTensor { shape: [2], dtype: F32, device: Cpu }))",
    "NdArray(Float(NdArrayTensor { shape: [], dtype: F64, device: Cpu }))",
    "Flex(Autodiff(AutodiffTensor { primitive: FlexTensor { shape: [2, 3], dtype: F32, device: Cpu }, node: NodeId(7) }))",
    "Autodiff(Remote(Autodiff(AutodiffTensor { primitive: RemoteTensor { shape: [1], dtype: F32, device: Remote(0) }, "
    "node: NodeId(12) })))",
    "Cuda(Int(CudaTensor { shape: [0, 4], dtype: I64, device: Cuda(0) }))",
    "Autodiff(Autodiff(NdArray(Quantized(NdArrayTensor { shape: [3], dtype: QInt8, device: Cpu }))))",
};
const std::vector<std::string> kShapes = {"[2, 3]", "[]", "[0]", "[4, 1, 18446744073709551615]"};
const std::vector<std::string> kDTypes = {"F32", "F64", "I64", "Bool", "QInt8", "BF16"};
const std::vector<std::string> kNumbers = {"3", "0", "1024", "18446744073709551615"};

const std::map<std::string, std::vector<std::string>> kByName = {
    {"t", kKinds}, {"g", kKinds}, {"kind", kKinds},
    {"shape", kShapes}, {"from", kShapes}, {"to", kShapes}, {"axes", kShapes}, {"lhs", kShapes}, {"rhs", kShapes},
    {"dtype", kDTypes},
    {"actual", kNumbers}, {"expected", kNumbers}, {"bytes", kNumbers}, {"value", kNumbers}, {"dim", kNumbers},
    {"rank", kNumbers}, {"start", kNumbers}, {"end", kNumbers}, {"size", kNumbers}, {"id", kNumbers},
    {"session", kNumbers}, {"k", kNumbers},
    {"distribution", {"Default", "Bernoulli(1.5)", "Uniform(1, 0)", "Normal(0, -1)", "Uniform(0, nan)"}},
    {"index", {"2", "-1", "0", "9223372036854775807"}},
    {"limit", {"17179869184", "what this machine could allocate"}},
    {"got", {"int", "bool", "quantized", "autodiff", "float"}},
    {"what", {"float_from_data", "NdArray's from_data", "float_cast"}},
    {"op", {"float_add", "float_matmul", "float_sum_dim", "to_f32", "float_select_assign"}},
    {"device", {"Cuda(0)", "Remote(3)", "Cpu", "Autodiff(Flex(Cpu))"}},
    {"backend", {"Cuda", "Flex", "Remote"}},
    {"reason", {"runs on the CPU only", "no server configured (set CROSSGRAD_REMOTE or CROSSGRAD_REMOTE_FILE)",
                "2 servers are configured", "no CUDA device (cudaErrorNoDevice)"}},
    {"tensor", {"a plain", "an autodiff", "a tracked"}},
    {"call", {"cudaMalloc", "float_add", "OpenSession"}},
    {"error", {"out of memory (cudaErrorMemoryAllocation)", "an illegal memory access was encountered (cudaErrorIllegalAddress)"}},
    {"min", {"2", "NaN", "-0.5", "inf"}},
    {"max", {"1", "3.25", "NaN"}},
    {"endpoint", {"127.0.0.1:50051", "localhost:1", "[::1]:7000"}},
    {"status", {"UNAVAILABLE", "DEADLINE_EXCEEDED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "CANCELLED", "UNKNOWN"}},
    {"detail", {"", "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: Connection refused",
                "too many tensors (max 1)", "Deadline Exceeded"}},
};
// Where one name means different things in different templates (entry/name).
const std::map<std::string, std::vector<std::string>> kByEntry = {
    {"dtype-mismatch/lhs", kDTypes},
    {"deform-offset-groups/channels_in", kNumbers},
    {"deform-offset-groups/groups", kNumbers},
    {"deform-operand-shape/operand", {"an offset", "a mask"}},
    {"deform-operand-shape/expected", kShapes},
    {"deform-operand-shape/got", kShapes},
    {"ctc-shape/log_probs", kShapes},
    {"ctc-shape/targets", kShapes},
    {"ctc-shape/input_lengths", kShapes},
    {"ctc-shape/target_lengths", kShapes},
    {"ctc-blank/classes", kNumbers},
    {"ctc-blank/blank", kNumbers},
    {"ctc-length/lengths", {"input_lengths", "target_lengths"}},
    {"ctc-length/sample", kNumbers},
    {"ctc-length/max", kNumbers},
    {"ctc-length/value", {"5", "-1", "0", "-9223372036854775808"}},
    {"ctc-target-label/classes", kNumbers},
    {"ctc-target-label/blank", kNumbers},
    {"ctc-target-label/label", {"0", "-2", "7", "9223372036854775807"}},
    {"ctc-target-label/sample", kNumbers},
    {"ctc-target-label/position", kNumbers},
    {"dtype-mismatch/rhs", kDTypes},
    {"op-backend-mismatch/lhs", kKinds},
    {"op-backend-mismatch/rhs", kKinds},
    {"data-kind-mismatch/expected", {"float", "int", "bool", "Float"}},
    {"op-kind-mismatch/expected", {"Float", "Int", "Bool", "Quantized", "float"}},
    {"assign-shape-mismatch/expected", kShapes},
    {"assign-shape-mismatch/got", kShapes},
    {"gather-index-shape/expected", kShapes},
    {"gather-index-shape/got", kShapes},
    {"gather-nd-index-shape/got", kShapes},
    {"module-input-rank/operand", {"input", "gradient", "weight", "index", "bias", "query", "key", "value", "mean", "variance"}},
    {"module-input-rank/layout",
     {"[batch, channels, height, width]", "[n_embeddings, d_model]", "[batch, seq_length]", "[d_input, d_output]", "[d_output]",
      "[batch, channels_in, height, width]", "[channels_out, channels_per_group, kernel_height, kernel_width]", "[channels_out]",
      "[channels_in, channels_out_per_group, kernel_height, kernel_width]", "[batch, channels_in, length]",
      "[channels_out, channels_per_group, kernel_size]", "[batch, channels_out, length]",
      "[channels_in, channels_out_per_group, kernel_size]", "[batch, channels, length]", "[batch, block_cells, blocks]",
      "[batch, channels, depth, height, width]", "[d_model]", "[batch, heads, seq_q, head_dim]", "[batch, heads, seq_k, head_dim]",
      "[batch, heads, seq_k, value_dim]", "[channels]", "[batch, channels_in, depth, height, width]",
      "[channels_out, channels_per_group, kernel_depth, kernel_height, kernel_width]", "[batch, channels_out, depth, height, width]",
      "[channels_in, channels_out_per_group, kernel_depth, kernel_height, kernel_width]"}},
    {"module-input-scalar/operand", {"input", "gradient"}},
    {"module-input-scalar/layout", {"[..., d_input]", "[..., d_output]", "[..., d_model]"}},
    {"module-input-scalar/shape", {"[]"}},
    {"module-dim-mismatch/lhs", {"input", "gradient", "bias", "key", "value", "weight", "mean", "variance"}},
    {"module-dim-mismatch/rhs", {"weight", "query", "key", "input"}},
    {"module-input-min-rank/rank", {"2"}},
    {"module-input-min-rank/layout", {"[batch, channels, ...]"}},
    {"module-input-min-rank/shape", kShapes},
    {"module-dim-mismatch/lhs_shape", kShapes},
    {"module-dim-mismatch/rhs_shape", kShapes},
    {"module-dim-mismatch/lhs_dim", {"0", "1", "2"}},
    {"conv-groups/groups", {"0", "2", "3"}},
    {"conv-groups/channels_in", {"0", "2", "256"}},
    {"conv-groups/channels_out", {"3", "64"}},
    {"conv-channels/channels_in", {"1", "6"}},
    {"conv-channels/groups", {"1", "3"}},
    {"conv-channels/expected", {"1", "2"}},
    {"conv-channels/weight", kShapes},
    {"conv-transpose-weight/channels_in", {"0", "3"}},
    {"conv-transpose-weight/weight", kShapes},
    {"conv-bias-channels/channels_out", {"0", "2", "64"}},
    {"conv-bias-channels/per_group", {"0", "1", "32"}},
    {"conv-bias-channels/groups", {"1", "2"}},
    {"conv-bias-channels/bias", kShapes},
    {"conv-padding-out/padding_out", kShapes},
    {"conv-padding-out/stride", kShapes},
    {"conv-padding-out/dilation", kShapes},
    {"conv-transpose-size/input", kShapes},
    {"conv-transpose-size/size", {"[-1, 1]", "[0, 3]", "[2^127 or more, 36893488147419103230]", "[18446744073709551616, -4]"}},
    {"module-dim-mismatch/rhs_dim", {"0", "1"}},
    {"module-dim-mismatch/lhs_size", {"0", "3", "17"}},
    {"module-dim-mismatch/rhs_size", {"0", "4", "512"}},
    {"module-option-zero/option", {"kernel_size", "stride", "dilation", "output_size"}},
    {"pool-indices-shape/expected", kShapes},
    {"pool-empty-window/kernel", kShapes},
    {"pool-empty-window/dilation", kShapes},
    {"pool-empty-window/padding", kShapes},
    {"pool-indices-shape/got", kShapes},
    {"module-option-zero/value", kShapes},
    {"pool-padding/padding", kShapes},
    {"pool-padding/kernel", kShapes},
    {"pool-kernel-too-large/padded", kShapes},
    {"pool-kernel-too-large/kernel", kShapes},
    {"pool-grad-shape/expected", kShapes},
    {"pool-grad-shape/got", kShapes},
    {"fold-channels/cells", {"1", "4", "9"}},
    {"fold-channels/kernel", kShapes},
    {"fold-channels/shape", kShapes},
    {"fold-blocks/rows", {"1", "3", "2^64 or more"}},
    {"fold-blocks/cols", {"1", "2", "2^64 or more"}},
    {"fold-blocks/blocks", {"6", "9", "2^64 or more"}},
    {"fold-blocks/shape", kShapes},
    {"interpolate-mode/mode", {"4", "255"}},
    {"attention-operand-shape/operand", {"mask", "bias"}},
    {"attention-operand-shape/expected", kShapes},
    {"attention-operand-shape/got", kShapes},
    {"attention-softcap/softcap", {"0", "-1", "-0", "nan", "-inf"}},
    {"fft-size/dim", {"0", "1", "2"}},
    {"fft-size/size", {"0", "3", "6", "18446744073709551615"}},
    {"fft-spectrum-shape/real", kShapes},
    {"fft-spectrum-shape/imaginary", kShapes},
    {"not-differentiable/op",
     {"avg_pool2d_backward", "adaptive_avg_pool2d_backward", "max_pool2d_with_indices_backward", "embedding_backward",
      "linear_x_backward", "linear_weight_backward", "linear_bias_backward", "conv2d_x_backward", "conv2d_weight_backward",
      "conv2d_bias_backward"}},
    {"mask-select-shape/expected", kShapes},
    {"mask-select-shape/got", kShapes},
    {"scatter-update-gradient/update", {"Mul", "Min", "Max"}},
    {"invalid-bool-value/value", {"7", "255", "2"}},
    {"quantize-non-finite/value", {"inf", "NaN", "-inf"}},
    {"backward-gradient-mismatch/input", {"0", "1", "12"}},
    {"backward-gradient-mismatch/got", {"Flex[[2], F32, Cpu]", "Cuda[[], F64, Cuda(1)]", "NdArray[[0, 3], F32, Cpu]"}},
    {"backward-gradient-mismatch/expected", {"Flex[[4], F32, Cpu]", "NdArray[[2, 3], F64, Cpu]", "Remote[[1], F32, Remote(0)]"}},
    {"quantize-scale-overflow/value", {"1e+41", "4.3215858023093167e+40", "1.7976931348623157e+308", "1e41", "5.e+41"}},
};

// Characters written into and over messages to make near misses: letters, a digit, the pattern
// language's punctuation, a space, a line break (`.` refuses it) and a byte above ASCII.
const std::string kMutationChars = std::string("aZ0. ,()[]\n") + '\x80';

// The template with its placeholders filled: message j takes value (j + i) of placeholder i's list.
std::vector<std::string> messages_of(const std::string& entry, std::string_view tmpl, std::size_t count) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < count; ++j) {
    std::string message;
    std::size_t placeholder = 0;
    for (std::size_t i = 0; i < tmpl.size(); ++i) {
      const std::size_t close = tmpl.find('}', i);
      if (tmpl[i] != '{' || close == std::string_view::npos) {
        message += tmpl[i];
        continue;
      }
      std::string name(tmpl.substr(i + 1, close - i - 1));
      if (const std::size_t colon = name.find(':'); colon != std::string::npos) name.resize(colon);  // {t:?}
      const auto by_entry = kByEntry.find(entry + "/" + name);
      const auto by_name = kByName.find(name);
      if (by_entry == kByEntry.end() && by_name == kByName.end()) {
        ADD_FAILURE() << entry << ": no values for placeholder {" << name << "}: add them to this test";
        return out;
      }
      const auto& values = by_entry != kByEntry.end() ? by_entry->second : by_name->second;
      message += values[(j + placeholder++) % values.size()];
      i = close;
    }
    out.push_back(message);
  }
  return out;
}

std::vector<std::string> near_misses(const std::string& message) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i <= message.size(); ++i) {
    if (i < message.size()) out.push_back(message.substr(0, i) + message.substr(i + 1));
    for (char c : kMutationChars) {
      out.push_back(message.substr(0, i) + c + message.substr(i));
      if (i < message.size() && message[i] != c) {
        std::string changed = message;
        changed[i] = c;
        out.push_back(changed);
      }
    }
  }
  return out;
}

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) >= 0x80) out += "\\x" + std::to_string(static_cast<unsigned char>(c));
    else out += c;
  }
  return out;
}

// How std::regex and MessagePattern differ on `text`; nullopt when they agree (verdict and groups).
std::optional<std::string> difference(const MessagePattern& mine, const std::regex& re, const std::string& text, bool search,
                                      bool* matched) {
  std::smatch want;
  const bool want_ok = search ? std::regex_search(text, want, re) : std::regex_match(text, want, re);
  MessagePattern::Groups got;
  const bool got_ok = search ? mine.search(text, got) : mine.full_match(text, got);
  if (matched) *matched = want_ok;
  const std::string what = std::string(search ? "search" : "full match") + " of \"" + printable(text) + "\": ";
  if (want_ok != got_ok) return what + "std::regex says " + (want_ok ? "match" : "no match") + ", MessagePattern the opposite";
  if (!want_ok) return std::nullopt;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool same = want[i].matched == got[i].matched() &&
                      (!want[i].matched || (static_cast<std::size_t>(want.position(i)) == got[i].begin &&
                                            static_cast<std::size_t>(want.length(i)) == got[i].end - got[i].begin));
    if (!same) {
      return what + "group " + std::to_string(i) + " is \"" + printable(want[i].str()) + "\" for std::regex, \"" +
             printable(std::string(got[i].in(text))) + "\" for MessagePattern";
    }
  }
  return std::nullopt;
}

struct Tally {
  std::size_t matched = 0, refused = 0, compared = 0;
};

// Every message and its near misses, full match and (inside a report) search; at most a few
// differences reported per pattern.
Tally compare_on(const std::string& pattern, const std::vector<std::string>& messages, std::size_t mutated) {
  SCOPED_TRACE("pattern /" + pattern + "/");
  const MessagePattern mine(pattern);
  const std::regex re(pattern);
  EXPECT_EQ(mine.group_count(), re.mark_count());
  Tally tally;
  std::size_t reported = 0;
  const auto check = [&](const std::string& text, bool count_verdict) {
    for (bool search : {false, true}) {
      const std::string subject =
          search ? "thread 'main' panicked at src/lib.rs:1:1:\n" + text + "\nnote: run with RUST_BACKTRACE=1" : text;
      bool matched = false;
      ++tally.compared;
      if (auto diff = difference(mine, re, subject, search, &matched)) {
        if (reported++ < 5) ADD_FAILURE() << *diff;
      }
      if (count_verdict && !search) ++(matched ? tally.matched : tally.refused);
    }
  };
  std::size_t mutated_so_far = 0;
  for (const std::string& message : messages) {
    check(message, true);
    if (mutated_so_far >= mutated || !std::regex_match(message, re)) continue;
    ++mutated_so_far;
    for (const std::string& miss : near_misses(message)) check(miss, true);
  }
  return tally;
}

TEST(MessagePattern, AgreesWithStdRegexOnEveryCatalogEntry) {
  for (PanicId id : all_panic_ids()) {
    const std::string name(panic_id_name(id));
    SCOPED_TRACE(name);
    const std::string pattern(panic_pattern(id));
    ASSERT_NO_THROW(MessagePattern{pattern}) << "a catalog pattern outside MessagePattern's subset: extend it (and this test)";
    const Tally t = compare_on(pattern, messages_of(name, panic_template(id), 12), 2);
    // Not vacuous: messages built from the template match, and near misses are refused.
    EXPECT_GE(t.matched, 2u) << "fewer than two built messages match; the placeholder values need fixing";
    EXPECT_GT(t.refused, 0u);
  }
}

TEST(MessagePattern, AgreesWithStdRegexOnTheOraclesOwnPatterns) {
  // checks.cpp's cross-backend pattern (search and groups matter there).
  std::vector<std::string> cross;
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    cross.push_back("The provided tensors are not on the same backend. Got backends " + kKinds[i] + " and " +
                    kKinds[(i + 1) % kKinds.size()] + ".");
  }
  cross.push_back("The provided tensors are not on the same backend. Got backends a and b. and c and d.");
  Tally t = compare_on(std::string(text::cross_backend_pattern), cross, 3);
  EXPECT_GE(t.matched, cross.size() - 1);
  EXPECT_GT(t.refused, 0u);

  // checks.cpp's debug-rendering grammar.
  t = compare_on(kind_grammar_regex(), kKinds, 3);
  EXPECT_GE(t.matched, kKinds.size());
  EXPECT_GT(t.refused, 0u);

  // op_probe.cpp's matmul broadcast pattern: the batch shapes or the whole shapes, escaped.
  const std::string matmul = R"(float_matmul cannot broadcast shapes (\[2\]|\[2, 3, 4\]) and (\[5\]|\[5, 4, 1\])\.)";
  t = compare_on(matmul,
                 {"float_matmul cannot broadcast shapes [2] and [5].", "float_matmul cannot broadcast shapes [2, 3, 4] and [5, 4, 1].",
                  "float_matmul cannot broadcast shapes [2] and [5, 4, 1].", "float_matmul cannot broadcast shapes [2, 3, 4] and [5]."},
                 2);
  EXPECT_GE(t.matched, 4u);
  EXPECT_GT(t.refused, 0u);
}

// The constructs at the edges of the subset, each against std::regex on a few texts.
TEST(MessagePattern, AgreesWithStdRegexOnTheSubsetsConstructs) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"(a|ab)(c|bcd)(d*)", {"abcd", "abcdd", "acd", "ab"}},
      {"(.+?) and (.+?)\\.", {"x and y.", "x and y and z.", "x and .", " and y.", "x and y.z."}},
      {"(.+) and (.+)\\.", {"x and y and z.", "x\rand y."}},
      {"(.*)-(.*)", {"-", "a-b-c", "a\n-b"}},
      {"(?:ab)*c", {"c", "ababc", "abac"}},
      {"(?:a|)*b", {"b", "aab"}},
      {"(?:a*)*b", {"b", "aaab", "aaa"}},
      {"x(?:y?)+?z", {"xz", "xyz", "xyyz"}},
      {"[^a-c\\]]+", {"def", "d]f", "dbf", "\n\x80"}},
      {"[\\d\\s\\-]?x", {"x", "1x", " x", "-x"}},
      {"\\D\\W\\S", {"a b", "ab c", "1 b", "a\x80" "c"}},
      {"[0-9](?:\\.[0-9]+)?e\\+[0-9]+", {"1e+41", "4.5e+3", "4.e+3", "4.5e3"}},
      {"\\w+ \\(\\d+\\)", {"abc_9 (42)", "abc (x)", "é (1)"}},
      {"a??b", {"ab", "b", "aab"}},
  };
  for (const auto& [pattern, texts] : cases) {
    SCOPED_TRACE("pattern /" + pattern + "/");
    const MessagePattern mine(pattern);
    const std::regex re(pattern);
    for (const std::string& text : texts) {
      for (bool search : {false, true}) {
        if (auto diff = difference(mine, re, text, search, nullptr)) ADD_FAILURE() << *diff;
      }
    }
  }
}

// Outside the subset: refused when compiled, not matched with another meaning.
TEST(MessagePattern, RefusesPatternsOutsideItsSubset) {
  for (const char* pattern : {"^abc", "abc$", "a{2}", "(a)*", "(?:(a))+", "(a)\\1", "(?=a)", "(?!a)", "a\\b", "\\n",
                              "[a-]", "[]", "[z-a]", "[a", "(a", "a)", "*a", "a**", "a+*", "\\", "[[:alpha:]]",
                              "(((((((((((((((((a))))))))))))))))", "a]", "a}"}) {
    EXPECT_THROW(MessagePattern{pattern}, std::invalid_argument) << pattern;
  }
}

}  // namespace
}  // namespace crossgrad::oracle

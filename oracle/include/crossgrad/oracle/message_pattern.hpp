#pragma once
// MessagePattern: the small subset of ECMAScript regular expressions that the catalog's
// messagePattern entries (engine/panics.json), the oracle's own patterns (text::cross_backend_pattern,
// op_probe's matmul broadcast pattern, kind_grammar_regex) are written in, matched by a small
// backtracking matcher instead of std::regex (libstdc++'s executor allocated and backtracked on
// every per-input check: ~9 % of grad_replace_fuzzer's samples, docs/FUZZ_THROUGHPUT.md).
//
// Same answers as std::regex (ECMAScript, libstdc++, "C" locale) for every pattern of the subset:
// the same matches and the same capture groups, for regex_match (full_match) and regex_search
// (search, leftmost match). tests/unit/message_pattern_test.cpp checks that on every catalog entry
// and the oracle's patterns with matching messages and near misses.
//
// The subset (anything else is refused by the constructor with std::invalid_argument, so a pattern
// that would mean something else here cannot slip in silently):
//   literal characters; `\` + one of \^$.|?*+()[]{}/- (that character); `.` (any byte but \n, \r);
//   \d \D \w \W \s \S (ASCII classes, as the "C" locale classifies: \w = [A-Za-z0-9_],
//   \s = [ \t\n\v\f\r]); [...] and [^...] of characters, ranges a-z and those escapes;
//   groups ( ) and (?: ) with alternatives |; quantifiers * + ? and their lazy forms *? +? ??.
//   Not in it: anchors ^ $, {m,n}, backreferences, lookarounds, \b, and capturing groups inside a
//   quantified group (ECMAScript resets those on each repetition; no pattern here needs it).
//
// Matching never allocates; a compiled pattern is immutable and may be shared between threads.
#include <array>
#include <bitset>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace crossgrad::oracle {

class MessagePattern {
 public:
  static constexpr std::size_t kMaxGroups = 15;  // capturing groups; refused beyond
  static constexpr std::size_t npos = std::string_view::npos;

  // Where a group matched in the text; begin == npos when it took no part in the match.
  struct Group {
    std::size_t begin = npos;
    std::size_t end = npos;
    bool matched() const { return begin != npos; }
    std::string_view in(std::string_view text) const {
      return matched() ? text.substr(begin, end - begin) : std::string_view{};
    }
  };
  // [0]: the whole match; [i]: capturing group i (1-based, by opening parenthesis, as std::smatch).
  using Groups = std::array<Group, kMaxGroups + 1>;

  explicit MessagePattern(std::string_view source);
  ~MessagePattern();
  MessagePattern(MessagePattern&&) noexcept;
  MessagePattern& operator=(MessagePattern&&) noexcept;
  MessagePattern(const MessagePattern&) = delete;
  MessagePattern& operator=(const MessagePattern&) = delete;

  const std::string& source() const { return source_; }
  std::size_t group_count() const { return group_count_; }

  // std::regex_match: the whole text matches.
  bool full_match(std::string_view text) const;
  bool full_match(std::string_view text, Groups& groups) const;
  // std::regex_search: the leftmost match anywhere in the text (its groups as regex_search gives them).
  bool search(std::string_view text, Groups& groups) const;

  struct Node;  // the parsed pattern (message_pattern.cpp)

 private:
  std::string source_;
  std::size_t group_count_ = 0;
  std::unique_ptr<Node> root_;
};

}  // namespace crossgrad::oracle

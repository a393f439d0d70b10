#include <crossgrad/oracle/message_pattern.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace crossgrad::oracle {

using Set = std::bitset<256>;

// One term of the parsed pattern. A Literal is a run of plain characters matched as one
// (never quantified: a quantified character is a Chars node); Chars is one character of a set,
// repeated min..max times; Group is ( ) or (?: ) with its alternatives, repeated min..max times.
struct MessagePattern::Node {
  enum class Type { Literal, Chars, Group };
  Type type = Type::Chars;
  std::string literal;                          // Literal
  Set chars;                                    // Chars
  std::size_t capture = 0;                      // Group: 1-based capture index; 0 = (?: )
  bool holds_capture = false;                   // Group: a capturing group inside it
  std::vector<std::vector<Node>> alternatives;  // Group, tried in order (ECMAScript's priority)
  std::size_t min = 1, max = 1;                 // max == npos: unbounded
  bool greedy = true;
};

namespace {

using Node = MessagePattern::Node;
using Seq = std::vector<Node>;
constexpr std::size_t npos = MessagePattern::npos;

// The characters `\` may escape to stand for themselves.
constexpr std::string_view kEscapable = "\\^$.|?*+()[]{}/-";

unsigned char byte(char c) { return static_cast<unsigned char>(c); }

// \d \w \s and their complements, as std::regex_traits<char> classifies them in the "C" locale.
bool class_escape(char c, Set &out) {
  Set s;
  switch (c) {
    case 'd': case 'D':
      for (char x = '0'; x <= '9'; ++x) s.set(byte(x));
      break;
    case 'w': case 'W':
      for (char x = '0'; x <= '9'; ++x) s.set(byte(x));
      for (char x = 'a'; x <= 'z'; ++x) s.set(byte(x));
      for (char x = 'A'; x <= 'Z'; ++x) s.set(byte(x));
      s.set(byte('_'));
      break;
    case 's': case 'S':
      for (char x : std::string_view(" \t\n\v\f\r")) s.set(byte(x));
      break;
    default:
      return false;
  }
  out = (c == 'D' || c == 'W' || c == 'S') ? ~s : s;
  return true;
}

class Parser {
 public:
  explicit Parser(std::string_view source) : src_(source) {}

  Node parse() {
    Node root = disjunction(0);
    if (pos_ != src_.size()) refuse("a ')' without its '('");
    return root;
  }
  std::size_t groups() const { return groups_; }

 private:
  [[noreturn]] void refuse(std::string_view why) const {
    throw std::invalid_argument("MessagePattern: " + std::string(why) + " at offset " + std::to_string(pos_) +
                                " of /" + std::string(src_) + "/ (outside the supported subset)");
  }
  bool at(char c) const { return pos_ < src_.size() && src_[pos_] == c; }

  Node disjunction(std::size_t capture) {
    Node g;
    g.type = Node::Type::Group;
    g.capture = capture;
    g.alternatives.push_back(sequence());
    while (at('|')) {
      ++pos_;
      g.alternatives.push_back(sequence());
    }
    for (const Seq &alt : g.alternatives)
      for (const Node &n : alt) g.holds_capture = g.holds_capture || n.capture != 0 || n.holds_capture;
    return g;
  }

  Seq sequence() {
    Seq seq;
    while (pos_ < src_.size() && !at('|') && !at(')')) {
      Node n = term();
      // Adjacent plain characters become one Literal (compared in one go).
      if (n.type == Node::Type::Literal && !seq.empty() && seq.back().type == Node::Type::Literal) {
        seq.back().literal += n.literal;
      } else {
        seq.push_back(std::move(n));
      }
    }
    return seq;
  }

  Node term() {
    Node n = atom();
    if (!at('*') && !at('+') && !at('?')) return n;
    const char q = src_[pos_++];
    n.min = q == '+' ? 1 : 0;
    n.max = q == '?' ? 1 : npos;
    if (at('?')) {
      ++pos_;
      n.greedy = false;
    }
    if (at('*') || at('+') || at('?') || at('{')) refuse("a quantifier after a quantifier");
    if (n.type == Node::Type::Group && (n.capture != 0 || n.holds_capture)) refuse("a capturing group inside a quantified group");
    if (n.type == Node::Type::Literal) {  // a quantified character is one of a set of one
      const char c = n.literal[0];
      n.type = Node::Type::Chars;
      n.literal.clear();
      n.chars.set(byte(c));
    }
    return n;
  }

  Node atom() {
    Node n;
    const char c = src_[pos_];
    switch (c) {
      case '(': {
        ++pos_;
        std::size_t capture = 0;
        if (src_.substr(pos_, 2) == "?:") {
          pos_ += 2;
        } else if (at('?')) {
          refuse("a lookaround or named group");
        } else {
          if (groups_ == MessagePattern::kMaxGroups) refuse("too many capturing groups");
          capture = ++groups_;
        }
        n = disjunction(capture);
        if (!at(')')) refuse("a '(' without its ')'");
        ++pos_;
        return n;
      }
      case '[':
        return bracket();
      case '.':
        ++pos_;
        n.chars.set();
        n.chars.reset(byte('\n'));
        n.chars.reset(byte('\r'));
        return n;
      case '\\': {
        if (pos_ + 1 >= src_.size()) refuse("a trailing '\\'");
        const char e = src_[pos_ + 1];
        pos_ += 2;
        if (class_escape(e, n.chars)) return n;
        if (kEscapable.find(e) == std::string_view::npos) refuse("an escape other than \\d \\D \\w \\W \\s \\S or punctuation");
        n.type = Node::Type::Literal;
        n.literal = std::string(1, e);
        return n;
      }
      case '^': case '$': case '{': case '}': case ']': case '*': case '+': case '?':
        refuse(std::string("'") + c + "' where a character was expected");
      default:
        ++pos_;
        n.type = Node::Type::Literal;
        n.literal = std::string(1, c);
        return n;
    }
  }

  // One member of a [...] class: a character (returned) or a class escape (into `cls`, returns -1).
  int class_member(Set &cls) {
    if (pos_ >= src_.size()) refuse("a '[' without its ']'");
    const char c = src_[pos_];
    if (c == '[') refuse("'[' inside a class");
    if (c == '-') refuse("a '-' that is not between two characters of a range");
    if (c != '\\') {
      ++pos_;
      return byte(c);
    }
    if (pos_ + 1 >= src_.size()) refuse("a trailing '\\'");
    const char e = src_[pos_ + 1];
    pos_ += 2;
    if (class_escape(e, cls)) return -1;
    if (kEscapable.find(e) == std::string_view::npos) refuse("an escape other than \\d \\D \\w \\W \\s \\S or punctuation");
    return byte(e);
  }

  Node bracket() {
    ++pos_;  // '['
    Node n;
    const bool negate = at('^');
    if (negate) ++pos_;
    if (at(']')) refuse("an empty class");
    while (!at(']')) {
      Set cls;
      const int lo = class_member(cls);
      if (lo < 0) {
        n.chars |= cls;
        continue;
      }
      if (at('-') && pos_ + 1 < src_.size() && src_[pos_ + 1] != ']') {
        ++pos_;
        const int hi = class_member(cls);
        // ASCII only: libstdc++ compares range ends as (signed) char.
        if (hi < 0 || hi < lo || hi >= 0x80) refuse("a range that is not two ASCII characters in order");
        for (int x = lo; x <= hi; ++x) n.chars.set(static_cast<std::size_t>(x));
      } else {
        n.chars.set(static_cast<std::size_t>(lo));
      }
    }
    ++pos_;  // ']'
    if (negate) n.chars.flip();
    return n;
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  std::size_t groups_ = 0;
};

// What is left to match after a node, as a chain of frames on the stack (no allocation):
// the rest of a sequence, the end of a capturing group, the next repetition of a quantified
// group, or the end of the pattern.
struct Frame {
  enum class Kind { Sequence, CloseGroup, Repeat, Accept };
  Kind kind = Kind::Accept;
  const Seq *seq = nullptr;    // Sequence: continue at seq[index]
  std::size_t index = 0;
  const Node *node = nullptr;  // CloseGroup / Repeat: the group
  std::size_t count = 0;       // Repeat: repetitions so far, the current one included
  std::size_t start = 0;       // CloseGroup / Repeat: where the group (this repetition) began
  const Frame *next = nullptr;
};

// ECMAScript's backtracking order: alternatives left to right, greedy quantifiers longest first,
// lazy ones shortest first; the first way through that reaches Accept wins, so the groups are
// those std::regex reports.
struct Matcher {
  std::string_view text;
  MessagePattern::Groups &groups;
  bool whole;            // full_match: Accept only at the end of the text
  std::size_t end = 0;   // where the match ended

  bool resume(const Frame *k, std::size_t pos) {
    switch (k->kind) {
      case Frame::Kind::Sequence:
        return sequence(*k->seq, k->index, pos, k->next);
      case Frame::Kind::CloseGroup: {
        MessagePattern::Group &g = groups[k->node->capture];
        const MessagePattern::Group saved = g;
        g = {k->start, pos};
        if (resume(k->next, pos)) return true;
        g = saved;
        return false;
      }
      case Frame::Kind::Repeat:
        // ECMAScript: a repetition beyond the minimum may not match the empty string.
        if (pos == k->start && k->count > k->node->min) return false;
        return repeat(*k->node, k->count, pos, k->next);
      case Frame::Kind::Accept:
        if (whole && pos != text.size()) return false;
        end = pos;
        return true;
    }
    return false;
  }

  bool sequence(const Seq &seq, std::size_t index, std::size_t pos, const Frame *k) {
    if (index == seq.size()) return resume(k, pos);
    if (index + 1 == seq.size()) return repeat(seq[index], 0, pos, k);
    const Frame rest{Frame::Kind::Sequence, &seq, index + 1, nullptr, 0, 0, k};
    return repeat(seq[index], 0, pos, &rest);
  }

  // Node n, `count` repetitions already matched, then k.
  bool repeat(const Node &n, std::size_t count, std::size_t pos, const Frame *k) {
    switch (n.type) {
      case Node::Type::Literal:
        if (text.substr(pos, n.literal.size()) != n.literal) return false;
        return resume(k, pos + n.literal.size());
      case Node::Type::Chars: {
        // One character per repetition: count the run once, then try its lengths in order.
        const std::size_t limit = std::min(n.max, text.size() - pos);
        std::size_t run = 0;
        while (run < limit && n.chars[byte(text[pos + run])]) ++run;
        if (run < n.min) return false;
        // A length after which the rest cannot start (its literal's first byte is not there)
        // would fail at once: skip it without the call (`.+?` before " and " tries every length).
        const int next = first_byte(k);
        const auto may_follow = [&](std::size_t at) {
          return next < 0 || (at < text.size() && byte(text[at]) == next);
        };
        if (n.greedy) {
          for (std::size_t len = run;; --len) {
            if (may_follow(pos + len) && resume(k, pos + len)) return true;
            if (len == n.min) return false;
          }
        }
        for (std::size_t len = n.min; len <= run; ++len)
          if (may_follow(pos + len) && resume(k, pos + len)) return true;
        return false;
      }
      case Node::Type::Group:
        break;
    }
    if (n.min == 1 && n.max == 1) return alternatives(n, pos, k);
    const bool may_stop = count >= n.min;
    if (n.max != npos && count >= n.max) return resume(k, pos);
    if (may_stop && !n.greedy && resume(k, pos)) return true;
    const Frame again{Frame::Kind::Repeat, nullptr, 0, &n, count + 1, pos, k};
    if (alternatives(n, pos, &again)) return true;
    return may_stop && n.greedy && resume(k, pos);
  }

  // The byte that what follows (k) must start with, when it starts with a literal; else -1.
  static int first_byte(const Frame *k) {
    while (k != nullptr) {
      if (k->kind == Frame::Kind::CloseGroup) {  // closing a group consumes nothing
        k = k->next;
      } else if (k->kind == Frame::Kind::Sequence && k->index == k->seq->size()) {
        k = k->next;
      } else if (k->kind == Frame::Kind::Sequence) {
        const Node &n = (*k->seq)[k->index];
        return n.type == Node::Type::Literal ? byte(n.literal[0]) : -1;
      } else {
        return -1;
      }
    }
    return -1;
  }

  bool alternatives(const Node &g, std::size_t pos, const Frame *k) {
    const Frame close{Frame::Kind::CloseGroup, nullptr, 0, &g, 0, pos, k};
    const Frame *after = g.capture != 0 ? &close : k;
    for (const Seq &alt : g.alternatives)
      if (sequence(alt, 0, pos, after)) return true;
    return false;
  }
};

}  // namespace

MessagePattern::MessagePattern(std::string_view source) : source_(source) {
  Parser parser(source_);
  root_ = std::make_unique<Node>(parser.parse());
  group_count_ = parser.groups();
}
MessagePattern::~MessagePattern() = default;
MessagePattern::MessagePattern(MessagePattern &&) noexcept = default;
MessagePattern &MessagePattern::operator=(MessagePattern &&) noexcept = default;

bool MessagePattern::full_match(std::string_view text) const {
  Groups groups;
  return full_match(text, groups);
}

bool MessagePattern::full_match(std::string_view text, Groups &groups) const {
  groups.fill(Group{});
  Matcher m{text, groups, true};
  const Frame accept{};
  if (!m.repeat(*root_, 0, 0, &accept)) {
    groups.fill(Group{});
    return false;
  }
  groups[0] = {0, text.size()};
  return true;
}

bool MessagePattern::search(std::string_view text, Groups &groups) const {
  Matcher m{text, groups, false};
  const Frame accept{};
  // A pattern that starts with a literal can only match where its first byte is.
  const bool literal_first = root_->alternatives.size() == 1 && !root_->alternatives[0].empty() &&
                             root_->alternatives[0][0].type == Node::Type::Literal;
  const char first = literal_first ? root_->alternatives[0][0].literal[0] : '\0';
  for (std::size_t start = 0; start <= text.size(); ++start) {
    if (literal_first && (start == text.size() || text[start] != first)) continue;
    groups.fill(Group{});
    if (m.repeat(*root_, 0, start, &accept)) {
      groups[0] = {start, m.end};
      return true;
    }
  }
  groups.fill(Group{});
  return false;
}

}  // namespace crossgrad::oracle

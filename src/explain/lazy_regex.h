#pragma once
// A signature's regex, compiled the first time a text contains one of its
// anchors. Compiling all ~270 std::regex patterns of the table was the larger
// part of explain's fixed cost on a short text, where only a handful of
// signatures ever get to run their regex.
#include <atomic>
#include <memory>
#include <mutex>
#include <regex>
#include <string>

namespace cudiag::explain {

class LazyRegex {
 public:
  LazyRegex() = default;
  // `pattern` is already lowercased (lowercase_pattern in signatures.h).
  explicit LazyRegex(std::string pattern);
  // Compiles now; why the pattern does not compile, or "" when it does.
  std::string compile_error() const;
  // The compiled regex; the first call compiles it (thread-safe). A pattern that does not compile
  // throws InputError naming it: load_signatures compiles every pattern of a table it did not ship
  // with, and a test compiles every built-in one, so this happens only to a corrupted table.
  const std::regex& get() const;
  // The number of capture groups: the compiled regex's mark_count once compiled, otherwise counted in
  // the pattern without compiling it: an unescaped "(" outside a [...] class and not followed by "?"
  // (ECMAScript's (?: (?= (?! are not captures).
  unsigned groups() const;
  // Whether it has been compiled (tests of the laziness).
  bool compiled() const;

 private:
  struct State {
    std::string pattern;
    std::once_flag once;
    std::regex regex;
    std::string error;  // why it did not compile
    std::atomic<bool> compiled{false};
  };
  std::shared_ptr<State> state_;  // shared: a copied Signature compiles once for both
};

}  // namespace cudiag::explain

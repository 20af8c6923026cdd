#include "explain/lazy_regex.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace cudiag::explain {

LazyRegex::LazyRegex(std::string pattern) : state_(std::make_shared<State>()) {
  state_->pattern = std::move(pattern);
}

std::string LazyRegex::compile_error() const {
  if (!state_) return "no pattern";
  std::call_once(state_->once, [s = state_.get()] {
    try {
      s->regex = std::regex(s->pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& err) {
      s->error = err.what();
    }
    s->compiled = true;
  });
  return state_->error;
}

unsigned LazyRegex::groups() const {
  if (!state_) return 0;
  // Once compiled (a --kb table is compiled at load), the regex's own count is the authority.
  if (state_->compiled.load() && state_->error.empty()) return state_->regex.mark_count();
  const std::string& p = state_->pattern;
  unsigned count = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;  // the escaped character is a literal or a class such as \d
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' && (i + 1 >= p.size() || p[i + 1] != '?')) {
      ++count;
    }
  }
  return count;
}

bool LazyRegex::compiled() const {
  if (!state_) return false;
  return state_->compiled.load();
}

const std::regex& LazyRegex::get() const {
  if (!state_) throw InputError("error signature: a regex was used before it was given");
  compile_error();
  if (!state_->error.empty())
    throw InputError(
        fmt::format("error signature regex '{}' does not compile: {}", state_->pattern, state_->error));
  return state_->regex;
}

}  // namespace cudiag::explain

#pragma once
// Syntax checks of user-given names and settings, written as loops rather than std::regex:
// libstdc++'s regex matcher recurses once per character, so a long enough input (tens of KB,
// e.g. a 40 KB environment value or module path) overflowed the stack and crashed the process
// where one clear error was due.
#include <string_view>

namespace assay {

inline bool is_ascii_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
inline bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ascii_alnum(char c) { return is_ascii_alpha(c) || is_ascii_digit(c); }

// Every character satisfies `ok`, and there is at least one.
template <typename Pred>
bool all_chars(std::string_view s, Pred ok) {
  if (s.empty()) return false;
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}

inline bool all_digits(std::string_view s) { return all_chars(s, is_ascii_digit); }

// [A-Za-z_][A-Za-z0-9_]*: a shell variable, a Python or C identifier.
inline bool is_identifier(std::string_view s) {
  return !s.empty() && (is_ascii_alpha(s[0]) || s[0] == '_') &&
         all_chars(s, [](char c) { return is_ascii_alnum(c) || c == '_'; });
}

// Identifiers joined by dots (a Python module path, an attribute path).
inline bool is_dotted_identifier(std::string_view s) {
  for (std::size_t at = 0;;) {
    const std::size_t dot = s.find('.', at);
    if (!is_identifier(s.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at))) return false;
    if (dot == std::string_view::npos) return true;
    at = dot + 1;
  }
}

// NAME=value with NAME an identifier (what env(1) takes as a setting, not as its option or command).
inline bool is_env_setting(std::string_view s) {
  const std::size_t eq = s.find('=');
  return eq != std::string_view::npos && is_identifier(s.substr(0, eq));
}

// A tune variant's name or backend: [A-Za-z0-9_.@:+-]+ (e.g. wide, assay@wgmma_128x256).
inline bool is_variant_word(std::string_view s) {
  return all_chars(s, [](char c) { return is_ascii_alnum(c) || std::string_view("_.@:+-").find(c) != std::string_view::npos; });
}

// NAME=BACKEND[,VAR=value...] (docs/tune.md): the variant's words, then settings whose values
// hold no comma.
inline bool is_tune_variant(std::string_view s) {
  const std::size_t comma = s.find(',');
  const std::string_view head = s.substr(0, comma);
  const std::size_t eq = head.find('=');
  if (eq == std::string_view::npos || !is_variant_word(head.substr(0, eq)) || !is_variant_word(head.substr(eq + 1)))
    return false;
  for (std::size_t at = comma; at != std::string_view::npos;) {
    const std::size_t next = s.find(',', at + 1);
    if (!is_env_setting(s.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1)))
      return false;
    at = next;
  }
  return true;
}

}  // namespace assay

#include "suite/toml_prescan.hpp"

#include "core/error.hpp"

namespace assay::suite {

void reject_non_ascii_outside_strings(const std::string& text, const std::string& file) {
  int line = 1, column = 1;
  const std::size_t n = text.size();
  const auto starts = [&](std::size_t i, const char* s) { return text.compare(i, std::char_traits<char>::length(s), s) == 0; };
  std::size_t i = 0;
  // A UTF-8 byte order mark at the very start is whitespace to TOML.
  if (starts(0, "\xEF\xBB\xBF")) i = 3;
  const auto advance = [&](std::size_t count) {
    for (std::size_t k = 0; k < count && i < n; ++k, ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        ++column;  // one column per character, not per byte
      }
    }
  };
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '#') {
      while (i < n && text[i] != '\n') advance(1);
    } else if (starts(i, "\"\"\"") || starts(i, "'''")) {
      const std::string close = text.substr(i, 3);
      const bool basic = close[0] == '"';
      advance(3);
      while (i < n && !starts(i, close.c_str())) advance(basic && text[i] == '\\' ? 2 : 1);
      advance(3);
    } else if (c == '"' || c == '\'') {
      advance(1);
      while (i < n && text[i] != static_cast<char>(c) && text[i] != '\n') advance(c == '"' && text[i] == '\\' ? 2 : 1);
      advance(1);
    } else if (c >= 0x80) {
      throw InputError(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                       ": a character beyond ASCII outside a string or comment (TOML allows them only there)");
    } else {
      advance(1);
    }
  }
}

}  // namespace assay::suite

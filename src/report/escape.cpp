#include "report/escape.hpp"

namespace assay::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': case '\n': case '\r': out += c; break;
      // Other control characters are not allowed in XML 1.0 (JUnit) and show as nothing in HTML:
      // U+FFFD marks where one was (an ANSI colour code in a reason, say).
      default: out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? std::string("\xEF\xBF\xBD") : std::string(1, c);
    }
  }
  return out;
}

}  // namespace assay::report

#include "report/escape.hpp"

#include <algorithm>

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

std::string markdown_text(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else out += ch;
  }
  return out;
}

std::string markdown_code(std::string_view s) {
  std::string body;
  std::size_t run = 0, longest = 0;
  for (char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (ch == '|') body += "\\|";  // GFM: a pipe inside a cell, code span or not
    else if (ch == '\n' || ch == '\r') body += ' ';
    else body += ch;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace assay::report

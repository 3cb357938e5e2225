#include "suite/toml_prescan.hpp"

#include <vector>

#include "core/error.hpp"

namespace assay::suite {

namespace {

// Whitespace inside a line, as toml++ reads it (ASCII only: the rest is refused).
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Where toml++'s scan of a bare value stops.
bool ends_bare_value(char c) { return is_blank(c) || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#'; }

bool beyond_ascii(char c) { return static_cast<unsigned char>(c) >= 0x80; }

class Prescan {
 public:
  Prescan(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  void run() {
    if (starts("\xEF\xBB\xBF")) i_ = 3;  // a UTF-8 byte order mark at the very start is whitespace to TOML
    while (i_ < text_.size()) step(text_[i_]);
  }

 private:
  // What the next token is, to TOML: a key (or a table header's key), a value, or what may follow
  // a value (a comma, a closing bracket, a comment, a line end).
  enum class Expect { key, value, after_value };

  void step(char c) {
    if (beyond_ascii(c)) refuse("outside a string or comment (TOML allows them only there)");
    if (c == '#') {
      while (i_ < text_.size() && text_[i_] != '\n') advance(1);
    } else if (is_blank(c)) {
      advance(1);
    } else if (c == '\n') {
      advance(1);
      if (nest_.empty() || nest_.back() == 'h') {  // a line end ends a key/value pair or a header
        nest_.clear();
        expect_ = Expect::key;
        previous_ = '\n';
      }
    } else if (expect_ == Expect::key) {
      in_key(c);
    } else if (expect_ == Expect::value) {
      in_value(c);
    } else {
      after_value(c);
    }
  }

  void in_key(char c) {
    const bool quote = c == '"' || c == '\'';
    // A quoted key starts a line, a dotted-key part, a header, or an inline table's entry.
    const bool opens = previous_ == '\n' || previous_ == '.' || previous_ == '[' || previous_ == '{' || previous_ == ',';
    if (quote && opens) {
      string(c);
    } else if (c == '=') {
      advance(1);
      expect_ = Expect::value;
    } else if (c == '[' && nest_.empty() && previous_ == '\n') {
      nest_.push_back('h');
      advance(starts("[[") ? 2 : 1);
    } else if (c == ']' && !nest_.empty() && nest_.back() == 'h') {
      nest_.pop_back();
      advance(starts("]]") ? 2 : 1);
      expect_ = Expect::after_value;
    } else if (c == '}') {
      close('{');
    } else {
      advance(1);  // a bare key's character, a dot, or something toml++ refuses here
    }
    previous_ = c;
  }

  void in_value(char c) {
    if (c == '"' || c == '\'') {
      string(c);
      expect_ = Expect::after_value;
    } else if (c == '[') {
      nest_.push_back('[');
      advance(1);
    } else if (c == ']') {
      close('[');
    } else if (c == '{') {
      nest_.push_back('{');
      advance(1);
      expect_ = Expect::key;
      previous_ = '{';
    } else {
      bare_value();
    }
  }

  void after_value(char c) {
    if (c == ',') {
      advance(1);
      if (!nest_.empty() && nest_.back() == '[') expect_ = Expect::value;
      if (!nest_.empty() && nest_.back() == '{') {
        expect_ = Expect::key;
        previous_ = ',';
      }
    } else if (c == ']') {
      close('[');
    } else if (c == '}') {
      close('{');
    } else {
      bare_value();  // not TOML (or the time of a date-time written with a space): scanned as toml++ may
    }
  }

  void close(char opener) {
    advance(1);
    if (!nest_.empty() && nest_.back() == opener) nest_.pop_back();
    expect_ = Expect::after_value;
  }

  void bare_value() {
    do {
      if (beyond_ascii(text_[i_])) refuse("in a bare value (TOML allows them only in strings and comments)");
      advance(1);
    } while (i_ < text_.size() && !ends_bare_value(text_[i_]));
    expect_ = Expect::after_value;
  }

  // From an opening quote to past the closing one: "..." '...' """...""" '''...'''.
  void string(char quote) {
    const std::string triple(3, quote);
    const bool basic = quote == '"';
    if (starts(triple.c_str())) {
      advance(3);
      while (i_ < text_.size() && !starts(triple.c_str())) {
        if (basic && text_[i_] == '\\') {
          advance(1);
          // toml++ tests what follows a backslash for whitespace (a line-ending backslash) and
          // then skips whitespace and line ends.
          const std::size_t from = i_;
          while (i_ < text_.size() && (is_blank(text_[i_]) || text_[i_] == '\n')) advance(1);
          if (i_ < text_.size() && beyond_ascii(text_[i_]))
            refuse("after a backslash in a multi-line string (only an escape or a line end may follow one)");
          if (i_ == from) advance(1);  // the escaped character
        } else {
          advance(1);
        }
      }
      advance(3);
      return;
    }
    advance(1);
    while (i_ < text_.size() && text_[i_] != quote && text_[i_] != '\n') advance(basic && text_[i_] == '\\' ? 2 : 1);
    if (i_ < text_.size() && text_[i_] == quote) advance(1);
  }

  bool starts(const char* s) const { return text_.compare(i_, std::char_traits<char>::length(s), s) == 0; }

  void advance(std::size_t count) {
    for (std::size_t k = 0; k < count && i_ < text_.size(); ++k, ++i_) {
      if (text_[i_] == '\n') {
        ++line_;
        column_ = 1;
      } else if ((static_cast<unsigned char>(text_[i_]) & 0xC0) != 0x80) {
        ++column_;  // one column per character, not per byte
      }
    }
  }

  [[noreturn]] void refuse(const char* where) const {
    throw InputError(file_ + ":" + std::to_string(line_) + ":" + std::to_string(column_) +
                     ": a character beyond ASCII " + where);
  }

  const std::string& text_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1, column_ = 1;
  Expect expect_ = Expect::key;
  char previous_ = '\n';   // in a key: the last character that is not a blank
  std::vector<char> nest_;  // open brackets: '[' array, '{' inline table, 'h' table header
};

}  // namespace

void reject_non_ascii_outside_strings(const std::string& text, const std::string& file) {
  Prescan(text, file).run();
}

}  // namespace assay::suite

// Cartesian product of a bench's axes, derived values, and the integer expressions
// that define them ("m", "2*k", "(m+n)/2").
#include <cctype>
#include <cstdint>
#include <set>

#include "core/error.hpp"
#include "suite/suite.hpp"

namespace assay::suite {

namespace {

constexpr std::int64_t kMaxParam = 2147483647;
constexpr std::size_t kMaxPoints = 1000000;
// A derived value is a short formula: bounded so that no expression can exhaust the stack of
// the recursive descent below (each '(' and each unary '-' is one level) or flood a message.
constexpr std::size_t kMaxExpressionLength = 1000;
constexpr int kMaxExpressionDepth = 64;

// The expression as a message shows it: at most 60 characters, control and non-ASCII bytes
// as \xNN, so that an error stays one printable line.
std::string shown(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < 60; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (text.size() > 60) out += "... (" + std::to_string(text.size()) + " characters)";
  return out;
}

// Recursive descent over: expr := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
// factor := integer | name | '(' expr ')' | '-' factor. Checked arithmetic on int64.
class ExpressionEvaluator {
 public:
  ExpressionEvaluator(const std::string& text, const std::map<std::string, std::int64_t>& vars)
      : s_(text), vars_(vars) {}

  std::int64_t evaluate() {
    if (s_.size() > kMaxExpressionLength)
      fail("too long (" + std::to_string(s_.size()) + " characters; at most " +
           std::to_string(kMaxExpressionLength) + ")");
    const std::int64_t v = expr();
    skip_space();
    if (i_ != s_.size()) fail("unexpected '" + shown(std::string(1, s_[i_])) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("expression '" + shown(s_) + "': " + what);
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // Each operand is evaluated before the operation (the builtins write their result last).
  std::int64_t add(std::int64_t a, std::int64_t b) const {
    std::int64_t r;
    if (__builtin_add_overflow(a, b, &r)) fail("overflows a 64-bit integer");
    return r;
  }
  std::int64_t sub(std::int64_t a, std::int64_t b) const {
    std::int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) fail("overflows a 64-bit integer");
    return r;
  }
  std::int64_t mul(std::int64_t a, std::int64_t b) const {
    std::int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) fail("overflows a 64-bit integer");
    return r;
  }
  std::int64_t expr() {
    std::int64_t v = term();
    for (;;) {
      if (eat('+')) v = add(v, term());
      else if (eat('-')) v = sub(v, term());
      else return v;
    }
  }
  std::int64_t term() {
    std::int64_t v = factor();
    for (;;) {
      if (eat('*')) {
        v = mul(v, factor());
      } else if (eat('/')) {
        const std::int64_t d = factor();
        if (d == 0) fail("division by zero");
        if (d == -1 && v == INT64_MIN) fail("overflows a 64-bit integer");
        v /= d;
      } else {
        return v;
      }
    }
  }
  // One level of nesting: '(' and unary '-' recurse; the depth is bounded before the stack is.
  struct Level {
    explicit Level(ExpressionEvaluator& e) : e_(e) {
      if (++e_.depth_ > kMaxExpressionDepth)
        e_.fail("nested too deeply (more than " + std::to_string(kMaxExpressionDepth) +
                " levels of parentheses or unary '-')");
    }
    ~Level() { --e_.depth_; }
    ExpressionEvaluator& e_;
  };
  std::int64_t factor() {
    skip_space();
    if (eat('(')) {
      const Level level(*this);
      const std::int64_t v = expr();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    if (eat('-')) {
      const Level level(*this);
      return sub(0, factor());
    }
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      std::int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        v = add(mul(v, 10), s_[i_] - '0');
        ++i_;
      }
      return v;
    }
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      const std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      const std::string name = s_.substr(start, i_ - start);
      const auto it = vars_.find(name);
      if (it == vars_.end()) fail("unknown name '" + name + "'");
      return it->second;
    }
    if (i_ >= s_.size()) fail("ends too early");
    fail("unexpected '" + shown(std::string(1, s_[i_])) + "'");
  }

  const std::string& s_;
  const std::map<std::string, std::int64_t>& vars_;
  std::size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

std::int64_t eval_expression(const std::string& expr, const std::map<std::string, std::int64_t>& vars) {
  return ExpressionEvaluator(expr, vars).evaluate();
}

std::vector<Point> expand_points(const Bench& bench) {
  std::vector<const Axis*> value_axes, derived_axes;
  for (const auto& a : bench.axes) (a.expression.empty() ? value_axes : derived_axes).push_back(&a);

  std::size_t total = bench.dtypes.size();
  for (const Axis* a : value_axes) {
    if (total > kMaxPoints / a->values.size())
      throw InputError(a->pos.str() + ": bench '" + bench.name + "': more than " +
                       std::to_string(kMaxPoints) + " points");
    total *= a->values.size();
  }

  std::vector<Point> points;
  points.reserve(total);
  std::vector<std::size_t> idx(value_axes.size(), 0);
  for (const auto& dtype : bench.dtypes) {
    std::fill(idx.begin(), idx.end(), 0);
    for (bool done = false; !done;) {
      Point p;
      p.dtype = dtype;
      for (std::size_t i = 0; i < value_axes.size(); ++i)
        p.params[value_axes[i]->name] = value_axes[i]->values[idx[i]];
      // Derived axes may refer to value axes and to derived axes above them in the file.
      for (const Axis* a : derived_axes) {
        std::int64_t v;
        try {
          v = eval_expression(a->expression, p.params);
        } catch (const InputError& e) {
          throw InputError(a->pos.str() + ": bench '" + bench.name + "': axes." + a->name + ": " + e.what());
        }
        if (v < 0 || v > kMaxParam)
          throw InputError(a->pos.str() + ": bench '" + bench.name + "': axes." + a->name + " = '" +
                           shown(a->expression) + "' gives " + std::to_string(v) + ", outside [0, " +
                           std::to_string(kMaxParam) + "]");
        p.params[a->name] = v;
      }
      points.push_back(std::move(p));
      // Odometer: the last axis moves fastest; done when every axis has wrapped.
      done = true;
      for (std::size_t i = value_axes.size(); i-- > 0;) {
        if (++idx[i] < value_axes[i]->values.size()) {
          done = false;
          break;
        }
        idx[i] = 0;
      }
    }
  }
  return points;
}

}  // namespace assay::suite

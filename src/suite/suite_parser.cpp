// TOML suite parsing with toml++. Every error names file:line:column and the field,
// and unknown keys are errors (a typo must not silently fall back to a default).
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/results.hpp"
#include "core/text_syntax.hpp"
#include "suite/suite.hpp"
#include "suite/toml_prescan.hpp"

namespace assay::suite {

std::string SourcePos::str() const {
  std::ostringstream ss;
  ss << file;
  if (line > 0) ss << ":" << line << ":" << column;
  return ss.str();
}

namespace {

constexpr std::int64_t kMaxAxisValues = 100000;
// A bench name is the first part of case ids, results and filters, the suite name part of
// results file names: both are kept to characters that are safe in a path and a regex.
constexpr std::size_t kMaxNameLength = 100;
constexpr const char* kNameRule =
    "use only letters, digits, '.', '_' and '-', not starting with '.', at most 100 characters";
// Samples a case may take (also the most a results file may hold: src/core/results_json.cpp).
constexpr std::int64_t kMaxSamples = 1000000;
// A suite is a short text: a bigger file is not one (and /dev/zero would never end).
constexpr std::uintmax_t kMaxSuiteBytes = 16u << 20;

bool safe_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength || name[0] == '.') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

// The known keys of each table of a suite, for the unknown-key check (file order).
const std::initializer_list<std::string_view> kRootKeys = {"suite", "defaults", "bench"};
const std::initializer_list<std::string_view> kSuiteKeys = {"name", "description", "python_path"};
const std::initializer_list<std::string_view> kDefaultsKeys = {"measure", "check"};
const std::initializer_list<std::string_view> kMeasureKeys = {
    "mode", "warmup_calls", "warmup_min_s", "min_samples", "max_samples", "min_time_s", "target_rel_ci",
    "timeout_s", "throttle_threshold", "throttle_backoff_s", "cooldown_s", "gap_us", "l2_flush", "rounds", "graph_calls",
    "adapter_timeout_s", "case_timeout_s"};
const std::initializer_list<std::string_view> kCheckKeys = {"enabled", "atol", "rtol", "shape", "recheck",
                                                            "sampled_rows"};
const std::initializer_list<std::string_view> kBenchKeys = {"name", "workload", "backends", "baseline",
                                                            "dtype", "axes", "measure", "check", "tune"};
const std::initializer_list<std::string_view> kTuneKeys = {"variants"};
const std::initializer_list<std::string_view> kRangeKeys = {"start", "stop", "step", "mul"};

std::string fnv1a_hex(const std::string& bytes) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(bytes)));
  return buf;
}

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  SourcePos pos(const toml::node& n) const {
    const auto& b = n.source().begin;
    return {file_, static_cast<int>(b.line), static_cast<int>(b.column)};
  }

  [[noreturn]] void fail(const toml::node& n, const std::string& field, const std::string& what) const {
    throw InputError(pos(n).str() + ": " + field + ": " + what);
  }

  // An unknown key: where it is, its field path and the keys its table knows.
  struct Unknown {
    const toml::node* node;
    std::string field;
    std::string known;
  };

  // The unknown keys of one table, appended to `out`.
  void collect_unknown(const toml::table& t, const std::string& field,
                       std::initializer_list<std::string_view> known, std::vector<Unknown>& out) const {
    for (const auto& [key, value] : t) {
      bool ok = false;
      for (auto k : known) ok = ok || key.str() == k;
      if (ok) continue;
      std::string list;
      for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      out.push_back({&value, field.empty() ? std::string(key.str()) : field + "." + std::string(key.str()), list});
    }
  }

  // Fails on the unknown key that comes first in the file (toml++ iterates a table in key
  // order, so the first one met is not the first one written).
  void fail_first_unknown(const std::vector<Unknown>& unknown) const {
    if (unknown.empty()) return;
    const Unknown* first = &unknown.front();
    for (const auto& u : unknown) {
      const auto& a = u.node->source().begin;
      const auto& b = first->node->source().begin;
      if (std::tie(a.line, a.column) < std::tie(b.line, b.column)) first = &u;
    }
    fail(*first->node, first->field, "unknown key (known: " + first->known + ")");
  }

  void reject_unknown_keys(const toml::table& t, const std::string& field,
                           std::initializer_list<std::string_view> known) const {
    std::vector<Unknown> unknown;
    collect_unknown(t, field, known, unknown);
    fail_first_unknown(unknown);
  }

  // Every unknown key of the file, the first in file order reported, before any other check.
  void reject_unknown_keys_in_file(const toml::table& root) const {
    std::vector<Unknown> u;
    collect_unknown(root, "", kRootKeys, u);
    const auto measure_and_check = [&](const toml::table& t, const std::string& field) {
      if (const auto* m = t.get_as<toml::table>("measure")) collect_unknown(*m, field + ".measure", kMeasureKeys, u);
      if (const auto* c = t.get_as<toml::table>("check")) collect_unknown(*c, field + ".check", kCheckKeys, u);
    };
    if (const auto* t = root.get_as<toml::table>("suite")) collect_unknown(*t, "suite", kSuiteKeys, u);
    if (const auto* t = root.get_as<toml::table>("defaults")) {
      collect_unknown(*t, "defaults", kDefaultsKeys, u);
      measure_and_check(*t, "defaults");
    }
    if (const auto* arr = root.get_as<toml::array>("bench")) {
      for (std::size_t i = 0; i < arr->size(); ++i) {
        const auto* t = arr->get(i)->as_table();
        if (!t) continue;
        const std::string field = "bench[" + std::to_string(i) + "]";
        collect_unknown(*t, field, kBenchKeys, u);
        measure_and_check(*t, field);
        if (const auto* tune = t->get_as<toml::table>("tune")) collect_unknown(*tune, field + ".tune", kTuneKeys, u);
        if (const auto* axes = t->get_as<toml::table>("axes"))
          for (const auto& [key, value] : *axes)
            if (const auto* range = value.as_table())
              collect_unknown(*range, field + ".axes." + std::string(key.str()), kRangeKeys, u);
      }
    }
    fail_first_unknown(u);
  }

  std::string string_of(const toml::node& n, const std::string& field) const {
    if (auto s = n.value<std::string>(); s && n.is_string()) {
      if (s->empty()) fail(n, field, "must not be empty");
      return *s;
    }
    fail(n, field, std::string("must be a string, not ") + type_name(n));
  }

  double number_of(const toml::node& n, const std::string& field, double lo, double hi) const {
    double v;
    if (n.is_integer()) v = static_cast<double>(*n.value<std::int64_t>());
    else if (n.is_floating_point()) v = *n.value<double>();
    else fail(n, field, std::string("must be a number, not ") + type_name(n));
    if (!(v >= lo && v <= hi))
      fail(n, field, "must be in [" + fmt_num(lo) + ", " + fmt_num(hi) + "], got " + fmt_num(v));
    return v;
  }

  std::int64_t integer_of(const toml::node& n, const std::string& field, std::int64_t lo,
                          std::int64_t hi) const {
    if (!n.is_integer()) fail(n, field, std::string("must be an integer, not ") + type_name(n));
    const std::int64_t v = *n.value<std::int64_t>();
    if (v < lo || v > hi)
      fail(n, field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                         std::to_string(v));
    return v;
  }

  bool bool_of(const toml::node& n, const std::string& field) const {
    if (!n.is_boolean()) fail(n, field, std::string("must be true or false, not ") + type_name(n));
    return *n.value<bool>();
  }

  std::vector<std::string> strings_of(const toml::node& n, const std::string& field) const {
    std::vector<std::string> out;
    if (n.is_string()) {
      out.push_back(string_of(n, field));
    } else if (const auto* arr = n.as_array()) {
      if (arr->empty()) fail(n, field, "must not be empty");
      for (std::size_t i = 0; i < arr->size(); ++i)
        out.push_back(string_of(*arr->get(i), field + "[" + std::to_string(i) + "]"));
    } else {
      fail(n, field, "must be a string or a list of strings");
    }
    std::set<std::string> seen;
    for (const auto& s : out)
      if (!seen.insert(s).second) fail(n, field, "lists '" + s + "' twice");
    return out;
  }

  // Parameter values are in [0, 2^31 - 1] (what the libraries take as an int); the planner
  // holds each to its workload's range (sizes start at 1, flags such as causal are 0 or 1).
  Axis axis_of(const std::string& name, const toml::node& n, const std::string& field) const {
    Axis axis{name, {}, {}, pos(n)};
    constexpr std::int64_t kMax = 2147483647;
    if (n.is_integer()) {
      axis.values.push_back(integer_of(n, field, 0, kMax));
    } else if (n.is_string()) {
      axis.expression = string_of(n, field);
    } else if (const auto* arr = n.as_array()) {
      if (arr->empty()) fail(n, field, "must not be empty");
      for (std::size_t i = 0; i < arr->size(); ++i)
        axis.values.push_back(integer_of(*arr->get(i), field + "[" + std::to_string(i) + "]", 0, kMax));
    } else if (const auto* t = n.as_table()) {
      reject_unknown_keys(*t, field, kRangeKeys);
      const auto* start = t->get("start");
      const auto* stop = t->get("stop");
      if (!start || !stop) fail(n, field, "a range needs 'start' and 'stop' (and 'step' or 'mul')");
      const std::int64_t a = integer_of(*start, field + ".start", 0, kMax);
      const std::int64_t b = integer_of(*stop, field + ".stop", 0, kMax);
      if (b < a) fail(*stop, field + ".stop", "must not be less than start");
      const auto* step = t->get("step");
      const auto* mul = t->get("mul");
      if (step && mul) fail(n, field, "give 'step' or 'mul', not both");
      if (mul) {
        if (a == 0) fail(*start, field + ".start", "a geometric range (mul) must start at 1 or more");
        const std::int64_t m = integer_of(*mul, field + ".mul", 2, 1024);
        for (std::int64_t v = a; v <= b; v *= m) {
          axis.values.push_back(v);
          if (v > b / m) break;
        }
      } else {
        const std::int64_t s = step ? integer_of(*step, field + ".step", 1, kMax) : 1;
        if ((b - a) / s + 1 > kMaxAxisValues)
          fail(n, field, "range has more than " + std::to_string(kMaxAxisValues) + " values");
        for (std::int64_t v = a; v <= b; v += s) axis.values.push_back(v);
      }
    } else {
      fail(n, field, "must be an integer, a list of integers, a range table or an expression string");
    }
    if (axis.values.size() > static_cast<std::size_t>(kMaxAxisValues))
      fail(n, field, "has more than " + std::to_string(kMaxAxisValues) + " values");
    std::set<std::int64_t> seen;
    for (auto v : axis.values)
      if (!seen.insert(v).second) fail(n, field, "lists " + std::to_string(v) + " twice");
    return axis;
  }

  void read_measure(const toml::table& t, const std::string& field, MeasureConfig& m) const {
    reject_unknown_keys(t, field, kMeasureKeys);
    if (const auto* n = t.get("mode")) {
      m.mode = string_of(*n, field + ".mode");
      if (m.mode != "cold" && m.mode != "hot" && m.mode != "graph" && m.mode != "host")
        fail(*n, field + ".mode", "must be cold, hot, graph or host, not '" + m.mode + "'");
    }
    if (const auto* n = t.get("warmup_calls")) m.warmup_calls = integer_of(*n, field + ".warmup_calls", 0, 1000000);
    if (const auto* n = t.get("warmup_min_s")) m.warmup_min_s = number_of(*n, field + ".warmup_min_s", 0, 600);
    if (const auto* n = t.get("min_samples")) m.min_samples = integer_of(*n, field + ".min_samples", 1, kMaxSamples);
    if (const auto* n = t.get("max_samples")) m.max_samples = integer_of(*n, field + ".max_samples", 1, kMaxSamples);
    if (const auto* n = t.get("min_time_s")) m.min_time_s = number_of(*n, field + ".min_time_s", 0, 3600);
    if (const auto* n = t.get("target_rel_ci")) m.target_rel_ci = number_of(*n, field + ".target_rel_ci", 0, 1);
    if (const auto* n = t.get("timeout_s")) m.timeout_s = number_of(*n, field + ".timeout_s", 0.001, 86400);
    if (const auto* n = t.get("throttle_threshold"))
      m.throttle_threshold = number_of(*n, field + ".throttle_threshold", 0, 1);
    if (const auto* n = t.get("throttle_backoff_s"))
      m.throttle_backoff_s = number_of(*n, field + ".throttle_backoff_s", 0, 10);
    if (const auto* n = t.get("cooldown_s")) m.cooldown_s = number_of(*n, field + ".cooldown_s", 0, 600);
    if (const auto* n = t.get("gap_us")) m.gap_us = number_of(*n, field + ".gap_us", 0, 100000);
    if (const auto* n = t.get("l2_flush")) {
      m.l2_flush = string_of(*n, field + ".l2_flush");
      if (m.l2_flush != kL2FlushMemset && m.l2_flush != kL2FlushClean)
        fail(*n, field + ".l2_flush", "must be memset or clean, not '" + m.l2_flush + "'");
    }
    if (const auto* n = t.get("rounds")) {
      m.rounds = integer_of(*n, field + ".rounds", 1, 64);
      if (!rounds_balanced(m.rounds)) fail(*n, field + ".rounds", kRoundsRule);
    }
    if (const auto* n = t.get("graph_calls")) m.graph_calls = integer_of(*n, field + ".graph_calls", 0, 100000);
    if (const auto* n = t.get("adapter_timeout_s"))
      m.adapter_timeout_s = number_of(*n, field + ".adapter_timeout_s", 0.1, 86400);
    if (const auto* n = t.get("case_timeout_s")) m.case_timeout_s = number_of(*n, field + ".case_timeout_s", 0, 86400);
    if (m.max_samples < m.min_samples)
      fail(t, field + ".max_samples", "must not be less than min_samples");
  }

  void read_check(const toml::table& t, const std::string& field, CheckConfig& c) const {
    reject_unknown_keys(t, field, kCheckKeys);
    if (const auto* n = t.get("enabled")) c.enabled = bool_of(*n, field + ".enabled");
    if (const auto* n = t.get("atol")) c.atol = number_of(*n, field + ".atol", 0, 1e30);
    if (const auto* n = t.get("rtol")) c.rtol = number_of(*n, field + ".rtol", 0, 1e30);
    if (const auto* n = t.get("recheck")) c.recheck = bool_of(*n, field + ".recheck");
    if (const auto* n = t.get("sampled_rows")) c.sampled_rows = integer_of(*n, field + ".sampled_rows", 1, 1 << 20);
    if (const auto* n = t.get("shape")) {
      const auto* shape = n->as_table();
      if (!shape) fail(*n, field + ".shape", "must be a table of parameter values");
      c.shape.clear();
      for (const auto& [key, value] : *shape)
        c.shape[std::string(key.str())] =
            integer_of(value, field + ".shape." + std::string(key.str()), 0, 2147483647);
    }
  }

  Bench read_bench(const toml::table& t, std::size_t index, const MeasureConfig& measure,
                   const CheckConfig& check) const {
    const std::string field = "bench[" + std::to_string(index) + "]";
    reject_unknown_keys(t, field, kBenchKeys);
    Bench b;
    b.pos = pos(t);
    b.measure = measure;
    b.check = check;
    const auto need = [&](const char* key) -> const toml::node& {
      const auto* n = t.get(key);
      if (!n) fail(t, field + "." + key, "missing");
      return *n;
    };
    b.name = string_of(need("name"), field + ".name");
    if (!safe_name(b.name)) fail(need("name"), field + ".name", kNameRule);
    b.workload = string_of(need("workload"), field + ".workload");
    b.backends = strings_of(need("backends"), field + ".backends");
    if (const auto* n = t.get("baseline")) {
      b.baseline = string_of(*n, field + ".baseline");
      bool listed = false;
      for (const auto& be : b.backends) listed = listed || be == b.baseline;
      if (!listed) fail(*n, field + ".baseline", "'" + b.baseline + "' is not one of the bench's backends");
    }
    // Canonical names (fp16 -> f16, ...), so ids, baselines and peaks never see aliases.
    const auto& dtype_node = need("dtype");
    for (const auto& d : strings_of(dtype_node, field + ".dtype")) {
      const auto t = parse_dtype(d);
      if (!t) fail(dtype_node, field + ".dtype", "unknown dtype '" + d + "' (f32, f16, bf16, f8e4m3)");
      const std::string name(dtype_name(*t));
      if (std::find(b.dtypes.begin(), b.dtypes.end(), name) != b.dtypes.end())
        fail(dtype_node, field + ".dtype", "lists " + name + " twice");
      b.dtypes.push_back(name);
    }
    const auto& axes_node = need("axes");
    const auto* axes = axes_node.as_table();
    if (!axes || axes->empty()) fail(axes_node, field + ".axes", "must be a non-empty table");
    for (const auto& [key, value] : *axes)
      b.axes.push_back(axis_of(std::string(key.str()), value, field + ".axes." + std::string(key.str())));
    // File order, as a user reads it (toml++ tables are ordered by key otherwise).
    std::sort(b.axes.begin(), b.axes.end(), [](const Axis& x, const Axis& y) {
      return std::tie(x.pos.line, x.pos.column) < std::tie(y.pos.line, y.pos.column);
    });
    if (const auto* n = t.get("measure")) {
      const auto* m = n->as_table();
      if (!m) fail(*n, field + ".measure", "must be a table");
      read_measure(*m, field + ".measure", b.measure);
    }
    // `assay tune`'s variants of this bench (docs/tune.md): the syntax here, the backends there.
    if (const auto* n = t.get("tune")) {
      const auto* tune = n->as_table();
      if (!tune) fail(*n, field + ".tune", "must be a table");
      if (const auto* v = tune->get("variants")) {
        b.tune_variants_pos = pos(*v);
        for (const auto& text : strings_of(*v, field + ".tune.variants")) {
          if (!is_tune_variant(text))
            fail(*v, field + ".tune.variants",
                 "'" + text + "' is not NAME=BACKEND[,VAR=value...] (e.g. wide=assay@wgmma_128x256)");
          b.tune_variants.push_back(text);
        }
      }
    }
    if (const auto* n = t.get("check")) {
      const auto* c = n->as_table();
      if (!c) fail(*n, field + ".check", "must be a table");
      read_check(*c, field + ".check", b.check);
    }
    return b;
  }

  Suite read(const toml::table& root) const {
    reject_unknown_keys_in_file(root);
    Suite s;
    s.path = file_;
    if (const auto* n = root.get("suite")) {
      const auto* t = n->as_table();
      if (!t) fail(*n, "suite", "must be a table");
      if (const auto* v = t->get("name")) {
        s.name = string_of(*v, "suite.name");
        if (!safe_name(s.name)) fail(*v, "suite.name", kNameRule);  // part of the results file name
      }
      if (const auto* v = t->get("description")) s.description = string_of(*v, "suite.description");
      // Folders where the modules of `py:MODULE:FUNCTION` backends are found, relative to the
      // suite file; made absolute here so that a run from any folder finds them.
      if (const auto* v = t->get("python_path"))
        for (const auto& dir : strings_of(*v, "suite.python_path")) {
          if (dir.empty()) fail(*v, "suite.python_path", "an empty folder name");
          const std::filesystem::path p(dir);
          s.python_path.push_back(
              (p.is_absolute() ? p : std::filesystem::absolute(std::filesystem::path(file_).parent_path() / p))
                  .lexically_normal()
                  .string());
        }
    }
    MeasureConfig measure;
    CheckConfig check;
    if (const auto* n = root.get("defaults")) {
      const auto* t = n->as_table();
      if (!t) fail(*n, "defaults", "must be a table");
      if (const auto* m = t->get("measure")) {
        if (!m->is_table()) fail(*m, "defaults.measure", "must be a table");
        read_measure(*m->as_table(), "defaults.measure", measure);
      }
      if (const auto* c = t->get("check")) {
        if (!c->is_table()) fail(*c, "defaults.check", "must be a table");
        read_check(*c->as_table(), "defaults.check", check);
      }
    }
    const auto* benches = root.get("bench");
    if (!benches) throw InputError(file_ + ": bench: missing (a suite needs at least one [[bench]])");
    const auto* arr = benches->as_array();
    if (!arr || arr->empty()) fail(*benches, "bench", "must be an array of tables ([[bench]])");
    std::set<std::string> names;
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const auto* t = arr->get(i)->as_table();
      if (!t) fail(*arr->get(i), "bench[" + std::to_string(i) + "]", "must be a table");
      Bench b = read_bench(*t, i, measure, check);
      if (!names.insert(b.name).second)
        fail(*t, "bench[" + std::to_string(i) + "].name", "'" + b.name + "' is used by another bench");
      s.benches.push_back(std::move(b));
    }
    return s;
  }

 private:
  static const char* type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a float";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::array: return "an array";
      case toml::node_type::table: return "a table";
      default: return "a date or time";
    }
  }
  static std::string fmt_num(double v) {
    std::ostringstream ss;
    ss << v;
    return ss.str();
  }

  std::string file_;
};

}  // namespace

Suite parse_suite(const std::string& text, const std::string& path) {
  reject_non_ascii_outside_strings(text, path);  // before toml++: see suite/toml_prescan.hpp
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw InputError(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                     ": malformed TOML: " + std::string(e.description()));
  }
  Suite s = Parser(path).read(root);
  s.hash = fnv1a_hex(text);
  if (s.name.empty()) {
    const auto slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (const auto dot = base.rfind(".toml"); dot != std::string::npos) base.resize(dot);
    for (char& c : base)  // the name becomes part of the results file name
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    if (base.size() > kMaxNameLength) base.resize(kMaxNameLength);
    if (base.empty()) base = "suite";
    if (base[0] == '.') base[0] = '_';
    s.name = base;
  }
  return s;
}

Suite load_suite(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError("suite: the path is empty (give a suite file, e.g. suites/gemm.toml)");
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError(path + ": is a directory, not a suite file (give a .toml file)");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(path + ": is not a regular file (a suite is a TOML file)");
  if (fs::is_regular_file(st)) {
    const auto size = fs::file_size(path, ec);
    if (!ec && size > kMaxSuiteBytes)
      throw InputError(path + ": " + std::to_string(size) + " bytes; a suite file is at most " +
                       std::to_string(kMaxSuiteBytes >> 20) + " MiB");
  }
  return parse_suite(read_text_file(path), path);
}

}  // namespace assay::suite

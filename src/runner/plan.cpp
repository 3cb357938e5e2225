#include "runner/plan.hpp"

#include <cstdlib>
#include <regex>
#include <set>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "workloads/workload.hpp"

namespace assay::runner {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void validate_bench(const suite::Bench& b) {
  const std::string at = b.pos.str() + ": bench '" + b.name + "': ";
  const Workload* w = find_workload(b.workload);
  if (!w) {
    std::vector<std::string> names;
    for (const Workload* x : all_workloads()) names.push_back(x->name());
    throw InputError(at + "workload: unknown workload '" + b.workload + "' (known: " + join(names) + ")");
  }
  for (const auto& name : b.backends) {
    if (is_python_callable_name(name))
      if (const std::string why = python_callable_name_error(name); !why.empty())
        throw InputError(at + "backends: '" + name + "': " + why);
    const Backend* be = find_backend(name);
    if (!be) {
      std::vector<std::string> names;
      for (const Backend* x : all_backends()) names.push_back(x->name());
      throw InputError(at + "backends: unknown backend '" + name + "' (known: " + join(names) + ")");
    }
  }
  for (const auto& d : b.dtypes) {
    const auto t = parse_dtype(d);
    std::vector<std::string> names;
    for (DType x : w->dtypes()) names.push_back(std::string(dtype_name(x)));
    bool ok = t.has_value();
    if (ok) {
      ok = false;
      for (DType x : w->dtypes()) ok = ok || x == *t;
    }
    if (!ok) throw InputError(at + "dtype: '" + d + "' is not a dtype of " + b.workload + " (" + join(names) + ")");
    for (const auto& name : b.backends)
      if (!find_backend(name)->supports(b.workload, *t))
        throw InputError(at + "backends: '" + name + "' does not implement " + b.workload + " in " + d);
  }
  const auto names = w->param_names();
  const std::set<std::string> known(names.begin(), names.end());
  for (const auto& axis : b.axes) {
    if (!known.count(axis.name))
      throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name + ": " + b.workload +
                       " has no parameter '" + axis.name + "' (it takes " + join(names) + ")");
    const auto [lo, hi] = w->param_range(axis.name);
    for (auto v : axis.values)
      if (v < lo || v > hi)
        throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name + ": " + std::to_string(v) +
                         " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  for (const auto& [key, value] : b.check.shape)
    if (!known.count(key))
      throw InputError(at + "check.shape." + key + ": " + b.workload + " has no parameter '" + key + "'");
  for (const auto& p : names) {
    if (w->param_optional(p)) continue;
    bool found = false;
    for (const auto& axis : b.axes) found = found || axis.name == p;
    if (!found) throw InputError(at + "axes: parameter '" + p + "' of " + b.workload + " has no axis");
  }
}

}  // namespace

Params check_params(const suite::Bench& b, const Params& point) {
  Params p = point;
  for (const auto& [k, v] : b.check.shape) p[k] = v;
  for (const auto& axis : b.axes) {
    if (axis.expression.empty() || b.check.shape.count(axis.name)) continue;
    std::int64_t v = 0;
    try {
      v = suite::eval_expression(axis.expression, p);
    } catch (const InputError& e) {  // division by zero, overflow: where in the suite, and why
      throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name + " at the check shape: " + e.what());
    }
    if (v < 0) throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name +
                                " is " + std::to_string(v) + " at the check shape");
    p[axis.name] = v;
  }
  return p;
}

std::string point_key(const PlannedCase& pc) {
  return pc.bench->name + "/" + pc.point.dtype + "/" + params_string(pc.point.params);
}

std::vector<PlannedCase> shard_cases(std::vector<PlannedCase> planned, int index, int count) {
  if (count <= 1) return planned;
  // Whole points go to one shard (a point's backends are compared with each other), dealt
  // round-robin in plan order: deterministic for a given suite, whatever the host.
  std::vector<PlannedCase> mine;
  std::map<std::string, int> point_ordinal;
  for (auto& pc : planned) {
    const int ordinal = point_ordinal.emplace(point_key(pc), static_cast<int>(point_ordinal.size())).first->second;
    if (ordinal % count == index - 1) mine.push_back(std::move(pc));
  }
  return mine;
}

// A bound on one suite's plan (each case holds ~0.5 KB while planned; 1e7 took 5 GB).
constexpr std::size_t kMaxSuiteCases = 1000000;

std::vector<PlannedCase> plan_cases(const suite::Suite& s, const std::optional<std::string>& filter) {
  std::optional<std::regex> re;
  if (filter) {
    try {
      re.emplace(*filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw InputError("--filter '" + *filter + "': not a valid regular expression: " + e.what());
    }
  }
  std::vector<PlannedCase> cases;
  std::size_t planned = 0;  // points x backends, before --filter: a suite's size is its own
  for (const auto& b : s.benches) {
    validate_bench(b);
    const auto points = suite::expand_points(b);
    planned += points.size() * b.backends.size();
    if (planned > kMaxSuiteCases)
      throw InputError(b.pos.str() + ": bench '" + b.name + "': the suite reaches more than " + std::to_string(kMaxSuiteCases) +
                       " cases (points x backends over its benches)");
    const Workload* w = find_workload(b.workload);
    for (const auto& p : points) {
      try {
        w->make(p.params, *parse_dtype(p.dtype));  // sizes that overflow are input errors
      } catch (const InputError& e) {
        throw InputError(b.pos.str() + ": bench '" + b.name + "': " + e.what());
      }
      // Backends of one point are adjacent: they run interleaved, close in time.
      for (const auto& be : b.backends) {
        PlannedCase pc{&b, be, p, b.name + "/" + be + "/" + p.dtype + "/" + params_string(p.params)};
        if (re && !std::regex_search(pc.id, *re)) continue;
        cases.push_back(std::move(pc));
      }
    }
  }
  return cases;
}

void use_suite_python_path(const suite::Suite& s) {
  if (s.python_path.empty()) return;
  std::string value;
  for (const auto& dir : s.python_path) value += (value.empty() ? "" : ":") + dir;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) value += std::string(":") + old;
  ::setenv("PYTHONPATH", value.c_str(), 1);
}

}  // namespace assay::runner

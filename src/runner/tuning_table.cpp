#include "runner/tuning_table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "backends/backend.hpp"
#include "core/atomic_file.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/text_syntax.hpp"
#include "runner/tune_run.hpp"
#include "runner/worker.hpp"

namespace assay::runner {

std::string shape_class(const std::string& dtype, const Params& params) {
  std::string s = dtype + "/";
  bool first = true;
  for (const auto& [name, v] : params) {
    s += (first ? "" : ",") + name;
    first = false;
    if (v <= 1) {
      s += "=" + std::to_string(v);
    } else {
      int e = 0;
      while ((std::int64_t{2} << e) <= v) ++e;
      s += "~2^" + std::to_string(e);
    }
  }
  return s;
}

const TuningEntry* TuningTable::find(const std::string& b, const std::string& w, const std::string& dtype,
                                     const Params& params) const {
  if (b != applies_to || w != workload) return nullptr;
  const std::string c = shape_class(dtype, params);
  for (const auto& e : entries)
    if (e.shape_class == c) return &e;
  return nullptr;
}

std::string backend_family(const std::string& backend) { return backend.substr(0, backend.find('@')); }

std::optional<TuningTable> make_tuning_table(const TuneRunOutcome& t, std::string* why) {
  std::string fam;
  for (const auto& v : t.variants) {
    const std::string f = backend_family(v.backend);
    if (!fam.empty() && f != fam) {
      *why = "the variants run different backends (" + fam + ", " + f + "): no one backend's cases to re-route";
      return std::nullopt;
    }
    fam = f;
  }
  // Tuning a backend against its own default (the baseline is the family itself): a class none of
  // whose shapes the promotion found FASTER keeps the default, and gets no entry.
  const bool baseline_is_default = t.baseline == fam;
  TuningTable table;
  table.suite = t.suite;
  table.bench = t.bench;
  table.workload = t.workload;
  table.baseline = t.baseline;
  table.applies_to = fam;
  // Shapes by class, in the order first seen.
  std::vector<std::string> classes;
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < t.shape_points.size(); ++i) {
    const std::string c = shape_class(t.shape_points[i].first, t.shape_points[i].second);
    if (!members.count(c)) classes.push_back(c);
    members[c].push_back(i);
  }
  // The promotion's variant and its paired verdict per shape: the only speedups confirmed.
  const auto& p = t.result.promotion;
  const TuneVariant* chosen = nullptr;
  for (const auto& tv : t.variants)
    if (p && tv.name == p->variant && p->per_shape.size() == t.shapes.size()) chosen = &tv;
  const tune::VariantOutcome* measured = nullptr;
  for (const auto& v : t.result.variants)
    if (chosen && v.name == chosen->name && v.speedup.size() == t.shapes.size()) measured = &v;
  for (const auto& c : measured ? classes : std::vector<std::string>{}) {
    std::size_t faster = 0;
    double log_sum = 0;
    for (std::size_t i : members[c]) {
      faster += p->per_shape[i] == stats::Verdict::faster;
      log_sum += std::log(measured->speedup[i]);
    }
    const bool all_faster = faster == members[c].size();
    // Tuned against the backend itself, a class with no shape FASTER keeps the default.
    if (!(all_faster || (p->promoted && (!baseline_is_default || faster > 0)))) continue;
    TuningEntry e;
    e.shape_class = c;
    e.variant = chosen->name;
    e.backend = chosen->backend;
    e.env = chosen->env;
    e.speedup = std::exp(log_sum / static_cast<double>(members[c].size()));
    for (std::size_t i : members[c]) e.shapes.push_back(t.shapes[i]);
    table.entries.push_back(std::move(e));
  }
  if (table.entries.empty()) {
    *why = !p ? "no variant passed the drop rules into the elite"
              : "the promotion of " + p->variant + " found it FASTER on no whole class (" + p->why + ")";
    return std::nullopt;
  }
  return table;
}

std::string tuning_table_json(const TuningTable& t) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : t.entries)
    entries.push_back({{"class", e.shape_class}, {"variant", e.variant}, {"backend", e.backend}, {"env", e.env},
                       {"speedup", e.speedup}, {"shapes", e.shapes}});
  const nlohmann::json j = {{"schema", "assay.tuning"}, {"schema_version", 1},  {"suite", t.suite},
                            {"bench", t.bench},         {"workload", t.workload}, {"baseline", t.baseline},
                            {"applies_to", t.applies_to}, {"entries", entries}};
  return j.dump(1) + "\n";
}

namespace {

// A class as shape_class() writes it: a dtype, then name=0/1 (or any integer) or name~2^e,
// comma-separated. A loop, not a regex: a long class string overflowed std::regex's recursion.
bool is_shape_class(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || !parse_dtype(text.substr(0, slash))) return false;
  const std::string_view items = std::string_view(text).substr(slash + 1);
  if (items.empty()) return true;
  for (std::size_t at = 0;;) {
    const std::size_t comma = items.find(',', at);
    const std::string_view item = items.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    const std::size_t op = item.find_first_of("=~");
    if (op == std::string_view::npos || !is_identifier(item.substr(0, op))) return false;
    const std::string_view value = item.substr(op + 1);
    const bool ok = item[op] == '=' ? all_digits(value.starts_with('-') ? value.substr(1) : value)
                                    : value.starts_with("2^") && all_digits(value.substr(2));
    if (!ok) return false;
    if (comma == std::string_view::npos) return true;
    at = comma + 1;
  }
}

}  // namespace

TuningTable load_tuning_table(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  std::string field;
  const auto str = [&](const nlohmann::json& o, const char* key, const std::string& at) {
    field = at + key;
    if (!o.is_object() || !o.contains(key) || !o[key].is_string()) throw InputError(path + ": field '" + field + "' must be a string");
    return o[key].get<std::string>();
  };
  if (str(j, "schema", "$.") != "assay.tuning") throw InputError(path + ": field '$.schema' is not 'assay.tuning'");
  if (!j.contains("schema_version") || j["schema_version"] != 1)
    throw InputError(path + ": field '$.schema_version' must be 1");
  TuningTable t;
  t.suite = str(j, "suite", "$.");
  t.bench = str(j, "bench", "$.");
  t.workload = str(j, "workload", "$.");
  if (!find_workload(t.workload))
    throw InputError(path + ": field '$.workload' is '" + t.workload + "', which no workload here is (assay list)");
  t.baseline = str(j, "baseline", "$.");
  t.applies_to = str(j, "applies_to", "$.");
  if (!j.contains("entries") || !j["entries"].is_array()) throw InputError(path + ": field '$.entries' must be an array");
  for (std::size_t i = 0; i < j["entries"].size(); ++i) {
    const auto& o = j["entries"][i];
    const std::string at = "$.entries[" + std::to_string(i) + "].";
    TuningEntry e;
    e.shape_class = str(o, "class", at);
    if (!is_shape_class(e.shape_class))
      throw InputError(path + ": field '" + at + "class' is '" + e.shape_class +
                       "', not a shape class (e.g. f16/k~2^12,m~2^12,n~2^12)");
    for (const auto& prior : t.entries)
      if (prior.shape_class == e.shape_class)
        throw InputError(path + ": field '" + at + "class' '" + e.shape_class + "' has an entry already");
    e.variant = str(o, "variant", at);
    e.backend = str(o, "backend", at);
    if (!o.contains("env") || !o["env"].is_array()) throw InputError(path + ": field '" + at + "env' must be an array");
    for (const auto& x : o["env"]) {
      if (!x.is_string() || !is_env_setting(x.get<std::string>()))
        throw InputError(path + ": field '" + at + "env' must hold NAME=value strings (NAME: letters, digits, _)");
      e.env.push_back(x.get<std::string>());
    }
    if (!o.contains("speedup") || !o["speedup"].is_number()) throw InputError(path + ": field '" + at + "speedup' must be a number");
    e.speedup = o["speedup"].get<double>();
    if (!std::isfinite(e.speedup) || e.speedup <= 0)
      throw InputError(path + ": field '" + at + "speedup' must be a positive number");
    if (backend_family(e.backend) != t.applies_to)
      throw InputError(path + ": field '" + at + "backend' is '" + e.backend + "', not a backend of '" + t.applies_to + "'");
    if (!find_backend(e.backend))
      throw InputError(path + ": field '" + at + "backend' is '" + e.backend + "', which no backend here is (assay list)");
    t.entries.push_back(std::move(e));
  }
  return t;
}

}  // namespace assay::runner

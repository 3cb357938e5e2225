#include "backends/adapter_protocol.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace assay::adapter {

using nlohmann::json;

std::string case_json(const CaseRequest& r) {
  const auto tensor = [](const TensorFile& t) {
    return json{{"name", t.name}, {"path", t.path}, {"dtype", t.dtype}, {"shape", t.shape}};
  };
  json inputs = json::array();
  for (const auto& t : r.inputs) inputs.push_back(tensor(t));
  json fresh = json::array();
  for (const auto& t : r.fresh_inputs) fresh.push_back(tensor(t));
  const auto& m = r.measure;
  json j = {
      {"protocol", kProtocol},
      {"backend", r.backend},
      {"variant", r.variant},
      {"workload", r.workload},
      {"params", r.params},
      {"dtype", r.dtype},
      {"purpose", r.purpose},
      {"seed", r.seed},
      {"device", r.device},
      {"mode", m.mode},
      {"warmup", {{"calls", m.warmup_calls}, {"min_s", m.warmup_min_s}}},
      {"budget",
       {{"min_samples", m.min_samples}, {"max_samples", m.max_samples}, {"min_time_s", m.min_time_s},
        {"target_rel_ci", m.target_rel_ci}, {"timeout_s", m.timeout_s}}},
      // The precision policy every backend of a run is held to (and that assay's own follow).
      {"precision", {{"tf32", false}, {"reduced_precision_reduction", false}, {"fast_accum", false}}},
      {"inputs", inputs},
      {"output", tensor(r.output)},
  };
  if (!r.fresh_inputs.empty()) j["fresh_inputs"] = fresh;
  if (r.purpose == "profile") j["profile"] = {{"calls", m.profile_calls}};
  return j.dump() + "\n";
}

namespace {

// Counts top-level JSON values in `text` by scanning brackets outside strings, so that
// "several objects" is told apart from "not JSON".
int top_level_values(const std::string& text) {
  int depth = 0, count = 0;
  bool in_string = false, escape = false;
  for (char c : text) {
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') { if (depth++ == 0) ++count; }
    else if (c == '}' || c == ']') --depth;
  }
  return count;
}

std::string excerpt(const std::string& s) {
  std::string e = s.substr(0, 80);
  for (char& c : e)
    if (c == '\n' || c == '\r') c = ' ';
  return e + (s.size() > 80 ? "..." : "");
}

[[noreturn]] void bad(const std::string& what) { throw InternalError("adapter reply: " + what); }

}  // namespace

Reply parse_reply(const std::string& text, const std::string& purpose) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) bad("printed nothing on stdout");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error&) {
    if (top_level_values(text) > 1) bad("printed several JSON values; the protocol allows exactly one object");
    bad("not JSON: '" + excerpt(text) + "'");
  } catch (const json::exception& e) {  // a number out of range (1e400), ...
    bad(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) bad("must be one JSON object, got " + std::string(j.type_name()));
  Reply r;
  const auto str = [&](const char* key, bool required) -> std::string {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) bad(std::string("field '") + key + "' missing");
      return {};
    }
    if (!it->is_string()) bad(std::string("field '") + key + "' must be a string");
    return it->get<std::string>();
  };
  r.status = str("status", true);
  r.message = str("message", false);
  // A one-line reason (docs/adapters.md): line ends as spaces, at most 2000 bytes of it.
  for (char& c : r.message)
    if (c == '\n' || c == '\r') c = ' ';
  if (r.message.size() > 2000) r.message = r.message.substr(0, 2000) + " ... (" + std::to_string(r.message.size()) + " bytes)";
  if (r.status == "unavailable" || r.status == "error") {
    if (r.message.empty()) bad("field 'message' missing for status " + r.status);
    return r;
  }
  if (r.status != "ok") bad("field 'status' is '" + r.status + "' (ok, unavailable or error)");
  r.mode = str("mode", true);
  const auto numbers = [&](const char* key) {
    std::map<std::string, double> out;
    const auto it = j.find(key);
    if (it == j.end()) bad(std::string("field '") + key + "' missing");
    if (!it->is_object()) bad(std::string("field '") + key + "' must be an object");
    for (const auto& [k, v] : it->items()) {
      if (!v.is_number()) bad(std::string("field '") + key + "." + k + "' must be a number");
      out[k] = v.get<double>();
    }
    return out;
  };
  const auto samples = j.find("samples_ms");
  if (samples == j.end() || !samples->is_array()) bad("field 'samples_ms' missing or not an array");
  for (const auto& v : *samples) {
    if (!v.is_number()) bad("field 'samples_ms' holds a non-number");
    const double x = v.get<double>();
    // A results document holds samples in [1e-3, 1e15] ns: one outside made the worker's record
    // unreadable, reported as a crash.
    if (!std::isfinite(x) || !(x >= 1e-9 && x <= 1e9))
      bad("field 'samples_ms' holds " + v.dump() + "; a sample is a time in ms, in [1e-9, 1e9]");
    r.samples_ms.push_back(x);
  }
  r.throughput = numbers("throughput");
  const auto versions = j.find("versions");
  if (versions == j.end() || !versions->is_object()) bad("field 'versions' missing or not an object");
  for (const auto& [k, v] : versions->items()) r.versions[k] = v.is_string() ? v.get<std::string>() : v.dump();
  const auto peak = j.find("peak_memory_bytes");
  if (peak == j.end() || !peak->is_number()) bad("field 'peak_memory_bytes' missing or not a number");
  r.peak_memory_bytes = peak->get<double>();
  if (const auto fresh = j.find("fresh_inputs"); fresh != j.end()) {
    if (!fresh->is_boolean()) bad("field 'fresh_inputs' must be true or false");
    r.fresh_inputs = fresh->get<bool>();
  }
  if (purpose == "measure") {
    if (r.samples_ms.empty()) bad("field 'samples_ms' is empty; a measuring call must return samples");
    r.summary_ms = numbers("summary_ms");
    for (const char* k : {"mean", "p50", "p95", "min", "max"})
      if (!r.summary_ms.count(k)) bad(std::string("field 'summary_ms.") + k + "' missing");
  }
  return r;
}

}  // namespace assay::adapter

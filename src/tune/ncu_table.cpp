#include "tune/ncu_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace assay::tune {

namespace {

// One CSV record (RFC 4180 quoting, as ncu writes it) at `pos`, which moves past its line
// end. Throws on an unterminated quote.
std::vector<std::string> read_record(const std::string& text, std::size_t& pos, const std::string& where) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
        cells.back() += '"';
        ++pos;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c == '\n') {
      ++pos;
      break;
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  if (quoted) throw std::invalid_argument(where + ": a quoted cell is not closed");
  return cells;
}

// Base-unit factor of an ncu unit ("usecond" -> 1e3 in ns, "Kbyte" -> 1e3, "Mhz" -> 1e6);
// nullopt for an unknown unit (its value is not used).
std::optional<double> unit_scale(const std::string& unit) {
  static const std::map<std::string, double> scales = {
      {"", 1},          {"%", 1},          {"ns", 1},      {"nsecond", 1},  {"us", 1e3},    {"usecond", 1e3},
      {"ms", 1e6},      {"msecond", 1e6},  {"s", 1e9},     {"second", 1e9}, {"byte", 1},    {"Kbyte", 1e3},
      {"Mbyte", 1e6},   {"Gbyte", 1e9},    {"Tbyte", 1e12}, {"hz", 1},      {"Khz", 1e3},   {"Mhz", 1e6},
      {"Ghz", 1e9},     {"byte/s", 1},     {"Kbyte/s", 1e3}, {"Mbyte/s", 1e6}, {"Gbyte/s", 1e9}, {"Tbyte/s", 1e12},
      {"cycle", 1},     {"inst", 1},       {"warp", 1},    {"block", 1},    {"register/thread", 1},
      {"byte/block", 1}, {"Kbyte/block", 1e3}, {"thread", 1}, {"SM", 1},     {"pass", 1},    {"cluster", 1}};
  const auto it = scales.find(unit);
  if (it == scales.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<double> NcuRow::number(const std::string& metric) const {
  const auto it = values.find(metric);
  if (it == values.end()) return std::nullopt;
  std::string digits;
  for (char c : it->second)
    if (c != ',') digits += c;
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  // "n/a", text, and what strtod takes beyond ncu's decimal numbers: inf, nan, 1e999, hex.
  if (end == digits.c_str() || *end != '\0' || !std::isfinite(v) || digits.find_first_of("xX") != std::string::npos)
    return std::nullopt;
  const auto u = units.find(metric);
  const auto scale = unit_scale(u == units.end() ? std::string() : u->second);
  if (!scale) return std::nullopt;
  return v * *scale;
}

NcuTable parse_ncu_csv(const std::string& text, const std::string& origin) {
  NcuTable t;
  std::size_t pos = 0, line = 0;
  std::vector<std::string> header, units;
  while (pos < text.size()) {
    ++line;
    const std::string where = origin + ":" + std::to_string(line);
    if (text[pos] != '"') {  // a message line of ncu's own (or a blank one)
      const std::size_t end = text.find('\n', pos);
      const std::string msg = text.substr(pos, end - pos);  // to the end where there is no '\n'
      pos = end == std::string::npos ? text.size() : end + 1;
      // "==ERROR== text": the text (empty for a bare tag, as a truncated log ends).
      const auto after = [&msg](std::size_t n) { return msg.substr(std::min(msg.size(), n)); };
      if (msg.rfind("==ERROR==", 0) == 0) t.errors.push_back(after(10));
      if (msg.rfind("==WARNING==", 0) == 0) t.warnings.push_back(after(12));
      continue;
    }
    auto cells = read_record(text, pos, where);
    if (header.empty()) {
      if (cells.empty() || cells.front() != "ID")
        throw std::invalid_argument(where + ": expected ncu's header row (\"ID\",\"Process ID\",...)");
      header = std::move(cells);
      continue;
    }
    if (cells.size() != header.size())
      throw std::invalid_argument(where + ": " + std::to_string(cells.size()) + " cells where the header has " +
                                  std::to_string(header.size()));
    if (units.empty() && !cells.empty() && cells.front().empty()) {  // the units row
      units = std::move(cells);
      continue;
    }
    NcuRow row;
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string& h = header[i];
      if (h == "Kernel Name") row.kernel = cells[i];
      else if (h == "Grid Size") row.grid = cells[i];
      else if (h == "Block Size") row.block = cells[i];
      else if (h == "Process ID") row.process = std::strtoull(cells[i].c_str(), nullptr, 10);
      else if (h.find("__") != std::string::npos) {
        row.values[h] = cells[i];
        if (!units.empty() && !units[i].empty()) row.units[h] = units[i];
      }
    }
    if (row.kernel.empty()) throw std::invalid_argument(where + ": a row without a kernel name");
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> MetricTable::metric_list() const {
  std::vector<std::string> out;
  for (const std::string* m : {&duration, &sm_clock_hz, &compute_pct, &memory_pct, &dram_pct, &dram_read_bytes,
                               &dram_write_bytes, &dram_bytes_per_s, &l2_hit_pct, &tensor_pipe_pct,
                               &wgmma_instructions, &tensor_instructions, &occupancy_pct, &registers, &shared_static,
                               &shared_dynamic, &local_load_bytes, &local_store_bytes})
    if (!m->empty()) out.push_back(*m);
  out.push_back("regex:" + stalls);
  return out;
}

namespace {

// The names every architecture since Ampere shares; sm_90 adds the wgmma counter. Tensor pipe:
// every tensor instruction (HMMA, HGMMA, QGMMA) as % of the whole GPU's elapsed cycles, like the
// other speed-of-light figures, so that a kernel leaving SMs idle does not read as busy. The
// tensor instruction count (tensor_op_hmma) includes wgmma's: mma.sync's are the difference.
MetricTable ampere_family(std::string name) {
  MetricTable t;
  t.name = std::move(name);
  t.duration = "gpu__time_duration.sum";
  t.sm_clock_hz = "sm__cycles_elapsed.avg.per_second";
  t.compute_pct = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
  t.memory_pct = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
  t.dram_pct = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  t.dram_read_bytes = "dram__bytes_read.sum";
  t.dram_write_bytes = "dram__bytes_write.sum";
  t.dram_bytes_per_s = "dram__bytes.sum.per_second";
  t.l2_hit_pct = "lts__t_sector_hit_rate.pct";
  t.tensor_pipe_pct = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
  t.tensor_instructions = "sm__inst_executed_pipe_tensor_op_hmma.sum";
  t.occupancy_pct = "sm__warps_active.avg.pct_of_peak_sustained_active";
  t.registers = "launch__registers_per_thread";
  t.shared_static = "launch__shared_mem_per_block_static";
  t.shared_dynamic = "launch__shared_mem_per_block_dynamic";
  t.local_load_bytes = "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum";
  t.local_store_bytes = "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum";
  t.stalls = "smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio";
  return t;
}

const std::vector<std::pair<std::string, MetricTable>>& tables() {
  static const auto t = [] {
    std::vector<std::pair<std::string, MetricTable>> v;
    for (const char* cc : {"8.0", "8.6", "8.7", "8.9"}) v.emplace_back(cc, ampere_family("sm_" + std::string(cc).erase(1, 1)));
    MetricTable hopper = ampere_family("sm_90");
    hopper.wgmma_instructions = "sm__inst_executed_pipe_tensor_op_gmma.sum";
    v.emplace_back("9.0", hopper);
    return v;
  }();
  return t;
}

}  // namespace

const MetricTable* metric_table_for(const std::string& compute_capability) {
  for (const auto& [cc, t] : tables())
    if (cc == compute_capability) return &t;
  return nullptr;
}

std::string known_metric_tables() {
  std::string s;
  for (const auto& [cc, t] : tables()) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

std::string stall_reason(const std::string& metric) {
  const std::string pre = "smsp__average_warps_issue_stalled_", post = "_per_issue_active.ratio";
  if (metric.size() <= pre.size() + post.size() || metric.rfind(pre, 0) != 0 ||
      metric.compare(metric.size() - post.size(), post.size(), post) != 0)
    return {};
  return metric.substr(pre.size(), metric.size() - pre.size() - post.size());
}

}  // namespace assay::tune

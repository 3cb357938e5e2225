// Nsight Compute's raw page as CSV (`ncu --csv --page raw --print-units base`), read into rows
// of metric values, and the metric names assay asks for on each GPU architecture. Pure text
// handling: `assay profile` (runner/profile.cpp) runs ncu and hands the log here; CI tests it on
// recorded logs (tests/data/ncu/).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace assay::tune {

struct NcuRow {
  std::string kernel;  // "Kernel Name" as ncu demangles it
  std::string grid, block;
  std::uint64_t process = 0;
  std::map<std::string, std::string> values;  // metric -> the cell as written ("1,980,000", "n/a")
  std::map<std::string, std::string> units;   // metric -> its unit from the units row ("byte", "usecond")
  // The cell as a number in base units (ns, byte, hz, %): thousands separators dropped, a
  // prefixed unit scaled; nullopt when absent, not a number, or in a unit assay does not know.
  std::optional<double> number(const std::string& metric) const;
};

struct NcuTable {
  std::vector<NcuRow> rows;           // one per profiled kernel launch, in launch order
  std::vector<std::string> errors;    // ncu's ==ERROR== lines
  std::vector<std::string> warnings;  // its ==WARNING== lines
};

// Reads ncu's log: its ==PROF==/==WARNING==/==ERROR== lines, then (when a kernel was
// profiled) the header row starting with "ID", a row of units, and one row per launch. Throws
// std::invalid_argument naming `origin` and the line for a table that cannot be read (a row
// whose cell count differs from the header's, an unterminated quote).
NcuTable parse_ncu_csv(const std::string& text, const std::string& origin);

// The metric names of one architecture family, by what assay records. Every entry is one full
// ncu metric name (base, rollup, submetric), except `stalls`, a regex ncu expands itself.
struct MetricTable {
  std::string name;  // "sm_90"
  std::string duration, sm_clock_hz, compute_pct, memory_pct, dram_pct, dram_read_bytes, dram_write_bytes,
      dram_bytes_per_s, l2_hit_pct, tensor_pipe_pct, wgmma_instructions, tensor_instructions, occupancy_pct,
      registers, shared_static, shared_dynamic, local_load_bytes, local_store_bytes, stalls;
  // Where an architecture has no such counter (wgmma before sm_90), the entry is empty.
  std::vector<std::string> metric_list() const;  // for --metrics, stalls last (a regex: entry)
};

// The table for a compute capability ("9.0"); nullptr for an architecture assay has no table
// for. Known: sm_80, sm_86, sm_87, sm_89 (mma.sync only) and sm_90 (wgmma).
const MetricTable* metric_table_for(const std::string& compute_capability);
std::string known_metric_tables();  // "sm_80, sm_86, ..." for the error message

// ncu's name for a stall metric -> the reason ("smsp__average_warps_issue_stalled_barrier_
// per_issue_active.ratio" -> "barrier"); empty when the name is no stall metric.
std::string stall_reason(const std::string& metric);

}  // namespace assay::tune

#pragma once
#include <string>

#include "core/results.hpp"

namespace assay::report {

// Per bench and point: candidate time, baseline time, speedup, TFLOP/s; then the cases that
// are not ok, with their reasons. Markdown for humans (PR comments, job summaries).
std::string markdown_summary(const ResultsDocument& doc);

// An `assay profile` document (run mode "profile"): per case, each kernel's Nsight Compute
// figures, the roofline of one call and the bottleneck class with its advice.
// markdown_summary gives this for such a document.
std::string profile_markdown(const ResultsDocument& doc);

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, max SM clock 1980 MHz), driver ..., runtime ...".
std::string device_line(const RunRecord& run);

// The run's mode as reports show it: "cold", or "cold (L2 flush: clean)" when its cold cases had
// the clean flush ("... clean in N of M cold cases" when only some had it).
std::string mode_text(const ResultsDocument& doc);

// The same content as an aligned plain-text table for the terminal.
std::string terminal_table(const ResultsDocument& doc);

}  // namespace assay::report

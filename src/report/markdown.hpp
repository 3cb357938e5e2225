#pragma once
#include <string>

#include "core/results.hpp"

namespace assay::report {

// Per bench and point: candidate time, baseline time, speedup, TFLOP/s; then the cases that
// are not ok, with their reasons. Markdown for humans (PR comments, job summaries).
std::string markdown_summary(const ResultsDocument& doc);

// The same content as an aligned plain-text table for the terminal.
std::string terminal_table(const ResultsDocument& doc);

}  // namespace assay::report

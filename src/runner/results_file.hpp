#pragma once
// The results document of a run as it fills: named when the run starts, its cases kept in plan
// order whatever order they finish in, and the file rewritten (atomically) after every case
// that ran, so that a run that dies part-way leaves the cases it finished. Not thread-safe:
// the runner calls it under its lock.
#include <string>
#include <vector>

#include "core/results.hpp"

namespace assay::runner {

class ResultsFile {
 public:
  // `stem`: folder and name without extension; a suffix "-2", "-3", ... is added when a results
  // file of that name exists (two runs can finish in the same second).
  ResultsFile(const std::string& stem, std::size_t cases);
  const std::string& json_path() const { return json_path_; }
  const std::string& markdown_path() const { return markdown_path_; }

  // Stores case i's final record; rewrites the file with the finished cases when the case ran
  // (or once a file exists). `run` is the run's metadata so far.
  void finish(std::size_t i, CaseRecord rec, const RunRecord& run);
  // The whole document in plan order (every case finished).
  std::vector<CaseRecord>& cases() { return cases_; }

 private:
  std::string json_path_, markdown_path_;
  std::vector<CaseRecord> cases_;
  std::vector<bool> done_;
};

}  // namespace assay::runner

#pragma once
// The results document of a run as it fills: named and reserved before the first case runs,
// its cases kept in plan order whatever order they finish in, and the file rewritten
// (atomically) after every case, so that a run that dies part-way leaves a valid document with
// the cases it finished. Not thread-safe: the runner calls it under its lock.
#include <filesystem>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace assay::runner {

// Creates `out_dir` and reserves `<name>.json` there, or `<name>-2.json`, ... where taken, with
// `first` as its content: written whole to a temporary file, then linked to the first free name
// (link() fails on a taken name, so runs started together into one folder each get their own
// file, and one killed at any moment leaves no empty or half-written .json). A stem with a file
// of one of the `also_taken` suffixes (".md") is passed over too. Returns the stem; `created`
// (if given) gets the folders it made, deepest first. InputError (exit 3) naming --out for an
// empty or unusable folder; `what` says what the folder is for ("the results").
std::string reserve_first_free(const std::string& out_dir, const std::string& name, const std::string& first,
                               const std::string& what, const std::vector<std::string>& also_taken = {},
                               std::vector<std::filesystem::path>* created = nullptr);

class ResultsFile {
 public:
  // Creates `out_dir` and writes `<name>.json` there, or `<name>-2.json`, ... when taken
  // (created exclusively, so concurrent runs never share a file), holding the run's metadata
  // and no case yet: a valid document from the start. Throws InputError (exit 3) for an empty
  // or unusable folder.
  ResultsFile(const std::string& out_dir, const std::string& name, std::size_t cases, const RunRecord& run);
  const std::string& json_path() const { return json_path_; }
  const std::string& markdown_path() const { return markdown_path_; }

  // Stores case i's final record and rewrites the file with the finished cases.
  void finish(std::size_t i, CaseRecord rec, const RunRecord& run);
  // Removes the file (a run in which nothing could run leaves none).
  void discard();
  // The whole document in plan order (every case finished).
  std::vector<CaseRecord>& cases() { return cases_; }

 private:
  std::string json_path_, markdown_path_;
  std::vector<CaseRecord> cases_;
  std::vector<bool> done_;
  std::vector<std::filesystem::path> created_;  // folders this run made, deepest first
};

}  // namespace assay::runner

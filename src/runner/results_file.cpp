#include "runner/results_file.hpp"

#include <filesystem>

#include "core/atomic_file.hpp"

namespace assay::runner {

ResultsFile::ResultsFile(const std::string& stem, std::size_t cases) : cases_(cases), done_(cases, false) {
  std::string s = stem;
  for (int i = 2; std::filesystem::exists(s + ".json"); ++i) s = stem + "-" + std::to_string(i);
  json_path_ = s + ".json";
  markdown_path_ = s + ".md";
}

void ResultsFile::finish(std::size_t i, CaseRecord rec, const RunRecord& run) {
  const bool ran = rec.status != CaseStatus::skipped;
  cases_[i] = std::move(rec);
  done_[i] = true;
  if (!ran && !std::filesystem::exists(json_path_)) return;
  ResultsDocument partial;
  partial.run = run;
  for (std::size_t j = 0; j < cases_.size(); ++j)
    if (done_[j]) partial.cases.push_back(cases_[j]);
  write_file_atomically(json_path_, to_json_text(partial));
}

}  // namespace assay::runner

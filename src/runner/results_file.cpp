#include "runner/results_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace assay::runner {

namespace fs = std::filesystem;

std::string reserve_first_free(const std::string& out_dir, const std::string& name, const std::string& first,
                               const std::string& what, const std::vector<std::string>& also_taken,
                               std::vector<fs::path>* created) {
  if (out_dir.empty()) throw InputError("--out '': name a folder for " + what);
  std::error_code ec;
  if (created)  // the folders this call creates, deepest first
    for (fs::path p = fs::absolute(out_dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path())
      created->push_back(p);
  fs::create_directories(out_dir, ec);
  if (!fs::is_directory(out_dir))
    throw InputError("--out '" + out_dir + "': cannot create this folder" + (ec ? ": " + ec.message() : ""));
  const std::string stem = (fs::path(out_dir) / name).string();
  const std::string tmp = stem + ".json.tmp." + std::to_string(::getpid());
  try {
    write_file_atomically(tmp, first);
  } catch (const Error& e) {
    throw InputError("--out '" + out_dir + "': " + e.what());
  }
  for (int i = 1;; ++i) {
    const std::string s = i == 1 ? stem : stem + "-" + std::to_string(i);
    bool taken = false;
    for (const auto& suffix : also_taken) taken = taken || fs::exists(s + suffix, ec);
    if (!taken && ::link(tmp.c_str(), (s + ".json").c_str()) == 0) {
      ::unlink(tmp.c_str());
      return s;
    }
    if ((!taken && errno != EEXIST) || i > 10000) {
      const int err = taken ? EEXIST : errno;
      ::unlink(tmp.c_str());
      throw InputError("--out '" + out_dir + "': cannot create " + s + ".json: " + std::strerror(err));
    }
  }
}

ResultsFile::ResultsFile(const std::string& out_dir, const std::string& name, std::size_t cases, const RunRecord& run)
    : cases_(cases), done_(cases, false) {
  const std::string stem =
      reserve_first_free(out_dir, name, to_json_text(ResultsDocument{run, {}}), "the results", {}, &created_);
  json_path_ = stem + ".json";
  markdown_path_ = stem + ".md";
}

void ResultsFile::finish(std::size_t i, CaseRecord rec, const RunRecord& run) {
  cases_[i] = std::move(rec);
  done_[i] = true;
  ResultsDocument partial;
  partial.run = run;
  for (std::size_t j = 0; j < cases_.size(); ++j)
    if (done_[j]) partial.cases.push_back(cases_[j]);
  write_file_atomically(json_path_, to_json_text(partial));
}

void ResultsFile::discard() {
  std::error_code ec;
  fs::remove(json_path_, ec);
  for (const auto& dir : created_) fs::remove(dir, ec);  // only while empty: another run's files stay
}

}  // namespace assay::runner

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

ResultsFile::ResultsFile(const std::string& out_dir, const std::string& name, std::size_t cases)
    : cases_(cases), done_(cases, false) {
  if (out_dir.empty()) throw InputError("--out '': name a folder for the results");
  std::error_code ec;
  // The folders this run creates, deepest first: a run that leaves no file removes them again.
  for (fs::path p = fs::absolute(out_dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path())
    created_.push_back(p);
  fs::create_directories(out_dir, ec);
  if (!fs::is_directory(out_dir))
    throw InputError("--out '" + out_dir + "': cannot create this folder" + (ec ? ": " + ec.message() : ""));
  // The name is reserved by creating the file exclusively: runs started together into one
  // folder (in the same second, of the same suite and tag) each get their own.
  const std::string stem = (fs::path(out_dir) / name).string();
  for (int i = 1;; ++i) {
    const std::string s = i == 1 ? stem : stem + "-" + std::to_string(i);
    const int fd = ::open((s + ".json").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      json_path_ = s + ".json";
      markdown_path_ = s + ".md";
      return;
    }
    if (errno != EEXIST || i > 10000)
      throw InputError("--out '" + out_dir + "': cannot create " + s + ".json: " + std::strerror(errno));
  }
}

void ResultsFile::start(const RunRecord& run) {
  write_file_atomically(json_path_, to_json_text(ResultsDocument{run, {}}));
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

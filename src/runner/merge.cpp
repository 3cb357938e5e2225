#include "runner/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>

#include "core/error.hpp"
#include "runner/run_metadata.hpp"
#include "runner/runner.hpp"
#include "store/document_file.hpp"
#include "store/run_set.hpp"

namespace assay::runner {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, ResultsDocument>> load_documents(const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, ResultsDocument>> docs;
  for (const auto& in : inputs) {
    if (fs::is_directory(in)) {
      auto found = store::documents_in_folder(in);  // summaries of sessions skipped, as compare's folders
      if (found.empty()) throw InputError(in + ": no results file (*.json, *.json.xz) in this folder");
      std::move(found.begin(), found.end(), std::back_inserter(docs));
    } else if (!fs::exists(in)) {
      throw InputError(in + ": no such file or folder");
    } else if (!fs::is_regular_file(in)) {
      throw InputError(in + ": not a results file (a regular *.json or *.json.xz file) or a folder of them");
    } else if (auto doc = store::parse_document_or_summary(store::read_document_text(in), in)) {
      docs.emplace_back(in, std::move(*doc));
    } else {
      throw InputError(in + ": a sessions summary (schema " + store::kSessionsSchemaName +
                       "), not a results document; give the session documents it summarises");
    }
  }
  return docs;
}

ResultsDocument merge_documents(const std::vector<ResultsDocument>& docs, const std::vector<std::string>& origins,
                                const std::vector<std::string>& command_line) {
  if (docs.empty()) throw InputError("merge: no results documents to merge");
  ResultsDocument out;
  out.run = docs.front().run;
  std::map<std::string, std::string> seen;  // case id -> origin
  std::vector<std::string> shards;
  bool unfinished = false;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const auto& d = docs[i];
    if (d.run.suite_hash != out.run.suite_hash || d.run.suite_name != out.run.suite_name)
      throw InputError("merge: " + origins[i] + " is a run of suite '" + d.run.suite_name + "' (" + d.run.suite_hash +
                       "), " + origins[0] + " of '" + out.run.suite_name + "' (" + out.run.suite_hash +
                       "): results of different suites are not merged");
    if (d.run.device.name != out.run.device.name)
      throw InputError("merge: " + origins[i] + " ran on '" + d.run.device.name + "', " + origins[0] + " on '" +
                       out.run.device.name + "': shards of different GPU models are not one run");
    if (!d.run.shard.empty()) shards.push_back(d.run.shard);
    out.run.started_utc = std::min(out.run.started_utc, d.run.started_utc);
    // A shard that did not finish (interrupted: no finished_utc) leaves the merged run unfinished too.
    unfinished = unfinished || d.run.finished_utc.empty();
    out.run.finished_utc = unfinished ? "" : std::max(out.run.finished_utc, d.run.finished_utc);
    for (const auto& c : d.cases) {
      const auto [it, fresh] = seen.emplace(c.id, origins[i]);
      if (!fresh) throw InputError("merge: case '" + c.id + "' is in both " + it->second + " and " + origins[i]);
      out.cases.push_back(c);
    }
  }
  std::string list;
  for (const auto& s : shards) list += (list.empty() ? "" : ",") + s;
  out.run.shard = "merged";
  out.run.environment["merged_shards"] = list;
  out.run.environment["merged_files"] = std::to_string(docs.size());
  out.run.command_line = command_line;
  attach_baseline_ratios(out.cases);
  return out;
}

}  // namespace assay::runner

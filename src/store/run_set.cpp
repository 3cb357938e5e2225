#include "store/run_set.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "store/document_file.hpp"
#include "store/history_db.hpp"

namespace assay::store {
namespace fs = std::filesystem;

bool is_sessions_summary(const std::string& document_text) {
  // A schema of another type is no summary: the results parser then names the field (hostile input).
  const auto j = nlohmann::json::parse(document_text, nullptr, false);
  if (!j.is_object()) return false;
  const auto schema = j.find("schema");
  return schema != j.end() && schema->is_string() && schema->get<std::string>() == kSessionsSchemaName;
}

namespace {

// The results documents directly in `dir` (*.json, *.json.xz), in name order (the summary of
// --repeat skipped).
std::vector<ResultsDocument> documents_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && has_document_name(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<ResultsDocument> docs;
  // One session in two files would count twice in the comparison's noise model.
  std::map<std::string, std::string> seen;  // session_identity -> the first file with it
  for (const auto& f : files) {
    const std::string text = read_document_text(f);
    if (is_sessions_summary(text)) continue;
    docs.push_back(parse_results_json(text, f.string()));
    const auto [it, fresh] = seen.emplace(session_identity(docs.back()), f.string());
    if (!fresh)
      throw InputError(f.string() + " and " + it->second + " are the same session (identical documents); keep one of them in " +
                       dir.string());
  }
  return docs;
}

// A folder of results documents; or the --out folder of `assay run --repeat N`, which holds the
// sessions one level down, in the group's folder (<suite>-<tag>-<stamp>-xN).
RunSet from_folder(const std::string& argument) {
  RunSet set{argument, "", documents_in(argument)};
  std::string where = "folder " + argument;
  if (set.sessions.empty()) {
    std::vector<fs::path> groups;
    for (const auto& e : fs::directory_iterator(argument))
      if (e.is_directory() && !documents_in(e.path()).empty()) groups.push_back(e.path());
    std::sort(groups.begin(), groups.end());
    if (groups.empty())
      throw InputError(argument + ": no results documents (*.json, *.json.xz) in this folder or in a session folder inside it");
    if (groups.size() > 1) {
      std::string names;
      for (const auto& g : groups) names += (names.empty() ? "" : ", ") + g.filename().string();
      throw InputError(argument + ": holds " + std::to_string(groups.size()) + " session folders (" + names +
                       "); name the one to compare");
    }
    set.sessions = documents_in(groups.front());
    where = "folder " + groups.front().string();
  }
  set.origin = where + " (" + std::to_string(set.sessions.size()) + " session" + (set.sessions.size() == 1 ? ")" : "s)");
  return set;
}

RunSet from_history(const std::string& argument, const std::string& history_path) {
  if (fs::is_directory(history_path))
    throw InputError(argument + ": no such file or folder, and the history " + history_path +
                     " to look it up in as a tag or commit is a folder, not a database");
  if (!fs::exists(history_path))
    throw InputError(argument + ": no such file or folder, and no history database at " + history_path +
                     " to look it up as a tag or commit");
  HistoryDb db = HistoryDb::open_for_reading(history_path);
  RunSet set{argument, "", db.latest_group_tagged(argument)};
  std::string how = "tag '" + argument + "'";
  if (set.sessions.empty()) {
    set.sessions = db.latest_group_at_commit(argument);
    how = "commit " + argument;
  }
  if (set.sessions.empty())
    throw InputError(argument + ": no such file or folder, and no run in " + history_path +
                     " has this tag or a commit starting with it");
  set.origin = "history " + how + " (" + std::to_string(set.sessions.size()) + " session" +
               (set.sessions.size() == 1 ? ")" : "s)");
  return set;
}

}  // namespace

RunSet load_run_set(const std::string& argument, const std::string& history_path) {
  if (fs::is_directory(argument)) return from_folder(argument);
  if (fs::exists(argument) && !fs::is_regular_file(argument))
    throw InputError(argument + ": not a results file (a regular *.json or *.json.xz file) or a folder of them");
  if (fs::exists(argument))
    return {argument, "file " + argument, {parse_results_json(read_document_text(argument), argument)}};
  return from_history(argument, history_path);
}

}  // namespace assay::store

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

std::optional<ResultsDocument> parse_document_or_summary(const std::string& text, const std::string& origin) {
  try {
    return parse_results_json(text, origin);
  } catch (const InputError&) {
    // Parsed again only where the summary's schema name occurs at all: a hostile document (ten
    // million samples) must not be parsed whole a second time to learn it is no summary.
    if (text.find(kSessionsSchemaName) == std::string::npos) throw;
    const auto j = nlohmann::json::parse(text, nullptr, false);
    const auto schema = j.is_object() ? j.find("schema") : j.end();
    // A schema of another type is no summary: the parser's error, naming the field, stands.
    if (j.is_object() && schema != j.end() && schema->is_string() && schema->get<std::string>() == kSessionsSchemaName)
      return std::nullopt;
    throw;
  }
}

std::vector<std::pair<std::string, ResultsDocument>> documents_in_folder(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && has_document_name(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, ResultsDocument>> docs;
  for (const auto& f : files)
    if (auto doc = parse_document_or_summary(read_document_text(f), f.string())) docs.emplace_back(f.string(), std::move(*doc));
  return docs;
}

namespace {

// The results documents directly in `dir` (documents_in_folder), refusing one session in two files,
// which would count twice in the comparison's noise model.
std::vector<ResultsDocument> documents_in(const fs::path& dir) {
  std::vector<ResultsDocument> docs;
  std::map<std::string, std::string> seen;  // session_identity -> the first file with it
  for (auto& [path, doc] : documents_in_folder(dir)) {
    const auto [it, fresh] = seen.emplace(session_identity(doc), path);
    if (!fresh)
      throw InputError(path + " and " + it->second + " are the same session (identical documents); keep one of them in " +
                       dir.string());
    docs.push_back(std::move(doc));
  }
  return docs;
}

// A folder of results documents; or the --out folder of `assay run --repeat N`, which holds the
// sessions one level down, in the group's folder (<suite>-<tag>-<stamp>-xN).
RunSet from_folder(const std::string& argument) {
  RunSet set{argument, "", documents_in(argument)};
  std::string where = "folder " + argument;
  if (set.sessions.empty()) {
    std::vector<std::pair<fs::path, std::vector<ResultsDocument>>> groups;  // each read once
    for (const auto& e : fs::directory_iterator(argument))
      if (e.is_directory())
        if (auto docs = documents_in(e.path()); !docs.empty()) groups.emplace_back(e.path(), std::move(docs));
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (groups.empty())
      throw InputError(argument + ": no results documents (*.json, *.json.xz) in this folder or in a session folder inside it");
    if (groups.size() > 1) {
      std::string names;
      for (const auto& g : groups) names += (names.empty() ? "" : ", ") + g.first.filename().string();
      throw InputError(argument + ": holds " + std::to_string(groups.size()) + " session folders (" + names +
                       "); name the one to compare");
    }
    set.sessions = std::move(groups.front().second);
    where = "folder " + groups.front().first.string();
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

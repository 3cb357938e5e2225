// assay sessions: the combined summary of sessions of one suite that ran as separate commands,
// written exactly as `run --repeat N` writes it (sessions.json, sessions.md). For a protocol of
// N sessions that one command cannot hold (a job's time limit), or sessions run on one machine
// at different times: each document stays as its run wrote it.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/session_summary.hpp"
#include "runner/merge.hpp"
#include "runner/runner.hpp"
#include "store/document_file.hpp"

namespace assay::cli {

namespace fs = std::filesystem;

Action add_sessions_command(CLI::App& app) {
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto out_dir = std::make_shared<std::string>();
  app.add_option("inputs", *inputs, "results files, or folders of them, each one session of the same suite")->required();
  app.add_option("--out", *out_dir, "folder for sessions.json and sessions.md (its name is the group's)")->required();
  return [inputs, out_dir]() -> int {
    if (out_dir->empty()) throw InputError("--out '': name a folder for sessions.json and sessions.md");
    if (fs::exists(*out_dir) && !fs::is_directory(*out_dir))
      throw InputError("--out '" + *out_dir + "': exists and is not a folder");
    auto loaded = runner::load_documents(*inputs);
    if (loaded.size() < 2)
      throw InputError("sessions: " + std::to_string(loaded.size()) +
                       " results document given; a summary of sessions takes two or more");
    const auto& [first_origin, first] = loaded.front();
    std::map<std::string, std::string> seen;  // store::session_identity -> the first input with it
    for (const auto& [origin, doc] : loaded) {
      // The same session named twice (a file and its folder, or a copy) would count twice.
      const auto [it, fresh] = seen.emplace(store::session_identity(doc), origin);
      if (!fresh)
        throw InputError("sessions: " + origin + " and " + it->second + " are the same session (identical documents; host '" +
                         doc.run.host + "', started " + doc.run.started_utc + ")");
      if (!doc.run.shard.empty())
        throw InputError(origin + ": a shard (" + doc.run.shard + ") is part of a session, not one; merge the shards first (assay merge)");
      if (!doc.run.ab_pair.empty())
        throw InputError(origin + ": one side of an `assay ab` run, not a session of `assay run`");
      if (doc.run.suite_name != first.run.suite_name || doc.run.suite_hash != first.run.suite_hash)
        throw InputError("sessions: " + origin + " is a run of suite '" + doc.run.suite_name + "' (" + doc.run.suite_hash +
                         "), " + first_origin + " of '" + first.run.suite_name + "' (" + first.run.suite_hash +
                         "): sessions of different suites are not summarised together");
      if (doc.run.device.name != first.run.device.name)
        throw InputError("sessions: " + origin + " ran on '" + doc.run.device.name + "', " + first_origin + " on '" +
                         first.run.device.name + "': sessions of different devices are not summarised together");
    }
    // Session order is the order they ran in, whatever order they were named in.
    std::vector<std::size_t> order(loaded.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return loaded[a].second.run.started_utc < loaded[b].second.run.started_utc;
    });
    std::vector<ResultsDocument> docs;
    std::vector<std::string> paths;
    for (std::size_t i : order) {
      paths.push_back(loaded[i].first);
      docs.push_back(std::move(loaded[i].second));
      // The ratios against the baseline from each document's own samples, as its run derives them:
      // documents written before the ratio at one clock existed get it too.
      runner::attach_baseline_ratios(docs.back().cases);
    }
    const fs::path dir = fs::path(*out_dir).lexically_normal();
    const fs::path named = fs::absolute(dir).lexically_normal();  // "--out ." names the folder it is
    const std::string group_id = (named.filename().empty() ? named.parent_path() : named).filename().string();
    const report::SessionsSummary summary = report::summarize_sessions(group_id, docs, paths);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) throw InputError("--out '" + *out_dir + "': cannot create this folder" + (ec ? ": " + ec.message() : ""));
    write_file_atomically((dir / "sessions.json").string(), report::sessions_json(summary));
    write_file_atomically((dir / "sessions.md").string(), report::sessions_markdown(summary));
    std::cout << report::sessions_markdown(summary);
    std::cerr << "summarised " << docs.size() << " sessions, " << summary.cases.size()
              << " cases ok in at least one: " << (dir / "sessions.json").string() << "\n";
    return 0;
  };
}

}  // namespace assay::cli

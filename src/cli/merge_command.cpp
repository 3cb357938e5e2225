#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "report/markdown.hpp"
#include "runner/merge.hpp"
#include "runner/run_metadata.hpp"
#include "runner/runner.hpp"

namespace assay::cli {

Action add_merge_command(CLI::App& app, const std::vector<std::string>& argv) {
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto out_dir = std::make_shared<std::string>("assay-results");
  app.add_option("inputs", *inputs, "results files or folders of the shards of one suite")->required();
  app.add_option("--out", *out_dir, "folder for the merged results JSON and Markdown")->capture_default_str();
  return [inputs, out_dir, argv]() -> int {
    // The folder is checked before any file is read (docs/compare.md): a merge never ends at
    // the last step on an output it could have refused at the first.
    if (out_dir->empty()) throw InputError("--out '': name a folder for the merged results");
    if (std::filesystem::exists(*out_dir) && !std::filesystem::is_directory(*out_dir))
      throw InputError("--out '" + *out_dir + "': exists and is not a folder");
    std::vector<std::string> origins;
    std::vector<ResultsDocument> docs;
    for (auto& [origin, doc] : runner::load_documents(*inputs)) {
      origins.push_back(origin);
      docs.push_back(std::move(doc));
    }
    const ResultsDocument merged = runner::merge_documents(docs, origins, argv);
    const std::string base = *out_dir + "/" + (merged.run.suite_name.empty() ? "suite" : merged.run.suite_name) + "-" +
                             (merged.run.tag.empty() ? "untagged" : merged.run.tag) + "-merged-" +
                             runner::utc_now_compact();
    std::error_code ec;
    std::filesystem::create_directories(*out_dir, ec);
    if (!std::filesystem::is_directory(*out_dir))
      throw InputError("--out '" + *out_dir + "': cannot create this folder" + (ec ? ": " + ec.message() : ""));
    std::string stem = base;  // two merges in one second must not overwrite each other
    for (int i = 2; std::filesystem::exists(stem + ".json"); ++i) stem = base + "-" + std::to_string(i);
    write_file_atomically(stem + ".json", to_json_text(merged));
    write_file_atomically(stem + ".md", report::markdown_summary(merged));
    std::cerr << "merged " << docs.size() << " files, " << merged.cases.size() << " cases: " << stem << ".json\n";
    return static_cast<int>(runner::exit_code_for(merged.cases));
  };
}

}  // namespace assay::cli

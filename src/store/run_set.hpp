// One side of a comparison: the results documents (sessions) that a command-line argument
// names. The argument is a results file (JSON, or xz-compressed JSON as the records under
// bench/results), a folder of them (for instance the session folder of `assay run --repeat N`),
// or a tag or commit looked up in the history database.
#pragma once

#include <string>
#include <vector>

#include "core/results.hpp"
#include "store/document_file.hpp"  // kSessionsSchemaName, which folders skip

namespace assay::store {

struct RunSet {
  std::string label;   // the argument as given
  std::string origin;  // where the documents came from, for humans
  std::vector<ResultsDocument> sessions;
};

// Throws InputError (exit 3) with one line naming the argument when it cannot be resolved or a
// file is not a valid results document. Reads the history read-only.
RunSet load_run_set(const std::string& argument, const std::string& history_path);

}  // namespace assay::store

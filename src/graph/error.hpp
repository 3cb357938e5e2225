#pragma once
// A shape, dtype or device mismatch found while recording an op: bad input (exit code 3),
// raised at the line that recorded the op rather than when the graph is run.
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "graph/types.hpp"

namespace assay::graph {

class GraphError : public InputError {
 public:
  using InputError::InputError;
};

// Throws GraphError("<op>: <detail> (recorded at <site>)").
[[noreturn]] void fail(std::string_view op, const std::string& detail, const Site& site);

}  // namespace assay::graph

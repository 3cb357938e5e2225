#pragma once
// CUDA source for one fusion group (fusion.hpp): the group's elementwise chain evaluated per
// element of its widest shape F, each input read through its strided layout broadcast to F, every
// node's result rounded to its dtype as the CPU reference does; a closing reduction (sum, mean,
// max over any dims; softmax, log_softmax over one dim; layer_norm over trailing dims) is done
// by one thread block per output (or row), accumulating in fp32. The text is self-contained (no
// #include: NVRTC needs no headers) and is generated without CUDA, so it is tested on any host.
//
// The kernel's parameters are the group's inputs (device pointers already advanced by their
// layout's offset), in FusionGroup::inputs order, then the output (contiguous), then an L2
// prefetch for the next step: `const char* pf` and three `unsigned long long`s, rows, 128-byte
// lines a row and the rows' stride in bytes (0 rows: none).
#include <cstdint>
#include <string>
#include <vector>

#include "graph/fusion.hpp"
#include "graph/layout.hpp"

namespace assay::graph {

struct GeneratedKernel {
  std::string name;         // "fused_<key as 16 hex digits>", the extern "C" symbol
  std::string source;       // CUDA C++
  std::uint64_t key = 0;    // the cache key: FNV-1a of the group's signature and input layouts
  bool reduction = false;   // one block per output/row (else a grid-stride loop over elements)
  int block = 256;          // threads per block
  std::int64_t work = 0;    // elements (elementwise) or outputs/rows (reduction); 0: nothing to launch
};

// `inputs[i]` is the layout of group.inputs[i].
GeneratedKernel generate_kernel(const Graph& g, const FusionGroup& group, const std::vector<Layout>& inputs);

}  // namespace assay::graph

// `assay graph dump`: a named example graph before and after the passes, its fusion groups and
// its memory plan. Nothing is executed, so any size prints at once.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "graph/dump.hpp"
#include "graph/examples.hpp"
#include "graph/pipeline.hpp"

namespace assay::cli {

Action add_graph_command(CLI::App& app) {
  struct Flags {
    std::string example = "mlp";
    std::string dtype = "f32";
    graph::ExampleSize size;
  };
  auto flags = std::make_shared<Flags>();
  app.require_subcommand(1);
  auto* dump = app.add_subcommand("dump", "print an example graph before and after the passes, its fusion groups and memory plan");
  dump->add_option("--example", flags->example, "mlp, chain or block (default mlp)")
      ->check(CLI::IsMember(graph::example_names()));
  dump->add_option("--batch", flags->size.batch, "mlp, block: batch (default 64)")->check(CLI::Range(1, 1 << 20));
  dump->add_option("--hidden", flags->size.hidden, "mlp, block: hidden size (default 2048)")->check(CLI::Range(1, 1 << 20));
  dump->add_option("--seq", flags->size.seq, "block: tokens per sequence (default 16)")->check(CLI::Range(1, 1 << 20));
  dump->add_option("--heads", flags->size.heads, "block: attention heads (default 16)")->check(CLI::Range(1, 1024));
  dump->add_option("--n", flags->size.n, "chain: x is n x n (default 1000)")->check(CLI::Range(1, 1 << 20));
  dump->add_option("--dtype", flags->dtype, "f32, f16 or bf16 (default f32)")->check(CLI::IsMember({"f32", "f16", "bf16"}));
  return [flags, dump]() -> int {
    if (!dump->parsed()) return static_cast<int>(ExitCode::bad_input);
    flags->size.dtype = flags->dtype == "f16" ? graph::ElemType::f16 : flags->dtype == "bf16" ? graph::ElemType::bf16 : graph::ElemType::f32;
    std::cout << graph::dump_with_passes(graph::make_example(flags->example, flags->size), flags->example);
    return 0;
  };
}

}  // namespace assay::cli

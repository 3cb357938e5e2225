#include "graph/dump.hpp"

#include <cstdio>
#include <sstream>

#include "graph/pipeline.hpp"

namespace assay::graph {

namespace {

std::string dims_list(std::uint32_t mask) {
  std::string s;
  for (int d = 0; d < 32; ++d)
    if ((mask >> d) & 1) (s += (s.empty() ? "" : ",")) += std::to_string(d);
  return "[" + s + "]";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string attr_string(const Node& n) {
  const Attrs& a = n.attrs;
  std::string s;
  const auto put = [&](const std::string& x) { s += (s.empty() ? "" : ",") + x; };
  switch (n.op) {
    case OpKind::randn: put("seed=" + std::to_string(a.seed)); break;
    case OpKind::full: put("value=" + num(a.value)); break;
    case OpKind::constant: put("n=" + std::to_string(n.data ? n.data->size() : 0)); break;
    case OpKind::gelu: if (a.flags & kTanh) put("tanh"); break;
    case OpKind::cast: put(std::string("to=") + std::string(elem_name(a.to))); break;
    case OpKind::linear:
      if (a.flags & kHasBias) put("bias");
      if (a.flags & kRelu) put("relu");
      if (a.flags & kGelu) put((a.flags & kTanh) ? "gelu_tanh" : "gelu");
      break;
    case OpKind::attention:
      put("scale=" + num(a.value));
      if (a.flags & kCausal) put("causal");
      break;
    case OpKind::sum:
    case OpKind::mean:
    case OpKind::max:
      put("dims=" + dims_list(a.dims));
      if (a.flags & kKeepDim) put("keepdim");
      break;
    case OpKind::softmax:
    case OpKind::log_softmax: put("dim=" + dims_list(a.dims)); break;
    case OpKind::layer_norm:
      put("dims=" + dims_list(a.dims) + ",eps=" + num(a.value));
      if (a.flags & kHasWeight) put("weight");
      if (a.flags & kHasBias) put("bias");
      break;
    case OpKind::permute: {
      std::string p;
      for (int i = 0; i < n.shape.rank; ++i) (p += (i ? "," : "")) += std::to_string(a.ints[static_cast<std::size_t>(i)]);
      put("perm=[" + p + "]");
      break;
    }
    case OpKind::slice:
      put("dim=" + std::to_string(a.ints[0]) + "," + std::to_string(a.ints[1]) + ":" + std::to_string(a.ints[2]) + ":" +
          std::to_string(a.ints[3]));
      break;
    default: break;
  }
  return s.empty() ? s : "{" + s + "}";
}

std::string dump_program(const Program& p) {
  std::string out;
  for (NodeId i = 0; i < p.graph.size(); ++i) {
    const Node& n = p.graph.node(i);
    std::string line = "%";
    ((line += std::to_string(i)) += " = ") += std::string(op_name(n.op)) + attr_string(n) + "(";
    for (int j = 0; j < n.n_inputs; ++j) (line += (j ? ", %" : "%")) += std::to_string(n.inputs[static_cast<std::size_t>(j)]);
    line += ") -> " + std::string(elem_name(n.dtype)) + to_string(n.shape) + " " + p.graph.device_name(n.device) +
            "  @ " + to_string(n.site);
    out += line + "\n";
  }
  std::string outs;
  for (NodeId o : p.outputs) (outs += (outs.empty() ? "%" : ", %")) += std::to_string(o);
  return out + "outputs: " + outs + "\n";
}

std::string dump_fusion(const FusionPlan& f) {
  std::string out;
  for (std::size_t i = 0; i < f.groups.size(); ++i) {
    const FusionGroup& g = f.groups[i];
    std::string nodes;
    for (NodeId n : g.nodes) (nodes += (nodes.empty() ? "%" : " %")) += std::to_string(n);
    out += "group " + std::to_string(i) + " " + g.kernel_name() + " [" + nodes + "] " + g.signature + "\n";
  }
  return out;
}

std::string format_bytes(std::int64_t b) {
  char buf[32];
  if (b >= (1 << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / (1 << 20));
  else if (b >= (1 << 10)) std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(b) / (1 << 10));
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
  return buf;
}

std::string dump_memory(const MemoryPlan& m) {
  return "memory: " + std::to_string(m.buffer_bytes.size()) + " buffers, planned " + format_bytes(m.planned_bytes) +
         " (without reuse " + format_bytes(m.naive_bytes) + ", peak live " + format_bytes(m.peak_live_bytes) + ")\n";
}

std::string dump_with_passes(const Program& before, std::string_view title) {
  std::ostringstream o;
  o << "graph " << title << " before passes (" << before.graph.size() << " nodes):\n" << dump_program(before);
  const PipelineResult after = run_pipeline(before);
  o << "passes:\n";
  for (const auto& r : after.records)
    o << "  " << r.name << ": " << r.nodes_before << " -> " << r.nodes_after << " nodes, " << r.change << "\n";
  o << "graph " << title << " after passes (" << after.program.graph.size() << " nodes):\n"
    << dump_program(after.program) << "fusion groups (" << after.fusion.groups.size() << "):\n"
    << dump_fusion(after.fusion) << dump_memory(after.memory);
  return o.str();
}

}  // namespace assay::graph

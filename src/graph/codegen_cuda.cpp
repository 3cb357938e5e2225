// The fusion-group code generator (codegen_cuda.hpp).
#include "graph/codegen_cuda.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "core/ids.hpp"

namespace assay::graph {

namespace {

// Helpers every generated kernel carries: 16-bit conversions (round to nearest even, as core's),
// per-dtype rounding, and block reductions. Written with PTX and bit operations so that NVRTC
// needs no header.
constexpr const char* kPrelude = R"(typedef long long i64;
typedef unsigned short u16;
typedef unsigned char u8;
__device__ __forceinline__ float h2f(u16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ u16 f2h(float f) { u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float b2f(u16 b) { return __uint_as_float(((unsigned)b) << 16); }
__device__ __forceinline__ u16 f2b(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (u16)(u >> 16);
}
__device__ __forceinline__ float r_f32(float x) { return x; }
__device__ __forceinline__ float r_f16(float x) { return h2f(f2h(x)); }
__device__ __forceinline__ float r_bf16(float x) { return b2f(f2b(x)); }
__device__ __forceinline__ float r_i64(float x) { return truncf(x); }
__device__ __forceinline__ float r_bool(float x) { return x != 0.0f ? 1.0f : 0.0f; }
#define NAN_F __int_as_float(0x7fffffff)
#define INF_F __int_as_float(0x7f800000)
struct Sum { __device__ __forceinline__ float operator()(float a, float b) const { return a + b; } };
struct Max { __device__ __forceinline__ float operator()(float a, float b) const { return (a != a || b != b) ? NAN_F : fmaxf(a, b); } };
__device__ __forceinline__ float c_max(float a, float b) { return Max{}(a, b); }
template <class C>
__device__ __forceinline__ float block_reduce(float v, float ident, C comb) {
  __shared__ float part[32];
  for (int o = 16; o > 0; o >>= 1) v = comb(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (int)(threadIdx.x & 31) < (int)((blockDim.x + 31) >> 5) ? part[threadIdx.x & 31] : ident;
  for (int o = 16; o > 0; o >>= 1) v = comb(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
)";

const char* ctype(ElemType t) {
  switch (t) {
    case ElemType::f32: return "float";
    case ElemType::f16:
    case ElemType::bf16: return "u16";
    case ElemType::i64: return "i64";
    case ElemType::boolean: return "u8";
  }
  return "float";
}

std::string load(ElemType t, const std::string& expr) {
  switch (t) {
    case ElemType::f32: return expr;
    case ElemType::f16: return "h2f(" + expr + ")";
    case ElemType::bf16: return "b2f(" + expr + ")";
    case ElemType::i64:
    case ElemType::boolean: return "(float)(" + expr + ")";
  }
  return expr;
}

std::string store(ElemType t, const std::string& v) {
  switch (t) {
    case ElemType::f32: return v;
    case ElemType::f16: return "f2h(" + v + ")";
    case ElemType::bf16: return "f2b(" + v + ")";
    case ElemType::i64: return "(i64)(" + v + ")";
    case ElemType::boolean: return "(u8)(" + v + " != 0.0f)";
  }
  return v;
}

std::string rounder(ElemType t) { return std::string("r_") + std::string(elem_name(t)); }

std::string lit(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9ef", x);  // always a valid float literal ("1.000000000e+00f")
  return buf;
}

// sum over the given dims d of ((idx / div_d) % size_d) * mul_d, skipping size-1 dims and zero
// multipliers: a flat index decomposed over some dims of F and re-weighted.
struct Term {
  std::int64_t div, size, mul;
};
// The divisions and remainders are done in the kernel's index type (32-bit where the element
// count allows: several times cheaper), the weighted sum in 64 bits.
std::string index_expr(const std::string& idx, const std::vector<Term>& terms, bool narrow) {
  const std::string u = narrow ? "u" : "LL";
  std::string e;
  for (const Term& t : terms) {
    if (t.size == 1 || t.mul == 0) continue;
    std::string part = t.div == 1 ? idx : "(" + idx + " / " + std::to_string(t.div) + u + ")";
    part = "(i64)(" + part + " % " + std::to_string(t.size) + u + ")";
    if (t.mul != 1) part += " * " + std::to_string(t.mul) + "LL";
    (e += e.empty() ? "" : " + ") += part;
  }
  return e.empty() ? "0LL" : e;
}

// The type that moves `bytes` (2, 4, 8 or 16) in one access.
std::string vector_type(std::size_t bytes) {
  switch (bytes) {
    case 2: return "unsigned short";
    case 4: return "unsigned";
    case 8: return "uint2";
    default: return "uint4";
  }
}

std::string op_expr(const Node& n, const std::vector<std::string>& a) {
  switch (n.op) {
    case OpKind::add: return a[0] + " + " + a[1];
    case OpKind::sub: return a[0] + " - " + a[1];
    case OpKind::mul: return a[0] + " * " + a[1];
    case OpKind::div: return a[0] + " / " + a[1];
    case OpKind::neg: return "-" + a[0];
    case OpKind::exp: return "expf(" + a[0] + ")";
    case OpKind::log: return "logf(" + a[0] + ")";
    case OpKind::sqrt: return "sqrtf(" + a[0] + ")";
    case OpKind::relu: return "(" + a[0] + " != " + a[0] + " || " + a[0] + " > 0.0f) ? " + a[0] + " : 0.0f";
    case OpKind::sigmoid: return "1.0f / (1.0f + expf(-" + a[0] + "))";
    case OpKind::tanh: return "tanhf(" + a[0] + ")";
    case OpKind::gelu:
      if (n.attrs.flags & kTanh)
        return "0.5f * " + a[0] + " * (1.0f + tanhf(0.7978845608f * (" + a[0] + " + 0.044715f * " + a[0] + " * " + a[0] +
               " * " + a[0] + ")))";
      return "0.5f * " + a[0] + " * (1.0f + erff(" + a[0] + " * 0.70710678118f))";
    case OpKind::where: return a[0] + " != 0.0f ? " + a[1] + " : " + a[2];
    case OpKind::cast:
    case OpKind::expand: return a[0];
    default: throw InternalError("codegen: " + std::string(op_name(n.op)) + " is not elementwise");
  }
}

}  // namespace

GeneratedKernel generate_kernel(const Graph& g, const FusionGroup& grp, const std::vector<Layout>& inputs) {
  if (inputs.size() != grp.inputs.size()) throw InternalError("codegen: one layout per group input is needed");
  const Node& last = g.node(grp.output());
  const bool reduces = op_class(last.op) == OpClass::reduction;
  const std::size_t chain = grp.nodes.size() - (reduces ? 1 : 0);  // nodes evaluated per element
  // F: the widest shape, over which every element is evaluated.
  const Shape F = reduces ? (chain ? g.node(grp.nodes[chain - 1]).shape : g.node(last.inputs[0]).shape) : last.shape;
  std::array<std::int64_t, kMaxRank> fs{};  // F's row-major strides
  {
    std::int64_t st = 1;
    for (int d = F.rank - 1; d >= 0; --d) {
      fs[static_cast<std::size_t>(d)] = st;
      st *= F[d];
    }
  }
  GeneratedKernel k;
  std::string key_text = grp.signature;
  for (const Layout& l : inputs) key_text += "|" + l.str();
  k.key = fnv1a64(key_text);
  char name[40];
  std::snprintf(name, sizeof name, "fused_%016llx", static_cast<unsigned long long>(k.key));
  k.name = name;
  k.reduction = reduces;

  const auto local = [&](NodeId id) -> std::string {
    for (std::size_t i = 0; i < chain; ++i)
      if (grp.nodes[i] == id) return "t" + std::to_string(i);
    for (std::size_t i = 0; i < grp.inputs.size(); ++i)
      if (grp.inputs[i] == id) return "x" + std::to_string(i);
    throw InternalError("codegen: an operand is neither in the group nor one of its inputs");
  };
  // Each input's offset at flat index f of F, and its load.
  // 32-bit flat indices when every index fits (F's elements; the outputs are fewer).
  const bool narrow = F.numel() < (std::int64_t{1} << 31);
  std::string src = kPrelude;
  src += narrow ? "typedef unsigned ix;\n" : "typedef long long ix;\n";
  src += "\nextern \"C\" __global__ void __launch_bounds__(256) " + k.name + "(";
  for (std::size_t i = 0; i < grp.inputs.size(); ++i)
    src += std::string("const ") + ctype(g.node(grp.inputs[i]).dtype) + "* __restrict__ p" + std::to_string(i) + ", ";
  src += std::string(ctype(last.dtype)) +
         "* __restrict__ out, const char* __restrict__ pf, unsigned long long pf_rows, unsigned long long pf_row_lines,"
         " unsigned long long pf_row_stride) {\n";
  // An L2 prefetch for the next step (the executor passes one when the next step streams a large
  // operand this kernel does not write; else pf_rows = 0): the first pf_row_lines 128-byte lines
  // of pf_rows rows, pf_row_stride bytes apart. Issued before the wait, so it overlaps the previous
  // kernel's drain and this kernel's short run, when DRAM would otherwise idle. Normal eviction
  // priority: the lines must not outlive an L2 flush.
  // (At most a window of lines, under 2^32: 32-bit division.)
  src += "  {\n    const unsigned pf_n = (unsigned)(pf_rows * pf_row_lines), pf_per = (unsigned)pf_row_lines;\n"
         "    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < pf_n;"
         " i += (unsigned long long)gridDim.x * blockDim.x) {\n"
         "      const unsigned l = (unsigned)i;\n"
         "      asm volatile(\"prefetch.global.L2 [%0];\" :: \"l\"(pf + (unsigned long long)(l / pf_per) * pf_row_stride +"
         " (unsigned long long)(l % pf_per) * 128ull));\n    }\n  }\n";
  // Launched as a programmatic dependent of the kernel before it (sm_90): its blocks may start
  // while that kernel drains, and wait here until its memory is visible.
  src += "#if __CUDA_ARCH__ >= 900\n  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n#endif\n";
  // An elementwise kernel moves 16 bytes per load and store when its contiguous operands and
  // output allow (each thread then evaluates `vec` consecutive elements from registers).
  std::vector<char> identity(grp.inputs.size(), 0);
  std::size_t widest = elem_size(last.dtype);
  bool aligned = true;
  for (std::size_t i = 0; i < grp.inputs.size(); ++i) {
    identity[i] = inputs[i].contiguous() && inputs[i].shape == F;
    if (!identity[i]) continue;
    widest = std::max(widest, elem_size(g.node(grp.inputs[i]).dtype));
  }
  const std::int64_t vec = static_cast<std::int64_t>(16 / widest);
  for (std::size_t i = 0; i < grp.inputs.size(); ++i)
    if (identity[i]) aligned = aligned && (inputs[i].offset * static_cast<std::int64_t>(elem_size(g.node(grp.inputs[i]).dtype))) % 16 == 0;
  // A reduction over F's trailing dims reads each row contiguously: vectorised the same way when
  // the row length is a multiple of the vector.
  std::int64_t row_len = 1;
  bool trailing = reduces;
  if (reduces) {
    bool seen_kept = false;
    for (int d = F.rank - 1; d >= 0; --d) {
      if ((last.attrs.dims >> d) & 1) {
        trailing = trailing && !seen_kept;
        row_len *= F[d];
      } else {
        seen_kept = true;
      }
    }
  }
  const bool vectorise = vec >= 2 && aligned && (reduces ? trailing && row_len % vec == 0 : F.numel() % vec == 0);
  if (vectorise) src += "  ix f0 = 0;\n";
  for (std::size_t i = 0; i < grp.inputs.size(); ++i) {
    const auto rs = broadcast_read_strides(inputs[i], F);
    std::vector<Term> terms;
    for (int d = 0; d < F.rank; ++d) terms.push_back({fs[static_cast<std::size_t>(d)], F[d], rs[static_cast<std::size_t>(d)]});
    const std::string n = std::to_string(i);
    const ElemType t = g.node(grp.inputs[i]).dtype;
    std::string at;
    if (identity[i] && vectorise) {
      src += std::string("  __align__(16) ") + ctype(t) + " e" + n + "[" + std::to_string(vec) + "];\n";
      at = "e" + n + "[f - f0]";
    } else {
      at = "p" + n + "[" + (identity[i] ? std::string("f") : index_expr("f", terms, narrow)) + "]";
    }
    src += "  auto x" + n + " = [&](ix f) -> float { return " + load(t, at) + "; };\n";
  }
  // The chain at flat index f.
  src += "  auto val = [&](ix f) -> float {\n";
  std::string result;
  for (std::size_t i = 0; i < chain; ++i) {
    const Node& n = g.node(grp.nodes[i]);
    std::vector<std::string> a;
    for (int j = 0; j < n.n_inputs; ++j) {
      std::string v = local(n.inputs[static_cast<std::size_t>(j)]);
      a.push_back(v[0] == 'x' ? v + "(f)" : v);
    }
    src += "    const float t" + std::to_string(i) + " = " + rounder(n.dtype) + "(" + op_expr(n, a) + ");\n";
    result = "t" + std::to_string(i);
  }
  if (chain == 0) result = local(last.inputs[0]) + "(f)";
  src += "    return " + result + ";\n  };\n";

  if (!reduces && vectorise) {
    const auto vtype = [&](ElemType t) { return vector_type(static_cast<std::size_t>(vec) * elem_size(t)); };
    k.work = F.numel() / vec;
    k.block = 256;
    const std::string V = std::to_string(vec);
    src += "  for (ix v = (ix)blockIdx.x * blockDim.x + threadIdx.x; v < (ix)" + std::to_string(k.work) +
           "LL; v += (ix)gridDim.x * blockDim.x) {\n    f0 = v * " + V + "u;\n";
    for (std::size_t i = 0; i < grp.inputs.size(); ++i)
      if (identity[i]) {
        const std::string vt = vtype(g.node(grp.inputs[i]).dtype), n = std::to_string(i);
        src += "    *reinterpret_cast<" + vt + "*>(e" + n + ") = reinterpret_cast<const " + vt + "*>(p" + n + ")[v];\n";
      }
    src += std::string("    __align__(16) ") + ctype(last.dtype) + " o[" + V + "];\n";
    src += "#pragma unroll\n    for (int j = 0; j < " + V + "; ++j) o[j] = " + store(last.dtype, "val(f0 + j)") + ";\n";
    const std::string vo = vtype(last.dtype);
    src += "    reinterpret_cast<" + vo + "*>(out)[v] = *reinterpret_cast<const " + vo + "*>(o);\n  }\n}\n";
    k.source = std::move(src);
    return k;
  }
  if (!reduces) {
    k.work = F.numel();
    k.block = 256;
    src += "  for (ix f = (ix)blockIdx.x * blockDim.x + threadIdx.x; f < (ix)" + std::to_string(k.work) +
           "LL; f += (ix)gridDim.x * blockDim.x) out[f] = " + store(last.dtype, "val(f)") + ";\n}\n";
    k.source = std::move(src);
    return k;
  }

  // Kept and reduced dims of F: one block per output (kept index), threads over the reduced ones.
  std::uint32_t mask = last.attrs.dims;
  std::vector<int> kept, red;
  for (int d = 0; d < F.rank; ++d) ((mask >> d) & 1 ? red : kept).push_back(d);
  const auto weights = [&](const std::vector<int>& dims) {
    std::vector<Term> t;
    std::int64_t div = 1;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
      t.insert(t.begin(), Term{div, F[*it], fs[static_cast<std::size_t>(*it)]});
      div *= F[*it];
    }
    return std::make_pair(t, div);
  };
  const auto [kt, outputs] = weights(kept);
  const auto [rt, len] = weights(red);
  k.work = len == 0 && last.op != OpKind::sum && last.op != OpKind::mean ? 0 : outputs;
  int block = 32;
  while (block < 256 && block * (vectorise ? vec : 1) < len) block *= 2;
  k.block = block;
  const std::string R = "(ix)" + std::to_string(len) + "LL";
  src += "  for (ix o = blockIdx.x; o < (ix)" + std::to_string(outputs) + "LL; o += gridDim.x) {\n";
  src += "    const ix base = (ix)(" + index_expr("o", kt, narrow) + ");\n";
  const std::string at = "base + (ix)(" + index_expr("r", rt, narrow) + ")";
  const std::string V = std::to_string(vec);
  // Operands of the reduction node itself (layer_norm's weight and bias): read in every pass.
  std::vector<char> read_by_reduction(grp.inputs.size(), 0);
  for (int j = 1; j < last.n_inputs; ++j)
    for (std::size_t i = 0; i < grp.inputs.size(); ++i)
      if (grp.inputs[i] == last.inputs[static_cast<std::size_t>(j)]) read_by_reduction[i] = 1;
  const bool normalises = last.op == OpKind::softmax || last.op == OpKind::log_softmax || last.op == OpKind::layer_norm;
  // A normalisation reads each value three times. Vectorised, a thread's values of the row stay
  // in registers between the passes when they are few (the passes' loops are unrolled, so the
  // indices are constants); otherwise a row of at most kRowCache values is kept in shared memory
  // (each thread reads back only what it wrote, so no barrier). Shared memory is not used for
  // the vectorised form: its stride-`vec` pattern conflicts in the banks.
  const std::int64_t iters = vectorise ? (len + block * vec - 1) / (block * vec) : 0;
  const bool regs = normalises && vectorise && iters * vec <= 32;
  constexpr std::int64_t kRowCache = 8192;
  const bool shared = normalises && !vectorise && len <= kRowCache;
  const bool cache = regs || shared;
  // One pass over the row; `loads`: the pass reads the contiguous operands (not when it reads
  // the cached row back).
  // `write`: the body stores out[f] as `ov[j] = ...`, and the pass writes the vector at once.
  const auto loop = [&](const std::string& body, bool loads = true, bool write = false) {
    if (!vectorise)
      return "    for (ix r = threadIdx.x; r < " + R + "; r += blockDim.x) { const ix f = " + at + "; " + body + " }\n";
    std::string l = regs ? "#pragma unroll\n    for (int it = 0; it < " + std::to_string(iters) + "; ++it) {\n      const ix r0 = (threadIdx.x + it * " +
                               std::to_string(block) + "u) * " + V + "u;\n      if (r0 < " + R + ") {\n"
                         : "    for (ix r0 = threadIdx.x * " + V + "u; r0 < " + R + "; r0 += blockDim.x * " + V + "u) {\n      {\n";
    l += "      f0 = base + r0;\n";
    for (std::size_t i = 0; i < grp.inputs.size(); ++i)
      if (identity[i] && (loads || read_by_reduction[i])) {
        const std::string vt = vector_type(static_cast<std::size_t>(vec) * elem_size(g.node(grp.inputs[i]).dtype)), n = std::to_string(i);
        l += "      *reinterpret_cast<" + vt + "*>(e" + n + ") = reinterpret_cast<const " + vt + "*>(p" + n + ")[f0 / " + V + "u];\n";
      }
    const std::string vo = vector_type(static_cast<std::size_t>(vec) * elem_size(last.dtype));
    if (write) l += std::string("      __align__(16) ") + ctype(last.dtype) + " ov[" + V + "];\n";
    l += "#pragma unroll\n      for (int j = 0; j < " + V + "; ++j) { const ix r = r0 + j; const ix f = f0 + j; " + body + " }\n";
    if (write) l += "      reinterpret_cast<" + vo + "*>(out)[f0 / " + V + "u] = *reinterpret_cast<const " + vo + "*>(ov);\n";
    return l + "    }}\n";
  };
  // The normalisations' final store: element f, or slot j of the vector being written.
  const auto put = [&](const std::string& y) {
    return (vectorise ? std::string("ov[j] = ") : std::string("out[f] = ")) + store(last.dtype, rounder(last.dtype) + "(" + y + ")") + ";";
  };
  if (regs) src += "    float rv[" + std::to_string(iters * vec) + "];\n";
  if (shared) src += "    __shared__ float row[" + std::to_string(len) + "];\n";
  const std::string slot = regs ? "rv[it * " + V + " + j]" : "row[r]";
  const std::string first = cache ? "const float v = val(f); " + slot + " = v;" : "const float v = val(f);";
  const std::string again = cache ? slot : "val(f)";
  const std::string rd = rounder(last.dtype);
  switch (last.op) {
    case OpKind::sum:
    case OpKind::mean:
      src += "    float acc = 0.0f;\n" + loop("acc += val(f);");
      src += "    acc = block_reduce(acc, 0.0f, Sum{});\n";
      if (last.op == OpKind::mean) src += "    acc = acc / (float)" + std::to_string(len) + ";\n";
      src += "    if (threadIdx.x == 0) out[o] = " + store(last.dtype, rd + "(acc)") + ";\n";
      break;
    case OpKind::max:
      src += "    float acc = -INF_F;\n" + loop("acc = c_max(acc, val(f));");
      src += "    acc = block_reduce(acc, -INF_F, Max{});\n";
      src += "    if (threadIdx.x == 0) out[o] = " + store(last.dtype, rd + "(acc)") + ";\n";
      break;
    case OpKind::softmax:
    case OpKind::log_softmax: {
      src += "    float m = -INF_F;\n" + loop(first + " m = c_max(m, v);");
      src += "    m = block_reduce(m, -INF_F, Max{});\n";
      src += "    float z = 0.0f;\n" + loop("z += expf(" + again + " - m);", !cache);
      src += "    z = block_reduce(z, 0.0f, Sum{});\n";
      const std::string y = last.op == OpKind::softmax ? "expf(" + again + " - m) / z" : "(" + again + " - m) - logf(z)";
      src += loop(put(y), !cache, vectorise);
      break;
    }
    case OpKind::layer_norm: {
      src += "    float s = 0.0f;\n" + loop(first + " s += v;");
      src += "    const float mean = block_reduce(s, 0.0f, Sum{}) / (float)" + std::to_string(len) + ";\n";
      src += "    float q = 0.0f;\n" + loop("const float c = " + again + " - mean; q += c * c;", !cache);
      src += "    const float var = block_reduce(q, 0.0f, Sum{}) / (float)" + std::to_string(len) + ";\n";
      src += "    const float inv = 1.0f / sqrtf(var + " + lit(last.attrs.value) + ");\n";
      std::string y = "(" + again + " - mean) * inv";
      int next = 1;
      if (last.attrs.flags & kHasWeight) y = "(" + y + ") * " + local(last.inputs[static_cast<std::size_t>(next++)]) + "(f)";
      if (last.attrs.flags & kHasBias) y = "(" + y + ") + " + local(last.inputs[static_cast<std::size_t>(next)]) + "(f)";
      // The weight and bias are read by index; only the row itself is cached.
      src += loop(put(y), !cache, vectorise);
      break;
    }
    default: throw InternalError("codegen: unknown reduction " + std::string(op_name(last.op)));
  }
  src += "  }\n}\n";
  k.source = std::move(src);
  return k;
}

}  // namespace assay::graph

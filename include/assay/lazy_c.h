/* assay/lazy_c.h: the C API of assay's lazy-tensor graph engine (src/graph/, docs/lazy.md),
 * for front ends in other languages: python/assay_lazy loads libassay_lazy.so with ctypes, so
 * one build serves any Python and any PyTorch version.
 *
 * A graph is an opaque handle; a tensor is a node id in it (>= 0, opaque: the graph's serial and
 * the node's index, so an id of another graph is refused). Every recording call returns
 * the new node's id, or -1 on an error (a shape, dtype or device mismatch, a bad argument), whose
 * one-line message is then in assay_lazy_last_error() until the next call on this thread. No
 * call throws or aborts across this boundary: a freed or unknown graph handle, an id of another
 * graph and a null output buffer are errors too. Calls may come from several threads: the
 * library serialises them (one lock).
 *
 * dtype codes: 0 f32, 1 f16, 2 bf16, 3 i64, 4 bool. `site` is the recording site as text
 * ("model.py:12"): it appears in errors and dumps. Shapes and dims are int64/int arrays with
 * their length. */
#ifndef ASSAY_LAZY_C_H
#define ASSAY_LAZY_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct assay_lazy_graph assay_lazy_graph;

int assay_lazy_abi_version(void); /* 2: 1 + the executor choice and the GPU counters */
const char* assay_lazy_last_error(void);

assay_lazy_graph* assay_lazy_graph_new(void);
void assay_lazy_graph_free(assay_lazy_graph* g); /* NULL: nothing; a freed handle: the error is set */
int64_t assay_lazy_node_count(const assay_lazy_graph* g);

/* factories: kind is "randn" (value = seed, an integer in [0, 2^53]), "zeros", "ones", "full"
 * (value = the fill) */
int64_t assay_lazy_factory(assay_lazy_graph* g, const char* kind, const int64_t* shape, int rank, int dtype,
                           double value, const char* device, const char* site);
/* host values (row-major float64), rounded to dtype */
int64_t assay_lazy_from_host(assay_lazy_graph* g, const int64_t* shape, int rank, int dtype, const double* values,
                             const char* device, const char* site);

/* elementwise: op is add, sub, mul, div (b given) or neg, exp, log, sqrt, relu, sigmoid, tanh,
 * gelu, gelu_tanh (b = -1) */
int64_t assay_lazy_elementwise(assay_lazy_graph* g, const char* op, int64_t a, int64_t b, const char* site);
int64_t assay_lazy_where(assay_lazy_graph* g, int64_t cond, int64_t a, int64_t b, const char* site);
int64_t assay_lazy_cast(assay_lazy_graph* g, int64_t a, int dtype, const char* site);

/* linear algebra; bias = -1 for none; scale NaN for 1/sqrt(E) */
int64_t assay_lazy_matmul(assay_lazy_graph* g, int64_t a, int64_t b, const char* site);
int64_t assay_lazy_linear(assay_lazy_graph* g, int64_t x, int64_t weight, int64_t bias, const char* site);
int64_t assay_lazy_attention(assay_lazy_graph* g, int64_t q, int64_t k, int64_t v, int causal, double scale,
                             const char* site);

/* reductions: op is sum, mean, max; ndims = 0 reduces every dim */
int64_t assay_lazy_reduce(assay_lazy_graph* g, const char* op, int64_t a, const int* dims, int ndims, int keepdim,
                          const char* site);
/* op is softmax or log_softmax */
int64_t assay_lazy_softmax(assay_lazy_graph* g, const char* op, int64_t a, int dim, const char* site);
/* weight, bias = -1 for none */
int64_t assay_lazy_layer_norm(assay_lazy_graph* g, int64_t a, const int64_t* normalized_shape, int rank,
                              int64_t weight, int64_t bias, double eps, const char* site);

/* views */
int64_t assay_lazy_reshape(assay_lazy_graph* g, int64_t a, const int64_t* shape, int rank, const char* site);
int64_t assay_lazy_permute(assay_lazy_graph* g, int64_t a, const int* perm, int rank, const char* site);
int64_t assay_lazy_slice(assay_lazy_graph* g, int64_t a, int dim, int64_t start, int64_t end, int64_t step,
                         const char* site);
int64_t assay_lazy_expand(assay_lazy_graph* g, int64_t a, const int64_t* shape, int rank, const char* site);

/* what was recorded: rank (shape into `shape`, room for 8), dtype code, op name, inputs */
int assay_lazy_shape(const assay_lazy_graph* g, int64_t node, int64_t* shape);
int assay_lazy_dtype(const assay_lazy_graph* g, int64_t node);
const char* assay_lazy_op(const assay_lazy_graph* g, int64_t node);
int assay_lazy_inputs(const assay_lazy_graph* g, int64_t node, int64_t* inputs); /* count, room for 4 */

/* Runs the nodes `node` needs on the CPU reference executor and writes its numel values as
 * float32 (already rounded to the node's dtype). Returns 0, or -1 with the error set. */
int assay_lazy_materialize(assay_lazy_graph* g, int64_t node, float* out, int64_t numel);
/* How many times this graph was executed, and how many nodes those runs evaluated. */
int64_t assay_lazy_executions(const assay_lazy_graph* g);
int64_t assay_lazy_evaluated_nodes(const assay_lazy_graph* g);

/* The executor materialize runs, for the whole process: "cpu" (the reference), "gpu" (the GPU
 * executor: generated kernels, assay's GEMM and attention, CUDA graph replay; needs a library
 * built with CUDA and a device), or "auto" (the default: gpu where it can run, else cpu).
 * Returns 0, or -1 with the error set. assay_lazy_executor() names the one in use. */
int assay_lazy_set_executor(const char* name);
const char* assay_lazy_executor(void);
/* The GPU executor's counters, in this order: runs, CUDA graph replays, graphs captured,
 * generated-kernel launches, fixed-kernel launches (fills, copies), assay GEMM calls, assay
 * attention calls, cuBLAS calls, cuBLASLt calls, kernels compiled, bytes prefetched into L2 for the
 * step after a generated kernel (added last: a caller of an older count reads the others as
 * before). Writes at most n, returns how many there are, or -1 when the GPU executor is not in use. */
int assay_lazy_gpu_stats(int64_t* out, int n);

/* The program up to `node` before and after the passes (`assay graph dump`'s text). Writes at
 * most `size` bytes with a terminating NUL and returns the full length (call again with more
 * room when it is >= size), or -1. */
int64_t assay_lazy_dump(const assay_lazy_graph* g, int64_t node, char* buf, int64_t size);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

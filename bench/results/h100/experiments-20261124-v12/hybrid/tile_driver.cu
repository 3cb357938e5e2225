// v12 feasibility (2): 192x256 tiles (three consumers) against the 128x256 pair. Was: a 4096^3 f16/bf16 GEMM split between two concurrent launches, clusters of 4
// (30 fit: 120 SMs) over tile columns 0..14 and pairs (6, on the 12 SMs the quads leave) over
// column 15, against the pair kernel alone (66 pairs) and the quads alone. Cold: a 256 MB write
// before each timed launch. Times from events on the first stream around fork and join.
#include "kernels/gemm/hopper/hopper_gemm.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace assay::kernels::hopper;

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

__global__ void flush_kernel(int4* p, size_t n, int v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_int4(v, v, v, v);
}

template <typename T>
float to_f(T v) {
  return static_cast<float>(v);
}

template <Elem E>
struct Runner {
  using Out = typename Traits<E>::Out;
  int m, n, k;
  Out *a, *b, *c;
  cudaStream_t s1, s2;
  cudaEvent_t fork, join;
  void go(int v) {
    if (v == 0) CK((launch_tile<E, 128, 256, 2>(m, n, k, a, b, c, nullptr, nullptr, s1)));
    else if (v == 1) CK((launch_tile<E, 192, 256, 2>(m, n, k, a, b, c, nullptr, nullptr, s1)));
    else CK((launch_tile<E, 192, 256, 1>(m, n, k, a, b, c, nullptr, nullptr, s1)));
  }
};

template <Elem E>
void run(const char* name, int size, int iters) {
  using Out = typename Traits<E>::Out;
  Runner<E> r;
  r.m = r.n = r.k = size;
  const size_t elems = size_t(size) * size;
  std::vector<Out> ha(elems), hb(elems);
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : ha) x = Out(u(gen));
  for (auto& x : hb) x = Out(u(gen));
  CK(cudaMalloc(&r.a, elems * sizeof(Out)));
  CK(cudaMalloc(&r.b, elems * sizeof(Out)));
  CK(cudaMalloc(&r.c, elems * sizeof(Out)));
  CK(cudaMemcpy(r.a, ha.data(), elems * sizeof(Out), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(r.b, hb.data(), elems * sizeof(Out), cudaMemcpyHostToDevice));
  CK(cudaStreamCreateWithFlags(&r.s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&r.s2, cudaStreamNonBlocking));
  CK(cudaEventCreateWithFlags(&r.fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&r.join, cudaEventDisableTiming));
  const size_t flush_n = (256u << 20) / sizeof(int4);
  int4* flush;
  CK(cudaMalloc(&flush, flush_n * sizeof(int4)));

  // Correctness: each variant against an fp64 reference on 4096 sampled outputs.
  std::vector<int> rows(4096), cols(4096);
  std::uniform_int_distribution<int> pick(0, size - 1);
  for (int i = 0; i < 4096; ++i) rows[i] = pick(gen), cols[i] = pick(gen);
  std::vector<double> ref(4096);
  for (int i = 0; i < 4096; ++i) {
    double s = 0;
    for (int kk = 0; kk < size; ++kk)
      s += double(to_f(ha[size_t(rows[i]) * size + kk])) * double(to_f(hb[size_t(kk) * size + cols[i]]));
    ref[i] = s;
  }
  std::vector<Out> hc(elems);
  const char* names[] = {"128x256_c2", "192x256_c2", "192x256"};
  auto check = [&](int v) {
    const char* what = names[v];
    CK(cudaMemset(r.c, 0xff, elems * sizeof(Out)));  // NaNs: an unwritten tile fails
    r.go(v);
    CK(cudaStreamSynchronize(r.s1));
    CK(cudaMemcpy(hc.data(), r.c, elems * sizeof(Out), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < 4096; ++i) {
      const double got = to_f(hc[size_t(rows[i]) * size + cols[i]]);
      const double err = std::fabs(got - ref[i]) / (std::sqrt(double(size)) * 1.0);
      worst = std::isnan(got) ? 1e30 : std::max(worst, err);
    }
    size_t nans = 0;
    for (auto& x : hc) nans += std::isnan(to_f(x)) ? 1 : 0;
    std::printf("CHECK %s %s %d^3: worst |err|/sqrt(k) %.2e, NaN outputs %zu -> %s\n", name, what, size, worst, nans,
                worst < 2e-2 && nans == 0 ? "ok" : "FAIL");
  };
  check(0);
  check(1);
  check(2);

  // Timing, cold, variants interleaved.
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t[3];
  for (int it = 0; it < iters; ++it) {
    for (int v = 0; v < 3; ++v) {
      flush_kernel<<<264, 512, 0, r.s1>>>(flush, flush_n, it);
      CK(cudaEventRecord(e0, r.s1));
      r.go(v);
      CK(cudaEventRecord(e1, r.s1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t[v].push_back(ms * 1e3f);
    }
  }
  for (int v = 0; v < 3; ++v) {
    std::sort(t[v].begin(), t[v].end());
    std::printf("TIME %s %d^3 %-10s median %.2f us  p10 %.2f  p90 %.2f\n", name, size, names[v], t[v][t[v].size() / 2],
                t[v][t[v].size() / 10], t[v][t[v].size() * 9 / 10]);
  }
  std::fflush(stdout);
  cudaFree(r.a); cudaFree(r.b); cudaFree(r.c); cudaFree(flush);
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 100;
  for (int size : {4096, 3072, 8192}) {
    run<Elem::bf16>("bf16", size, size == 8192 ? iters / 4 : iters);
    run<Elem::f16>("f16", size, size == 8192 ? iters / 4 : iters);
  }
  return 0;
}

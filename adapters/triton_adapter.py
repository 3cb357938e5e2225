#!/usr/bin/env python3
"""assay adapter for a Triton matmul written for assay (protocol "assay.adapter/1"),
variant "matmul": a tiled, autotuned Triton kernel with fp32 accumulation, the output in the
input dtype, masked edges (any m, n, k >= 1) and an optional fused epilogue (bias add, then
exact-erf GELU):
  gemm  C = matmul(A, B)
  mlp   G = GELU(matmul(X, W1) + b1)   (one kernel, bias + GELU fused)
        Y = matmul(G, W2) + b2         (one kernel, bias fused)
f32 inputs use tl.dot(..., input_precision="ieee") (no TF32). attention is not supported.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assay_adapter as aa  # noqa: E402

VARIANTS = ["matmul"]
WORKLOADS = ["gemm", "mlp"]

_kernel = None


def build_kernel():
    """Defines the kernel (only once triton is known to import)."""
    import triton
    import triton.language as tl

    def cfg(bm, bn, bk, warps, stages, group=8):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": group},
                             num_warps=warps, num_stages=stages)

    configs = [
        cfg(128, 128, 64, 8, 3),
        cfg(128, 128, 32, 4, 4),
        cfg(128, 64, 32, 4, 4),
        cfg(64, 128, 32, 4, 4),
        cfg(64, 64, 32, 4, 4),
        cfg(32, 64, 32, 4, 3),
        cfg(16, 32, 32, 2, 2),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K", "HAS_BIAS", "GELU", "IEEE"])
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      HAS_BIAS: tl.constexpr, GELU: tl.constexpr, IEEE: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
        # grouped tile order, for L2 reuse of A's row panels
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BLOCK_M)
        num_n = tl.cdiv(N, BLOCK_N)
        group_size = GROUP_M * num_n
        group = pid // group_size
        first_m = group * GROUP_M
        rows = min(num_m - first_m, GROUP_M)
        pid_m = first_m + ((pid % group_size) % rows)
        pid_n = (pid % group_size) // rows

        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        m_ok = offs_m[:, None] < M
        n_ok = offs_n[None, :] < N

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - kk * BLOCK_K
            a = tl.load(a_ptrs, mask=m_ok & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & n_ok, other=0.0)
            if IEEE:
                acc = tl.dot(a, b, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk

        if HAS_BIAS:
            bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
            acc += bias.to(tl.float32)[None, :]
        if GELU:
            acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))

        c = acc.to(c_ptr.dtype.element_ty)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, c, mask=m_ok & n_ok)

    return matmul_kernel


def matmul(torch, a, b, bias=None, gelu=False):
    """C = epilogue(a·b [+ bias]) in a's dtype; a [M,K], b [K,N], bias [N]."""
    import triton

    M, K = a.shape
    K2, N = b.shape
    assert K == K2, "inner dimensions differ: %d vs %d" % (K, K2)
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    _kernel[grid](a, b, c, bias if bias is not None else c, M, N, K,
                  a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                  HAS_BIAS=bias is not None, GELU=bool(gelu), IEEE=a.dtype == torch.float32)
    return c


def run(case):
    global _kernel
    variant = case.get("variant") or "matmul"
    if variant not in VARIANTS:
        raise aa.Unavailable("unknown triton variant %r (known: %s)" % (variant, ", ".join(VARIANTS)))
    if case["workload"] not in WORKLOADS:
        raise aa.Unavailable("the triton adapter runs %s only, not %s" % (" and ".join(WORKLOADS), case["workload"]))
    aa.check_dtype(case)
    torch = aa.import_torch()
    try:
        import triton  # noqa: F401
        import triton.language  # noqa: F401
    except Exception as e:
        raise aa.Unavailable("triton is not importable: " + aa.error_message(e))
    device = aa.torch_device(case)
    settings = aa.apply_torch_precision(case)
    if case.get("precision", {}).get("tf32", False):
        raise aa.Unavailable("the triton adapter runs f32 with input_precision=ieee only (tf32 requested)")
    _kernel = build_kernel()

    inputs = aa.load_torch_inputs(case, device)
    if case["workload"] == "gemm":
        A, B = inputs["A"], inputs["B"]

        def call():
            return matmul(torch, A, B)
    else:
        X, W1, b1, W2, b2 = (inputs[n] for n in aa.INPUT_NAMES["mlp"])

        def call():
            G = matmul(torch, X, W1, bias=b1, gelu=True)
            return matmul(torch, G, W2, bias=b2)

    if case["purpose"] == "check":
        out, peak = aa.torch_check_call(call, device)
        samples = []
    elif case["purpose"] == "profile":
        out = aa.profile_calls(call, lambda: aa.torch_sync(device), case)
        samples, peak = [], 0
    else:
        samples, out, peak, _reason = aa.time_cold(call, case, device)
    aa.write_torch_output(case, out)

    versions = aa.torch_versions(device)
    versions["triton"] = triton.__version__
    versions.update(settings)
    versions["triton.f32_input_precision"] = "ieee"
    return aa.ok_reply(case, "cold", samples, peak_memory_bytes=peak, versions=versions)


if __name__ == "__main__":
    aa.main(run)

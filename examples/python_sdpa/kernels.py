"""Attention callables for assay's py:MODULE:FUNCTION backend (examples/python_sdpa/).

The call convention (adapters/torch_adapter.py): Q, K, V positional, [b, h, s, d] tensors on the
case's device in the case's dtype; causal=bool as a keyword; return O [b, h, s, d] in the same
dtype on the same device.

  sdpa          plain torch: Q·Kᵀ (in the input dtype on CUDA, f32 on the CPU), masked softmax in
                f32, P·V, cast back
  sdpa_triton   a Triton kernel (one program per (query block, batch·head), online softmax),
                only where triton imports and the tensors are on CUDA; elsewhere it falls
                back to sdpa
"""
import math

import torch


def sdpa(Q, K, V, causal=False):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    # On the CPU torch may lack 16-bit matmuls (and accumulates bf16 ones in bf16): f32 there.
    mm_dtype = Q.dtype if Q.is_cuda else torch.float32
    S = torch.matmul(Q.to(mm_dtype), K.to(mm_dtype).transpose(-2, -1)).float() * scale
    if causal:
        s, t = Q.shape[-2], K.shape[-2]
        S = S.masked_fill(torch.ones(s, t, dtype=torch.bool, device=Q.device).triu(1), float("-inf"))
    P = torch.softmax(S, dim=-1)
    return torch.matmul(P.to(mm_dtype), V.to(mm_dtype)).to(Q.dtype)


try:  # the Triton variant, only where triton is importable
    import triton
    import triton.language as tl
except Exception:  # noqa: BLE001 - any import failure means no Triton here
    triton = None


if triton is not None:
    @triton.jit
    def _attn_fwd(Q, K, V, O, s, scale, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  CAUSAL: tl.constexpr):
        pid_m = tl.program_id(0)
        bh = tl.program_id(1)
        base = bh * s * D
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, D)
        q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < s, other=0.0)
        m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, D], tl.float32)
        hi = tl.minimum(s, (pid_m + 1) * BLOCK_M) if CAUSAL else s
        for start in range(0, hi, BLOCK_N):
            offs_n = start + tl.arange(0, BLOCK_N)
            kv_mask = offs_n[:, None] < s
            k = tl.load(K + base + offs_n[:, None] * D + offs_d[None, :], mask=kv_mask, other=0.0)
            v = tl.load(V + base + offs_n[:, None] * D + offs_d[None, :], mask=kv_mask, other=0.0)
            qk = tl.dot(q, tl.trans(k)) * scale
            valid = offs_n[None, :] < s
            if CAUSAL:
                valid = valid & (offs_n[None, :] <= offs_m[:, None])
            qk = tl.where(valid, qk, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            alpha = tl.exp(m_i - m_new)
            p = tl.exp(qk - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
        acc = acc / l_i[:, None]
        tl.store(O + base + offs_m[:, None] * D + offs_d[None, :], acc.to(O.dtype.element_ty), mask=offs_m[:, None] < s)


def sdpa_triton(Q, K, V, causal=False):
    b, h, s, d = Q.shape
    if triton is None or not Q.is_cuda or d not in (16, 32, 64, 128) or Q.dtype == torch.float32:
        return sdpa(Q, K, V, causal=causal)
    O = torch.empty_like(Q)
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(s, BLOCK_M), b * h)
    _attn_fwd[grid](Q, K, V, O, s, 1.0 / math.sqrt(d), D=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=bool(causal))
    return O

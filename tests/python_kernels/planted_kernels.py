"""Planted Python callables for the py:MODULE:FUNCTION backend (tests/python_kernels/): one
correct attention (and gemm, mlp) and one of each kind of broken callable that assay must catch.
Every one computes in float32 and casts back, so it runs on any CPU torch."""
import torch

_calls = {"flaky": 0}
_cache = {}


def _attention(Q, K, V, causal):
    q, k, v = Q.float(), K.float(), V.float()
    S = torch.matmul(q, k.transpose(-2, -1)) / float(q.shape[-1]) ** 0.5
    if causal:
        s = q.shape[-2]
        S = S.masked_fill(torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.matmul(torch.softmax(S, dim=-1), v).to(Q.dtype)


def correct(Q, K, V, causal=False):
    return _attention(Q, K, V, causal)


class Kernels:
    """A dotted attribute: py:planted_kernels:Kernels.sdpa."""

    @staticmethod
    def sdpa(Q, K, V, causal=False):
        return _attention(Q, K, V, causal)


def with_out(Q, K, V, causal=False, out=None):
    """Fills the preallocated `out` completely and returns None."""
    out.copy_(_attention(Q, K, V, causal))


def partial_out(Q, K, V, causal=False, out=None):
    """Writes only the first half of the rows of `out`."""
    half = Q.shape[-2] // 2
    out[..., :half, :] = _attention(Q, K, V, causal)[..., :half, :]


def edge_wrong(Q, K, V, causal=False):
    """Right when s is a multiple of 16; the last (ragged) rows are wrong otherwise, as a tiled
    kernel that forgets its edge tile."""
    O = _attention(Q, K, V, causal)
    s = Q.shape[-2]
    if s % 16:
        O[..., s - s % 16:, :] = 0
    return O


def raises(Q, K, V, causal=False):
    raise ValueError("planted failure for head size %d" % Q.shape[-1])


def wrong_shape(Q, K, V, causal=False):
    return _attention(Q, K, V, causal)[..., :-1, :]


def wrong_dtype(Q, K, V, causal=False):
    return _attention(Q, K, V, causal).to(torch.float64)


def returns_list(Q, K, V, causal=False):
    return [_attention(Q, K, V, causal)]


def returns_none(Q, K, V, causal=False):
    _attention(Q, K, V, causal)


def infinite(Q, K, V, causal=False):
    """The same infinities on every call: deterministic, and wrong (check-failed)."""
    return torch.full_like(Q, float("inf"))


def flaky(Q, K, V, causal=False):
    """Wrong on every other call (the 2nd, 4th, ...)."""
    _calls["flaky"] += 1
    O = _attention(Q, K, V, causal)
    return O * 2 + 1 if _calls["flaky"] % 2 == 0 else O


def caching(Q, K, V, causal=False):
    """Returns its first result forever (caught only by the recheck on fresh inputs)."""
    if "O" not in _cache:
        _cache["O"] = _attention(Q, K, V, causal)
    return _cache["O"]


def segfaults(Q, K, V, causal=False):
    """Reads address 0, as a kernel that writes out of bounds: its process dies of SIGSEGV."""
    import ctypes
    ctypes.string_at(0)


def lazy(Q, K, V, causal=False, out=None):
    """Computes only into a poisoned (NaN) `out`, as before a checked call; a timed call finds its
    last result there and returns at once, faster than any CPU computes the attention."""
    if torch.isnan(out.view(-1)[0]):
        out.copy_(_attention(Q, K, V, causal))


def gemm(A, B):
    return torch.matmul(A.float(), B.float()).to(A.dtype)


def mlp(X, W1, b1, W2, b2):
    f = [t.float() for t in (X, W1, b1, W2, b2)]
    G = torch.nn.functional.gelu(torch.addmm(f[2], f[0], f[1]))
    return torch.addmm(f[4], G, f[3]).to(X.dtype)


not_callable = 42

"""The engine: libassay_lazy.so (include/assay/lazy_c.h) through ctypes, so that one build of the
C++ graph serves any Python and any PyTorch. Found at $ASSAY_LAZY_LIB, else beside this package
in a source tree (build/current/lib, build/release/lib) or an installed prefix (lib/)."""
import ctypes
import operator
import os

DTYPE_CODES = {"f32": 0, "f16": 1, "bf16": 2, "i64": 3, "bool": 4}
DTYPE_NAMES = {v: k for k, v in DTYPE_CODES.items()}


class LazyError(RuntimeError):
    """A shape, dtype or device mismatch (or a bad argument) found when an op was recorded."""


def _candidates():
    env = os.environ.get("ASSAY_LAZY_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.dirname(os.path.dirname(here))  # python/assay_lazy -> the source tree
    for build in ("current", "release", "ci", "cpu", "debug"):
        yield os.path.join(tree, "build", build, "lib", "libassay_lazy.so")
    # installed: <prefix>/share/assay/python/assay_lazy -> <prefix>/lib
    prefix = os.path.dirname(os.path.dirname(tree))
    yield os.path.join(prefix, "lib", "libassay_lazy.so")


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(path), path
        tried.append(path)
    raise ImportError("assay_lazy: libassay_lazy.so not found (build assay, or set ASSAY_LAZY_LIB); looked at: "
                      + ", ".join(tried))


lib, lib_path = _load()

_i64, _int, _dbl, _str = ctypes.c_int64, ctypes.c_int, ctypes.c_double, ctypes.c_char_p
_p = ctypes.c_void_p
_P64, _PINT = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int)
_SIGNATURES = {
    "assay_lazy_abi_version": (_int, []),
    "assay_lazy_last_error": (_str, []),
    "assay_lazy_graph_new": (_p, []),
    "assay_lazy_graph_free": (None, [_p]),
    "assay_lazy_node_count": (_i64, [_p]),
    "assay_lazy_factory": (_i64, [_p, _str, _P64, _int, _int, _dbl, _str, _str]),
    "assay_lazy_from_host": (_i64, [_p, _P64, _int, _int, ctypes.POINTER(ctypes.c_double), _str, _str]),
    "assay_lazy_elementwise": (_i64, [_p, _str, _i64, _i64, _str]),
    "assay_lazy_where": (_i64, [_p, _i64, _i64, _i64, _str]),
    "assay_lazy_cast": (_i64, [_p, _i64, _int, _str]),
    "assay_lazy_matmul": (_i64, [_p, _i64, _i64, _str]),
    "assay_lazy_linear": (_i64, [_p, _i64, _i64, _i64, _str]),
    "assay_lazy_attention": (_i64, [_p, _i64, _i64, _i64, _int, _dbl, _str]),
    "assay_lazy_reduce": (_i64, [_p, _str, _i64, _PINT, _int, _int, _str]),
    "assay_lazy_softmax": (_i64, [_p, _str, _i64, _int, _str]),
    "assay_lazy_layer_norm": (_i64, [_p, _i64, _P64, _int, _i64, _i64, _dbl, _str]),
    "assay_lazy_reshape": (_i64, [_p, _i64, _P64, _int, _str]),
    "assay_lazy_permute": (_i64, [_p, _i64, _PINT, _int, _str]),
    "assay_lazy_slice": (_i64, [_p, _i64, _int, _i64, _i64, _i64, _str]),
    "assay_lazy_expand": (_i64, [_p, _i64, _P64, _int, _str]),
    "assay_lazy_shape": (_int, [_p, _i64, _P64]),
    "assay_lazy_dtype": (_int, [_p, _i64]),
    "assay_lazy_op": (_str, [_p, _i64]),
    "assay_lazy_inputs": (_int, [_p, _i64, _P64]),
    "assay_lazy_materialize": (_int, [_p, _i64, ctypes.POINTER(ctypes.c_float), _i64]),
    "assay_lazy_executions": (_i64, [_p]),
    "assay_lazy_evaluated_nodes": (_i64, [_p]),
    "assay_lazy_dump": (_i64, [_p, _i64, ctypes.c_char_p, _i64]),
    "assay_lazy_set_executor": (_int, [_str]),
    "assay_lazy_executor": (_str, []),
    "assay_lazy_gpu_stats": (_int, [_P64, _int]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

if lib.assay_lazy_abi_version() != 2:
    raise ImportError("assay_lazy: %s has C API version %d; this package speaks 2" % (lib_path, lib.assay_lazy_abi_version()))

GPU_STATS = ("runs", "graph_replays", "captures", "generated_launches", "fixed_launches", "assay_gemm",
             "assay_attention", "cublas", "cublaslt", "kernels_compiled", "l2_prefetch_bytes")


def set_executor(name):
    """Which executor materialises: "cpu" (the reference), "gpu", or "auto" (gpu where it can run)."""
    if lib.assay_lazy_set_executor(_b(name)) != 0:
        raise _error()


def executor():
    """The executor in use: "gpu" or "cpu"."""
    return lib.assay_lazy_executor().decode()


def gpu_stats():
    """The GPU executor's counters (GPU_STATS), or None when the GPU executor is not in use."""
    out = (ctypes.c_int64 * len(GPU_STATS))()
    n = lib.assay_lazy_gpu_stats(out, len(GPU_STATS))
    if n < 0:
        return None
    return {name: out[i] for i, name in enumerate(GPU_STATS[:n])}


def index(value, bits=64, what="a size or index"):
    """An integer argument as PyTorch takes it (int, or what has __index__, such as a 0-d integer
    tensor), in the range of a C integer of `bits`: ctypes would wrap 2**32 to 0 and int() would
    truncate 3.9 to 3, silently."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("assay_lazy: %s must be an integer, not %s (%r)" % (what, type(value).__name__, value)) from None
    if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise OverflowError("assay_lazy: %s %d is out of range (a %d-bit integer)" % (what, v, bits))
    return v


def _i64s(values):
    values = [index(v) for v in values]
    return (ctypes.c_int64 * max(len(values), 1))(*values), len(values)


def _ints(values):
    values = [index(v, 32, "a dim") for v in values]
    return (ctypes.c_int * max(len(values), 1))(*values), len(values)


def _b(text):
    # surrogateescape: a file name that is not UTF-8 (a site "bad\xffname.py:3") still passes
    return None if text is None else str(text).encode("utf-8", "surrogateescape")


def _error():
    return LazyError(lib.assay_lazy_last_error().decode("utf-8", "replace"))


class Graph:
    """One recorded graph: node ids are handles into it."""

    def __init__(self):
        self._g = lib.assay_lazy_graph_new()
        if not self._g:
            raise MemoryError("assay_lazy: cannot create a graph")

    def __del__(self):
        g, self._g = getattr(self, "_g", None), None
        if g and lib is not None:
            lib.assay_lazy_graph_free(g)

    # A copy of a Graph would free the same C graph twice; a graph only grows, so it is its own copy.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError("assay_lazy: a lazy graph cannot be pickled (it lives in this process); pickle t.cpu()")

    @staticmethod
    def _check(node):
        if node < 0:
            raise _error()
        return node

    # recording
    def factory(self, kind, shape, dtype, value, device, site):
        s, r = _i64s(shape)
        return self._check(lib.assay_lazy_factory(self._g, _b(kind), s, r, DTYPE_CODES[dtype], float(value), _b(device), _b(site)))

    def from_host(self, shape, dtype, values, device, site):
        s, r = _i64s(shape)
        buf = (ctypes.c_double * max(len(values), 1))(*values)
        return self._check(lib.assay_lazy_from_host(self._g, s, r, DTYPE_CODES[dtype], buf, _b(device), _b(site)))

    def elementwise(self, op, a, b, site):
        return self._check(lib.assay_lazy_elementwise(self._g, _b(op), a, -1 if b is None else b, _b(site)))

    def where(self, c, a, b, site):
        return self._check(lib.assay_lazy_where(self._g, c, a, b, _b(site)))

    def cast(self, a, dtype, site):
        return self._check(lib.assay_lazy_cast(self._g, a, DTYPE_CODES[dtype], _b(site)))

    def matmul(self, a, b, site):
        return self._check(lib.assay_lazy_matmul(self._g, a, b, _b(site)))

    def linear(self, x, w, bias, site):
        return self._check(lib.assay_lazy_linear(self._g, x, w, -1 if bias is None else bias, _b(site)))

    def attention(self, q, k, v, causal, scale, site):
        return self._check(lib.assay_lazy_attention(self._g, q, k, v, int(bool(causal)),
                                                    float("nan") if scale is None else float(scale), _b(site)))

    def reduce(self, op, a, dims, keepdim, site):
        d, n = _ints(dims)
        return self._check(lib.assay_lazy_reduce(self._g, _b(op), a, d, n, int(bool(keepdim)), _b(site)))

    def softmax(self, op, a, dim, site):
        return self._check(lib.assay_lazy_softmax(self._g, _b(op), a, index(dim, 32, "a dim"), _b(site)))

    def layer_norm(self, a, normalized_shape, weight, bias, eps, site):
        s, r = _i64s(normalized_shape)
        return self._check(lib.assay_lazy_layer_norm(self._g, a, s, r, -1 if weight is None else weight,
                                                     -1 if bias is None else bias, float(eps), _b(site)))

    def reshape(self, a, shape, site):
        s, r = _i64s(shape)
        return self._check(lib.assay_lazy_reshape(self._g, a, s, r, _b(site)))

    def permute(self, a, perm, site):
        p, n = _ints(perm)
        return self._check(lib.assay_lazy_permute(self._g, a, p, n, _b(site)))

    def slice(self, a, dim, start, end, step, site):
        return self._check(lib.assay_lazy_slice(self._g, a, index(dim, 32, "a dim"), index(start, what="a slice start"),
                                                index(end, what="a slice end"), index(step, what="a slice step"),
                                                _b(site)))

    def expand(self, a, shape, site):
        s, r = _i64s(shape)
        return self._check(lib.assay_lazy_expand(self._g, a, s, r, _b(site)))

    # queries
    def node_count(self):
        return lib.assay_lazy_node_count(self._g)

    def shape(self, node):
        out = (ctypes.c_int64 * 8)()
        rank = self._check(lib.assay_lazy_shape(self._g, node, out))
        return tuple(out[i] for i in range(rank))

    def dtype(self, node):
        return DTYPE_NAMES[self._check(lib.assay_lazy_dtype(self._g, node))]

    def op(self, node):
        name = lib.assay_lazy_op(self._g, node)
        if name is None:
            raise _error()
        return name.decode()

    def inputs(self, node):
        out = (ctypes.c_int64 * 4)()
        n = self._check(lib.assay_lazy_inputs(self._g, node, out))
        return [out[i] for i in range(n)]

    def materialize(self, node, numel):
        try:
            out = (ctypes.c_float * max(numel, 1))()
        except (MemoryError, OverflowError):
            raise MemoryError("assay_lazy: no host memory for the %d values (%.3g GiB) of node %d"
                              % (numel, numel * 4 / 2**30, node)) from None
        if lib.assay_lazy_materialize(self._g, node, out, numel) != 0:
            raise _error()
        return out

    def executions(self):
        return lib.assay_lazy_executions(self._g)

    def evaluated_nodes(self):
        return lib.assay_lazy_evaluated_nodes(self._g)

    def dump(self, node):
        n = lib.assay_lazy_dump(self._g, node, None, 0)
        if n < 0:
            raise _error()
        buf = ctypes.create_string_buffer(n + 1)
        lib.assay_lazy_dump(self._g, node, buf, n + 1)
        return buf.value.decode("utf-8", "replace")

#!/usr/bin/env python3
"""The Python front end of the lazy engine (python/assay_lazy, issue 31 items 4 and 5) on the
executor in use (the CPU reference executor in CI; ASSAY_LAZY_EXECUTOR=gpu on a GPU machine): interception (lazy type, nothing run), graph building (node counts,
dependencies, no premature materialisation), errors at the recording line, correctness against
PyTorch eager for every op of the list, the chain relu(x @ x).sum() on 1000 x 1000 and its
known-value variants, the fallback policy, and the recording cost per op through Python.
Exit 77 when torch or the engine library is not there."""
import os
import sys
import time
import unittest

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: torch is not importable by %s" % sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
try:
    import assay_lazy
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)

DEV = "remote_accelerator:0"
HERE = os.path.basename(__file__)


def lazy(t):
    return t.to(DEV)


def runs():
    return assay_lazy.graph().executions()


class Executors(unittest.TestCase):
    def test_the_executor_is_named_and_a_bad_choice_is_an_error(self):
        self.assertIn(assay_lazy.executor(), ("cpu", "gpu"))
        with self.assertRaises(assay_lazy.LazyError):
            assay_lazy.set_executor("tpu")
        if not torch.cuda.is_available():  # no device here: asking for the GPU executor is an error
            with self.assertRaises(assay_lazy.LazyError):
                assay_lazy.set_executor("gpu")
            self.assertIsNone(assay_lazy.gpu_stats())


class Interception(unittest.TestCase):
    def test_factories_give_lazy_tensors_and_nothing_runs(self):
        before = runs()
        made = [torch.randn(2, 3, device=DEV), torch.zeros((4,), device=DEV), torch.ones([2, 2], device=DEV),
                torch.full((3,), 2.5, device=DEV), torch.empty(5, device=DEV, dtype=torch.float16),
                torch.tensor([[1.0, 2.0]], device=DEV), torch.arange(6.0).reshape(2, 3).to(DEV)]
        for t in made:
            self.assertIsInstance(t, assay_lazy.LazyTensor)
            self.assertEqual(t.device, DEV)
        self.assertEqual(made[0].shape, torch.Size([2, 3]))
        self.assertEqual(made[4].dtype, torch.float16)
        self.assertEqual(runs(), before)
        # torch itself is untouched where no lazy tensor or remote device is involved
        self.assertIsInstance(torch.randn(3) + 1, torch.Tensor)

    def test_factories_take_size_as_a_keyword_and_full_infers_its_dtype(self):
        self.assertEqual(torch.zeros(size=(2, 3), device=DEV).shape, torch.Size([2, 3]))
        self.assertEqual(torch.ones(size=[4], device=DEV).shape, torch.Size([4]))
        self.assertEqual(torch.randn(size=(2, 2), device=DEV).shape, torch.Size([2, 2]))
        self.assertEqual(torch.empty(size=(1, 5), device=DEV).shape, torch.Size([1, 5]))
        torch.testing.assert_close(torch.full(size=(2,), fill_value=1.5, device=DEV).cpu(), torch.full((2,), 1.5))
        # without dtype=, the fill value's kind gives it, as in PyTorch: int -> int64, bool -> bool
        for fill in (3, True, 2.5):
            torch.testing.assert_close(torch.full((2,), fill, device=DEV).cpu(), torch.full((2,), fill))
        self.assertEqual(torch.full((2,), 3, dtype=torch.float16, device=DEV).dtype, torch.float16)

    def test_to_takes_the_device_as_a_keyword_and_follows_another_tensor(self):
        h = torch.arange(4.0)
        x = h.to(device=DEV)
        self.assertIsInstance(x, assay_lazy.LazyTensor)
        torch.testing.assert_close(x.cpu(), h)
        self.assertIs(x.to(device=DEV), x)
        self.assertEqual(x.to(DEV, torch.float16).dtype, torch.float16)
        self.assertEqual(x.to(x.half()).dtype, torch.float16)  # a lazy other: its dtype, still lazy
        self.assertIsInstance(x.to(x.half()), assay_lazy.LazyTensor)
        on_host = x.to(torch.ones(1, dtype=torch.float16))  # a host other: its device (the host) and dtype
        self.assertNotIsInstance(on_host, assay_lazy.LazyTensor)
        torch.testing.assert_close(on_host, h.half())
        self.assertEqual(h.to(x.half()).dtype, torch.float16)  # a host tensor to a lazy other's device and dtype
        self.assertEqual(x.type_as(x.half()).dtype, torch.float16)

    def test_graph_building_records_nodes_and_their_inputs(self):
        x = torch.randn(8, 8, device=DEV)
        n0, before = assay_lazy.graph().node_count(), runs()
        y = torch.relu(x @ x).sum()
        self.assertEqual(assay_lazy.graph().node_count(), n0 + 3)
        self.assertEqual(y.op, "sum")
        relu = y.inputs()[0]
        self.assertEqual(assay_lazy.graph().op(relu), "relu")
        mm = assay_lazy.graph().inputs(relu)[0]
        self.assertEqual(assay_lazy.graph().op(mm), "matmul")
        self.assertEqual(assay_lazy.graph().inputs(mm), [x.node, x.node])
        self.assertEqual(runs(), before)  # no premature materialisation

    def test_materialising_runs_once_and_keeps_the_values(self):
        x = torch.randn(16, 16, device=DEV)
        y = x
        for _ in range(20):
            y = torch.tanh(y * 0.5 + 0.1)
        before = runs()
        v = y.sum().item()
        self.assertEqual(runs(), before + 1)
        s = y.sum()
        s.item()
        s.item()
        self.assertEqual(runs(), before + 2)  # the new sum ran once, then its values were kept
        self.assertTrue(abs(v) < 16 * 16)

    def test_printing_executes(self):
        x = torch.ones(2, device=DEV) * 3
        before = runs()
        text = repr(x)
        self.assertIn("LazyTensor(tensor([3., 3.])", text)
        self.assertEqual(runs(), before + 1)

    def test_dump_shows_the_passes(self):
        x = torch.randn(4, 4, device=DEV)
        text = (x @ x + x @ x).dump()
        self.assertIn("before passes", text)
        self.assertIn("after passes", text)
        self.assertIn("cse", text)


class RecordTimeErrors(unittest.TestCase):
    def test_a_shape_mismatch_names_the_op_the_shapes_and_this_line(self):
        a, b = torch.randn(2, 3, device=DEV), torch.randn(4, device=DEV)
        before = runs()
        with self.assertRaises(assay_lazy.LazyError) as e:
            a + b  # noqa: B018
        line = sys._getframe().f_lineno - 1
        msg = str(e.exception)
        self.assertIn("add", msg)
        self.assertIn("[2,3]", msg)
        self.assertIn("%s:%d" % (HERE, line), msg)
        with self.assertRaises(assay_lazy.LazyError) as e:
            torch.randn(2, 3, device=DEV) @ torch.randn(4, 5, device=DEV)
        self.assertIn("matmul", str(e.exception))
        with self.assertRaises(assay_lazy.LazyError):
            torch.randn(2, device=DEV) + torch.randn(2, device=DEV, dtype=torch.float16)  # no implicit promotion
        self.assertEqual(runs(), before)

    def test_an_unsupported_op_is_named_or_runs_eagerly_and_is_counted(self):
        x_host = torch.randn(5, 3)
        x = lazy(x_host)
        with self.assertRaises(NotImplementedError) as e:
            torch.cumsum(x, 0)
        self.assertIn("torch.cumsum", str(e.exception))
        self.assertIn(HERE, str(e.exception))
        assay_lazy.set_fallback("eager")
        try:
            y = torch.cumsum(x, 0) * 2
            torch.testing.assert_close(y.cpu(), torch.cumsum(x_host, 0) * 2)
            self.assertGreaterEqual(assay_lazy.report().get("torch.cumsum", 0), 1)
        finally:
            assay_lazy.set_fallback("error")


class Refusals(unittest.TestCase):
    """What lazy tensors cannot record is an error naming the torch op at the recording line (or,
    where the fallback policy allows, an eager run), never a silently different result."""

    def setUp(self):
        assay_lazy.set_fallback("error")

    def tearDown(self):
        assay_lazy.set_fallback("error")

    def test_mm_and_bmm_need_their_exact_ranks(self):
        for fn, a, b in ((torch.mm, (2, 3, 4), (4, 5)), (torch.mm, (3,), (3, 4)), (torch.bmm, (1, 3, 4), (2, 4, 5)),
                         (torch.bmm, (3, 4), (4, 5)), (torch.bmm, (2, 3, 4), (2, 5, 6))):
            with self.assertRaises(RuntimeError):  # eager refuses them too
                fn(torch.ones(a), torch.ones(b))
            with self.assertRaises(assay_lazy.LazyError) as e:
                fn(torch.ones(a, device=DEV), torch.ones(b, device=DEV))
            line = sys._getframe().f_lineno - 1
            self.assertIn(fn.__name__ + ": ", str(e.exception))
            self.assertIn("%s:%d" % (HERE, line), str(e.exception))

    def test_in_place_ops_and_out_are_refused_with_either_policy(self):
        for policy in ("error", "eager"):
            assay_lazy.set_fallback(policy)
            a = torch.ones(2, device=DEV)
            b = a
            for stmt, name in ((lambda: a.__iadd__(1), "__iadd__ (+="), (lambda: a.__isub__(1), "__isub__ (-="),
                               (lambda: a.__imul__(2), "__imul__ (*="), (lambda: a.__itruediv__(2), "(/="),
                               (lambda: a.add_(1), "torch.Tensor.add_"), (lambda: a.__setitem__(0, 1.0), "__setitem__"),
                               (lambda: torch.relu_(a), "torch.relu_"), (lambda: F.relu(a, inplace=True), "relu"),
                               (lambda: F.relu(a, True), "relu"),
                               (lambda: torch.add(a, a, out=torch.zeros(2, device=DEV)), "torch.add (with out=)"),
                               (lambda: torch.cumsum(a, 0, out=torch.zeros(2, device=DEV)), "torch.cumsum")):
                with self.assertRaises(NotImplementedError) as e:
                    stmt()
                self.assertIn(name, str(e.exception))
                self.assertIn("in place", str(e.exception))
            with self.assertRaises(NotImplementedError):
                a += 1  # the statement itself: `a` is not rebound, `b` is not left behind
            self.assertIs(a, b)
            torch.testing.assert_close(b.cpu(), torch.ones(2))
        self.assertNotIn("torch.Tensor.add_", assay_lazy.report())

    def test_unexpected_arguments_name_the_torch_op(self):
        x = torch.ones(2, 3, device=DEV)
        torch.testing.assert_close(x.sum(axis=0).cpu(), torch.full((3,), 2.0))  # NumPy's name, as torch takes it
        with self.assertRaises(NotImplementedError) as e:
            x.sum(bogus=0)
        self.assertIn("torch.Tensor.sum", str(e.exception))
        self.assertIn("bogus", str(e.exception))
        self.assertNotIn("_sum()", str(e.exception))
        with self.assertRaises(NotImplementedError) as e:
            torch.mul(x, 2, out=torch.zeros(2, 3, device=DEV))
        self.assertIn("torch.mul", str(e.exception))

    def test_unknown_tensor_methods_follow_the_fallback_policy(self):
        h = torch.tensor([-1.0, 0.25, 2.0])
        x = lazy(h)
        for call, name in ((lambda: x.clamp(0, 0.5), "torch.Tensor.clamp"), (lambda: x.double(), "torch.Tensor.double"),
                           (lambda: x.cumsum(0), "torch.Tensor.cumsum")):
            with self.assertRaises(NotImplementedError) as e:
                call()
            self.assertIn(name, str(e.exception))
            self.assertIn(HERE, str(e.exception))
        self.assertTrue(hasattr(x, "clamp"))
        self.assertFalse(hasattr(x, "requires_grad"))  # not a method: still an AttributeError
        self.assertFalse(hasattr(x, "_not_there"))
        assay_lazy.set_fallback("eager")
        before = assay_lazy.report().get("torch.Tensor.clamp", 0)
        y = x.clamp(0, 0.5) * 2
        self.assertIsInstance(y, assay_lazy.LazyTensor)
        torch.testing.assert_close(y.cpu(), h.clamp(0, 0.5) * 2)
        self.assertEqual(assay_lazy.report()["torch.Tensor.clamp"], before + 1)
        with self.assertRaises(TypeError):  # its float64 result has no lazy form: named, not converted
            x.double()

    def test_views_check_their_dims_like_eager(self):
        x = torch.ones(2, 3, 4, device=DEV)
        with self.assertRaises(assay_lazy.LazyError) as e:
            x.t()
        self.assertIn("t: ", str(e.exception))
        for call in (lambda: x.unsqueeze(5), lambda: x.unsqueeze(-5), lambda: x.transpose(0, 3), lambda: x.squeeze(3)):
            with self.assertRaises(IndexError):
                call()
        self.assertEqual(x.unsqueeze(3).shape, torch.Size([2, 3, 4, 1]))
        self.assertEqual(x.unsqueeze(-1).shape, torch.Size([2, 3, 4, 1]))

    def test_max_of_two_tensors_is_named_as_the_elementwise_maximum(self):
        a, b = torch.tensor([1.0, 5.0]), torch.tensor([3.0, 2.0])
        with self.assertRaises(NotImplementedError) as e:
            torch.max(lazy(a), lazy(b))
        self.assertIn("elementwise", str(e.exception))
        self.assertNotIn("with a dim", str(e.exception))
        with self.assertRaises(NotImplementedError) as e:
            torch.max(lazy(a), 0)
        self.assertIn("with a dim", str(e.exception))
        assay_lazy.set_fallback("eager")
        torch.testing.assert_close(torch.max(lazy(a), lazy(b)).cpu(), torch.max(a, b))


class AgainstEager(unittest.TestCase):
    """Each op on lazy tensors made from host values equals PyTorch eager on those values."""

    def setUp(self):
        torch.manual_seed(1)

    def check(self, fn, *host, atol=1e-5, rtol=1e-5):
        want = fn(*host)
        got = fn(*[lazy(h) for h in host])
        self.assertIsInstance(got, assay_lazy.LazyTensor, fn)
        torch.testing.assert_close(got.cpu(), want, atol=atol, rtol=rtol)

    def test_elementwise_with_broadcasting_and_scalars(self):
        a, b, c = torch.randn(3, 4), torch.randn(4), torch.rand(3, 1) + 0.5
        self.check(lambda x, y: x + y, a, b)
        self.check(lambda x, y: x - y * 2.0, a, b)
        self.check(lambda x, y: 1.5 - x / y, a, c)
        self.check(lambda x, y: torch.add(x, y, alpha=3), a, b)
        self.check(lambda x: 2.0 / (x * x + 1), a)
        self.check(lambda x: -x, a)
        self.check(lambda x: torch.exp(x) + torch.log(x * x + 1) + torch.sqrt(x * x), a)
        self.check(lambda x: F.relu(x) + torch.sigmoid(x) + torch.tanh(x), a)
        self.check(lambda x: F.gelu(x), a)
        self.check(lambda x: F.gelu(x, approximate="tanh"), a)
        mask = torch.rand(3, 4) > 0.5
        self.check(lambda m, x, y: torch.where(m, x, y), mask, a, torch.randn(3, 4))

    def test_casts(self):
        a = torch.randn(5, 7)
        self.check(lambda x: x.half().float(), a)
        self.check(lambda x: x.to(torch.bfloat16).to(torch.float32), a)
        self.check(lambda x: x.half() * 2, a, atol=1e-3, rtol=1e-3)

    def test_softmax_takes_a_positional_dtype(self):
        a = torch.randn(3, 5).half()
        self.check(lambda x: torch.softmax(x, -1, torch.float32), a)
        self.check(lambda x: torch.log_softmax(x, 1, torch.float32), a)
        self.check(lambda x: x.softmax(-1, torch.float32), a)
        self.check(lambda x: x.log_softmax(-1, torch.float32), a)
        self.check(lambda x: F.softmax(x, -1, 3, torch.float32), a)  # F's third is _stacklevel
        self.check(lambda x: F.log_softmax(x, -1, dtype=torch.float32), a)

    def test_where_promotes_python_numbers_as_torch_does(self):
        m = torch.tensor([True, False, True])
        self.check(lambda c: torch.where(c, 0.0, 1.0), m)  # two floats: the default float dtype
        self.check(lambda c: torch.where(c, 0, 1), m)  # two ints: int64
        self.check(lambda c: torch.where(c, True, False), m)
        self.check(lambda c, x: torch.where(c, x, 0.5), m, torch.tensor([1, 2, 3]))  # int64 tensor, float: float
        self.check(lambda c, x: torch.where(c, 2, x), m, torch.tensor([False, True, True]))  # bool tensor, int: int64
        self.check(lambda c, x: torch.where(c, x, 0.5), m, torch.randn(3).half())  # same kind: the tensor's dtype
        self.check(lambda c, x, y: x.where(c, y), m, torch.randn(3), torch.randn(3))

    def test_bool_indices(self):
        a = torch.randn(2, 3)
        for index in (True, False, (0, True), (True, 0), (slice(None), False), (Ellipsis, True), (True, Ellipsis, 0),
                      (None, True)):
            self.check(lambda x: x[index] + 0, a)
        with self.assertRaises(NotImplementedError):
            lazy(a)[True, True]  # more than one bool: one dim for all of them in torch
        self.check(lambda x: x[True] + 0, torch.tensor(2.0))
        self.check(lambda x: x[False] + 0, torch.tensor(2.0))

    def test_a_host_first_operand(self):
        x, w, b = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3)
        torch.testing.assert_close(F.linear(x, lazy(w)).cpu(), F.linear(x, w), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(F.linear(x, w, lazy(b)).cpu(), F.linear(x, w, b), atol=1e-5, rtol=1e-5)
        n = torch.randn(4)
        torch.testing.assert_close(F.layer_norm(x, (4,), lazy(n)).cpu(), F.layer_norm(x, (4,), n), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(torch.mm(x, lazy(w).t()).cpu(), x @ w.t(), atol=1e-5, rtol=1e-5)

    def test_zero_d_views(self):
        s = torch.tensor(3.0)
        self.check(lambda x: x.transpose(0, -1) + 0, s)
        self.check(lambda x: x.squeeze(0) + 0, s)
        self.check(lambda x: x.squeeze(-1) + 0, s)
        self.check(lambda x: x.t() + 0, s)
        self.check(lambda x: x.unsqueeze(-1) + 0, s)

    def test_linear_algebra(self):
        self.check(lambda x, y: x @ y, torch.randn(5, 7), torch.randn(7, 3))
        self.check(lambda x, y: torch.matmul(x, y), torch.randn(2, 1, 5, 7), torch.randn(3, 7, 4))
        self.check(lambda x, y: torch.bmm(x, y), torch.randn(2, 5, 7), torch.randn(2, 7, 3))
        self.check(lambda x, w, b: F.linear(x, w, b), torch.randn(4, 6), torch.randn(3, 6), torch.randn(3))
        self.check(lambda x, w: F.linear(x, w), torch.randn(2, 4, 6), torch.randn(3, 6))

    def test_attention(self):
        q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 4)

        def eager(q, k, v, causal):
            s = q @ k.transpose(-1, -2) / 8 ** 0.5
            if causal:
                s = s.masked_fill(torch.ones(5, 7).triu(1).bool(), float("-inf"))
            return torch.softmax(s, -1) @ v
        for causal in (False, True):
            got = assay_lazy.scaled_dot_product_attention(lazy(q), lazy(k), lazy(v), is_causal=causal)
            torch.testing.assert_close(got.cpu(), eager(q, k, v, causal), atol=1e-5, rtol=1e-5)

    def test_reductions_and_normalisations(self):
        a = torch.randn(3, 4, 5)
        self.check(lambda x: x.sum(), a)
        self.check(lambda x: x.sum(dim=(0, 2), keepdim=True), a)
        self.check(lambda x: torch.mean(x, -1), a)
        self.check(lambda x: torch.amax(x, 1), a)
        self.check(lambda x: x.max(), a)
        self.check(lambda x: torch.softmax(x, -1), a)
        self.check(lambda x: F.log_softmax(x, dim=1), a)
        self.check(lambda x, w, b: F.layer_norm(x, (5,), w, b, 1e-5), a, torch.randn(5), torch.randn(5))
        self.check(lambda x: F.layer_norm(x, (4, 5)), a)

    def test_views(self):
        a = torch.randn(2, 3, 4)
        self.check(lambda x: x.reshape(6, 4) * 1, a)
        self.check(lambda x: x.view(-1) + 0, a)
        self.check(lambda x: x.transpose(0, 2) + 0, a)
        self.check(lambda x: x.permute(2, 0, 1) + 0, a)
        self.check(lambda x: x[0].t() + 0, a)
        self.check(lambda x: x[:, 1:, ::2] + 0, a)
        self.check(lambda x: x[..., -1] + 0, a)
        self.check(lambda x: x[1, None, :2] + 0, a)
        self.check(lambda x: x.unsqueeze(1).squeeze(1) + 0, a)
        b = torch.randn(1, 4)
        self.check(lambda x: x.expand(3, 4) * 1, b)


class Misuse(unittest.TestCase):
    """What a user may do to a lazy tensor that is not an op: each gives the right result or one
    clear error, never a crash or a silently wrong value."""

    def test_unseeded_randn_differs_call_to_call(self):
        made = [tuple(torch.randn(4, device=DEV).tolist()) for _ in range(20)]
        self.assertEqual(len(set(made)), 20)  # a seed past 2^53 rounded as a double: 2 distinct of 100

    def test_copies_share_the_node_and_pickling_is_refused(self):
        import copy
        import gc
        import pickle
        x = torch.ones(2, 3, device=DEV)
        y = copy.deepcopy(x)
        z = copy.copy(x)
        self.assertEqual(y.tolist(), x.tolist())
        self.assertEqual(z.node, x.node)
        del y, z
        gc.collect()  # a copied Graph once freed the graph x still used
        self.assertEqual((torch.ones(2, 3, device=DEV) * 2).tolist(), [[2.0] * 3] * 2)
        with self.assertRaises(TypeError):
            pickle.dumps(x)

    def test_what_cpu_gives_is_a_copy(self):
        x = torch.ones(3, device=DEV)
        h = x.cpu()
        h += 41
        x.numpy()[0] = 7
        self.assertEqual(x.cpu().tolist(), [1.0, 1.0, 1.0])
        self.assertEqual(x.tolist(), [1.0, 1.0, 1.0])

    def test_sizes_and_dims_are_integers_in_range(self):
        x = torch.ones(2, 3, device=DEV)
        for bad in (lambda: x.sum(dim=2**32), lambda: x.softmax(2**32), lambda: torch.zeros(2**64 + 2, device=DEV),
                    lambda: x.reshape(2**64 + 6), lambda: x[:, ::2**64 + 1]):
            with self.assertRaises(OverflowError):
                bad()
        for bad in (lambda: x.reshape(3.9, 2), lambda: x.softmax(1.9)):
            with self.assertRaises(TypeError):
                bad()
        self.assertEqual(torch.arange(10.0).to(DEV)[3::2**63 - 2].tolist(), [3.0])  # one element, not none

    def test_int64_values_the_engine_cannot_hold_are_refused(self):
        self.assertEqual(torch.tensor([16777216, -5], device=DEV).tolist(), [16777216, -5])
        with self.assertRaises(assay_lazy.LazyError):
            torch.tensor([16777217], device=DEV)
        with self.assertRaises(assay_lazy.LazyError):
            torch.full((2,), 2**40, device=DEV)

    def test_two_threads_recording_into_one_graph(self):
        import threading
        x = torch.ones(2, device=DEV)
        before = assay_lazy.graph().node_count()

        def record():
            y = x
            for _ in range(2000):
                y = y + 1
        threads = [threading.Thread(target=record) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Each y + 1 records the constant 1 and the add: nothing lost, nothing corrupted.
        self.assertEqual(assay_lazy.graph().node_count() - before, 2 * 2000 * 2)


class TheChain(unittest.TestCase):
    """The playbook's chain relu(x @ x).sum() on 1000 x 1000."""

    def test_known_values(self):
        ones = torch.ones(1000, 1000, device=DEV)
        self.assertEqual(torch.relu(ones @ ones).sum().item(), 1e9)  # each element 1000
        half = torch.full((1000, 1000), -0.5, device=DEV)
        self.assertEqual(torch.relu(half @ half).sum().item(), 2.5e8)  # each element +250
        self.assertEqual(torch.relu(-(half @ half)).sum().item(), 0.0)  # each element -250, cut

    def test_random_against_eager(self):
        torch.manual_seed(7)
        x = torch.randn(1000, 1000)
        want = torch.relu(x.double() @ x.double()).sum().item()
        got = torch.relu(lazy(x) @ lazy(x)).sum().item()
        self.assertLess(abs(got - want) / abs(want), 1e-5)


class RecordingCost(unittest.TestCase):
    def test_cost_per_op_through_python_is_reported(self):
        x = torch.randn(64, 64, device=DEV)
        n = 20000
        y = x
        t0 = time.perf_counter()
        for _ in range(n):
            y = y + x
        per_op_us = (time.perf_counter() - t0) / n * 1e6
        print("\nrecording cost through Python: %.2f us/op (%d adds; C++ alone: GraphRecording.CostPerOp)"
              % (per_op_us, n))
        self.assertLess(per_op_us, 1000.0)  # a sanity bound, not a target


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)

#!/usr/bin/env python3
"""The lazy engine's Python front end on its GPU executor (issue 31 item 5, label gpu): programs
recorded on remote_accelerator:0 run on the GPU with no CPU fallback (the executor's counters
show generated kernels, assay's GEMM/attention or cuBLAS ran, and a program seen again replayed
a captured CUDA graph), and agree with PyTorch eager on cuda:0 on the same values.
Exit 77 without torch, CUDA or the engine library built with CUDA."""
import os
import sys
import unittest

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: torch is not importable by %s" % sys.executable)
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: no CUDA device for torch")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
try:
    import assay_lazy
    assay_lazy.set_executor("gpu")
except Exception as e:  # noqa: BLE001 - no library, or one without the GPU executor or a device
    print("SKIP: %s" % e)
    sys.exit(77)

DEV = "remote_accelerator:0"


def delta(before):
    after = assay_lazy.gpu_stats()
    return {k: after[k] - before[k] for k in after}


class OnTheGpu(unittest.TestCase):
    def test_chain_runs_gpu_kernels_and_matches_eager_on_cuda(self):
        torch.manual_seed(0)
        host = torch.randn(1000, 1000)
        before = assay_lazy.gpu_stats()
        x = host.to(DEV)
        y = torch.relu(x @ x).sum()
        got = y.item()
        d = delta(before)
        self.assertEqual(d["runs"], 1)
        self.assertGreaterEqual(d["generated_launches"], 1)   # relu + sum: one generated kernel
        self.assertGreaterEqual(d["cublas"] + d["assay_gemm"], 1)
        want = torch.relu(host.cuda().double() @ host.cuda().double()).sum().item()
        self.assertLess(abs(got - want), 1e-5 * abs(want))
        ones = torch.ones(1000, 1000, device=DEV)
        self.assertEqual(torch.relu(ones @ ones).sum().item(), 1e9)

    def test_a_program_seen_again_replays_its_cuda_graph(self):
        host = torch.randn(256, 512).half()
        w = torch.randn(512, 128).half()

        def program():
            x, wl = host.to(DEV), w.to(DEV)
            return F.gelu(x @ wl, approximate="tanh").softmax(-1).cpu()

        first = program()
        before = assay_lazy.gpu_stats()
        second = program()
        d = delta(before)
        self.assertEqual(d["graph_replays"], 1)
        self.assertEqual(d["captures"], 0)
        self.assertTrue(torch.equal(first, second))
        want = F.gelu(host.cuda() @ w.cuda(), approximate="tanh").softmax(-1).cpu()
        self.assertLess((first.float() - want.float()).abs().max().item(), 2e-2)

    def test_attention_block_against_eager(self):
        torch.manual_seed(1)
        b, s, h, d = 2, 64, 4, 64
        xs = [torch.randn(b, s, h * d).half() for _ in range(3)]
        ln_w, ln_b = torch.randn(h * d).half(), torch.randn(h * d).half()

        def block(q, k, v, w, bias):
            q = F.layer_norm(q, (h * d,), w, bias)
            split = lambda t: t.reshape(b, s, h, d).transpose(1, 2)
            o = F.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=True)
            return o.transpose(1, 2).reshape(b, s, h * d) + q

        before = assay_lazy.gpu_stats()
        got = block(*[t.to(DEV) for t in xs], ln_w.to(DEV), ln_b.to(DEV)).cpu()
        dd = delta(before)
        self.assertGreaterEqual(dd["assay_attention"], 1)
        want = block(*[t.cuda() for t in xs], ln_w.cuda(), ln_b.cuda()).cpu()
        self.assertLess((got.float() - want.float()).abs().max().item(), 3e-2)


if __name__ == "__main__":
    print("executor:", assay_lazy.executor(), "library:", assay_lazy.lib_path)
    result = unittest.main(verbosity=2, exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)

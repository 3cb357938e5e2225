"""Shared helpers of assay's Python adapters (protocol "assay.adapter/1", see
src/backends/adapter_protocol.cpp and docs/adapters.md): read the case from stdin, load the
inputs, time calls the way assay's cold mode does, write the output file and print exactly one
JSON reply.

An adapter is a script that calls `main(run)`: `run(case)` returns the reply dict (use
`ok_reply`), or raises `Unavailable(reason)`; any other exception becomes an "error" reply.
Whatever libraries print goes to stderr: fd 1 is pointed at stderr for the whole run and the
reply is written on the saved real stdout at the very end. The process exits 0 after a reply.

One job per module; every name is re-exported here, so adapters `import assay_adapter as aa`:
  errors        Unavailable, one_line, error_message
  case          the case's tensors and workload: input/output files, dtypes, FLOPs, versions
  protocol      the case from stdin, the replies, stdout protection, main
  stats         percentiles, the median CI (ranks, batch medians, the running CI): assay's C++
  stopping      StoppingRule and measure_loop: assay's C++ rule, held to it by
                tests/stopping_rule/test_stopping_rule_parity.py
  timing_torch  torch helpers and cold timing with CUDA events
  timing_host   host-clock timing
  profiler      purpose "profile": the calls inside cuProfilerStart/Stop (assay profile)

The package imports only the standard library at import time (numpy and torch are imported
by the functions that need them), so that "stack not importable" is replied, not crashed on.
"""
from .errors import Unavailable, error_message, one_line
from .case import (
    DTYPE_BYTES,
    INPUT_NAMES,
    check_dtype,
    fresh_input_specs,
    input_spec,
    numel,
    package_versions,
    read_numpy,
    workload_flops,
    write_bytes,
)
from .stats import (
    RunningMedianCi,
    batch_median_ci_halfwidth,
    batch_medians,
    median_ci_lower_rank,
    median_ci_ranks,
    median_ci_sorted,
    percentile_sorted,
    student_t_two_sided_quantile,
    summary_ms,
)
from .protocol import (
    PROTOCOL,
    _BadCase,
    _emit,
    _protect_stdout,
    error_reply,
    main,
    ok_reply,
    read_case,
    unavailable_reply,
)
from .profiler import profile_calls, profiler_window
from .stopping import StoppingRule, measure_loop
from .timing_torch import (
    _Spin,
    apply_torch_precision,
    import_torch,
    load_fresh_into,
    l2_flush_bytes,
    load_torch_inputs,
    time_cold,
    torch_check_call,
    torch_device,
    torch_fresh_call,
    torch_sync,
    torch_dtype,
    torch_precision_report,
    torch_versions,
    write_torch_output,
)
from .timing_host import time_host

__all__ = [
    "DTYPE_BYTES", "INPUT_NAMES", "PROTOCOL", "RunningMedianCi", "StoppingRule", "Unavailable",
    "apply_torch_precision", "batch_median_ci_halfwidth", "batch_medians", "check_dtype",
    "error_message", "error_reply", "fresh_input_specs", "import_torch", "input_spec", "l2_flush_bytes",
    "load_fresh_into", "load_torch_inputs", "main", "measure_loop", "median_ci_lower_rank", "median_ci_ranks",
    "median_ci_sorted", "numel", "ok_reply", "one_line", "package_versions", "percentile_sorted",
    "profile_calls", "profiler_window", "read_case", "read_numpy", "student_t_two_sided_quantile", "summary_ms", "time_cold",
    "time_host", "torch_check_call", "torch_device", "torch_fresh_call", "torch_sync", "torch_dtype", "torch_precision_report",
    "torch_versions", "unavailable_reply", "workload_flops", "write_bytes", "write_torch_output",
]

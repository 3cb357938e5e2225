"""Protocol "assay.adapter/1" (src/backends/adapter_protocol.cpp, docs/adapters.md): the case
read from stdin, the replies, stdout kept clean for the one JSON reply, and `main(run)`."""
import json
import os
import sys
import traceback

from .case import workload_flops
from .errors import Unavailable, error_message, one_line
from .stats import summary_ms

PROTOCOL = "assay.adapter/1"


class _BadCase(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# stdout protection and the reply

_real_stdout_fd = None


def _protect_stdout():
    """Point fd 1 (and sys.stdout) at stderr; keep the real stdout for the reply."""
    global _real_stdout_fd
    if _real_stdout_fd is not None:
        return
    try:
        sys.stdout.flush()
    except Exception:
        pass
    _real_stdout_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr


def _emit(reply):
    """Writes the one JSON object (one line) on the real stdout."""
    text = json.dumps(reply, allow_nan=False) + "\n"
    for stream in (sys.stdout, sys.stderr, sys.__stdout__):
        try:
            stream.flush()
        except Exception:
            pass
    fd = _real_stdout_fd if _real_stdout_fd is not None else 1
    data = text.encode()
    while data:
        n = os.write(fd, data)
        data = data[n:]


def unavailable_reply(reason):
    return {"status": "unavailable", "message": one_line(reason) or "unavailable"}


def error_reply(message):
    return {"status": "error", "message": one_line(message) or "error"}


def ok_reply(case, mode, samples_ms, out_flops=None, peak_memory_bytes=0, versions=None, fresh_inputs=False):
    """An ok reply. samples_ms empty for purpose "check" (no summary, empty throughput).
    `fresh_inputs`: the output written is that of an untimed call on the case's
    "fresh_inputs" (adds "fresh_inputs": true)."""
    samples = [float(x) for x in samples_ms]
    reply = {
        "status": "ok",
        "mode": mode,
        "samples_ms": samples,
        "throughput": {},
        "peak_memory_bytes": float(peak_memory_bytes or 0),
        "versions": {k: str(v) for k, v in (versions or {}).items()},
    }
    if fresh_inputs:
        reply["fresh_inputs"] = True
    if samples:
        summ = summary_ms(samples)
        reply["summary_ms"] = summ
        flops = out_flops if out_flops is not None else workload_flops(case)
        if flops and summ["p50"] > 0:
            reply["throughput"] = {"tflops": flops / (summ["p50"] * 1e-3) / 1e12}
    return reply


def main(run):
    """Runs `run(case)` and prints its reply; exits 0 after any reply."""
    _protect_stdout()
    reply = None
    try:
        try:
            case = read_case()
        except Unavailable:
            raise
        except Exception as e:  # a bad case is the caller's error
            raise _BadCase("cannot read the case from stdin: " + error_message(e))
        reply = run(case)
        if not isinstance(reply, dict) or "status" not in reply:
            reply = error_reply("adapter returned no reply")
    except Unavailable as e:
        reply = unavailable_reply(str(e))
    except _BadCase as e:
        reply = error_reply(str(e))
    except BaseException as e:  # noqa: BLE001 - everything becomes a reply
        if isinstance(e, KeyboardInterrupt):
            reply = error_reply("interrupted")
        else:
            traceback.print_exc(file=sys.stderr)
            reply = error_reply(error_message(e))
    try:
        _emit(reply)
    except Exception:
        traceback.print_exc(file=sys.stderr)
        os._exit(1)
    # Shut library worker pools down (atexit), but skip the interpreter teardown, where some
    # GPU stacks crash and would turn a delivered reply into a non-zero exit.
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


# ---------------------------------------------------------------------------------------------
# the case

def read_case(stream=None):
    text = (stream or sys.stdin).read()
    case = json.loads(text)
    if not isinstance(case, dict):
        raise ValueError("the case is not a JSON object")
    proto = case.get("protocol")
    if proto != PROTOCOL:
        raise ValueError("protocol is %r, this adapter speaks %r" % (proto, PROTOCOL))
    for key in ("workload", "dtype", "params", "inputs", "output", "device"):
        if key not in case:
            raise ValueError("the case has no field %r" % key)
    case.setdefault("variant", "")
    case.setdefault("purpose", "measure")
    case.setdefault("warmup", {})
    case.setdefault("budget", {})
    case.setdefault("precision", {})
    return case

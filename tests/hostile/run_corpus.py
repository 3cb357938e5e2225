#!/usr/bin/env python3
"""The hostile-input corpus (issue 26, "nothing kills a run, nothing is lost").

Usage: run_corpus.py BIN SOURCE_DIR [--only SUBSTRING] [--jobs N] [--list]

Runs every input of tests/hostile against the assay binary BIN, each in a fresh temporary
folder (the working directory; ASSAY_HISTORY, --history and --out point into it), with a
timeout, and checks its exit code and a fragment of its output. Standard-library Python only.

Inputs (see tests/hostile/README.md):
  suites/NNN-name.toml   a suite; its expectation in a comment line `# expect: CODE "fragment"`,
                         optional `# cmd: check`, `# args: ...`, `# env: NAME=VALUE` lines.
                         Run as `assay run SUITE --device cpu --no-history --out OUT --no-doctor`.
  cli.tsv                args<TAB>exit<TAB>fragment; args are split like a shell would, with
                         {ok} (a tiny valid suite), {tmp}, {out}, {good} (a valid results file).
  results.tsv            file<TAB>command<TAB>exit<TAB>fragment: a results file (or a folder) of results.tar.xz
                         given to `compare` (as the candidate; `compare-base`: as the base) or
                         to `merge`.

Checks beyond the exit code and the fragment, for every input:
  - not killed by a signal, not over the timeout, no "internal error" unless exit 4 is expected;
  - every *.json left in the out folder parses (no half-written results file);
  - exit 3 prints `assay: ...` on stderr; from `run`/`check` it comes before any case ran
    (no `[i/n]` case line, no results file);
  - exit 3 of compare/merge names the file given;
  - compare never prints a NaN or infinite number.
"""
import atexit
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile

TIMEOUT_S = 30
CASE_LINE = re.compile(r"^\[\d+/\d+\] ", re.M)
NON_FINITE = re.compile(r"(?<![A-Za-z])(nan|inf|infinity)(?![A-Za-z])", re.I)


class Entry:
    def __init__(self, name, kind, args, code, fragment, env=None, named=None):
        self.name, self.kind, self.args, self.code, self.fragment = name, kind, args, code, fragment
        self.env = env or {}
        self.named = named  # a file name the error must mention
        self.expand = None  # a suite with @@REPEAT:N:text@@ macros
        self.generate = None  # a generated results input (gen:NAME)


def parse_expect(text):
    m = re.match(r'\s*(\d+)\s*(?:"(.*)")?\s*$', text)
    if not m:
        raise ValueError("bad expectation: " + text)
    return int(m.group(1)), m.group(2) or ""


def unpack_suites(root, into):
    """The suites are kept as one tar (suites.tar.xz): 190 tiny files cost a disk block each in the
    tree. Unpacked into `into`/suites for the run; returns that folder."""
    folder = os.path.join(into, "suites")
    with tarfile.open(os.path.join(root, "suites.tar.xz")) as t:
        for m in t.getmembers():
            if not m.isfile() or "/" in m.name or m.name.startswith("."):
                raise ValueError("suites.tar.xz: unexpected member " + m.name)
        os.makedirs(folder)
        t.extractall(folder)
    return folder


def unpack_results(root, into):
    """The results inputs are kept as one tar (results.tar.xz, 79 small files and folders); their
    expectations are results.tsv beside it. Unpacked into `into`/results; returns that folder."""
    folder = os.path.join(into, "results")
    with tarfile.open(os.path.join(root, "results.tar.xz")) as t:
        for m in t.getmembers():
            if not (m.isfile() or m.isdir()) or m.name.startswith(("/", ".")) or ".." in m.name.split("/"):
                raise ValueError("results.tar.xz: unexpected member " + m.name)
        os.makedirs(folder)
        t.extractall(folder)
    return folder


RESULTS = {"dir": None}  # the unpacked results inputs


def load_suites(folder):
    entries = []
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".toml"):
            continue
        path = os.path.join(folder, fn)
        with open(path, "rb") as f:
            head = f.read(4096)
        if os.path.exists(path + ".expect"):  # files that cannot hold a comment (empty, ...)
            with open(path + ".expect", "rb") as f:
                head = f.read()
        meta = {}
        for line in head.decode("utf-8", "replace").splitlines():
            m = re.match(r"^\ufeff?\s*#\s*(expect|cmd|args|env):\s?(.*)$", line)
            if m and m.group(1) not in meta:
                meta[m.group(1)] = m.group(2)
        if "expect" not in meta:
            raise ValueError(fn + ": no '# expect:' line")
        code, frag = parse_expect(meta["expect"])
        cmd = meta.get("cmd", "run").strip()
        args = [cmd, path, "--device", "cpu", "--out", "{out}", "--no-doctor"]
        if cmd == "run":
            args.append("--no-history")
        args += shlex.split(meta.get("args", ""))
        env = {}
        if "env" in meta:
            k, _, v = meta["env"].partition("=")
            env[k.strip()] = v
        entry = Entry("suites/" + fn, "suite", args, code, frag, env)
        with open(path, "rb") as f:
            if b"@@REPEAT:" in f.read():
                entry.expand = path  # a big input kept small in the tree: expanded into the temp folder
        entries.append(entry)
    return entries


def load_cli(root):
    entries = []
    with open(os.path.join(root, "cli.tsv"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise ValueError("cli.tsv:%d: want args<TAB>exit<TAB>fragment" % i)
            entries.append(Entry("cli.tsv:%d %s" % (i, parts[0][:50]), "cli", shlex.split(parts[0]),
                                 int(parts[1]), parts[2]))
    return entries


def expand_repeats(data):
    return re.sub(rb"@@REPEAT:(\d+):(.*?)@@", lambda m: m.group(2) * int(m.group(1)), data, flags=re.S)


# Results inputs too big to keep in the tree, written into the temp folder when run.
def _huge_samples(root, path):  # one more sample than the reader takes (10,000,000)
    with open(os.path.join(RESULTS["dir"], "good.json")) as f:
        text = f.read()
    key = '"samples_ns": ['
    at = text.index(key) + len(key)
    with open(path, "w") as f:
        f.write(text[:at] + "1000.0, " * 10000001 + text[at:])


def _deep_array(root, path):
    with open(path, "w") as f:
        f.write("[" * 1000000 + "]" * 1000000)


def _empty_dir(root, path):
    os.makedirs(path)


def _edited(edit):
    """good.json with its first ok case's record changed by `edit` (a small input kept as code)."""
    def write(root, path):
        with open(os.path.join(RESULTS["dir"], "good.json")) as f:
            doc = json.load(f)
        edit(next(c for c in doc["cases"] if c["status"] == "ok"))
        with open(path, "w") as f:
            json.dump(doc, f)
    return write


def _ci_to_1e308(c):  # a report had drawn an axis up to it
    c["summary_ns"]["median_ci_hi"] = 1e308


def _ci_without_the_median(c):
    c["summary_ns"]["median_ci_lo"] = c["summary_ns"]["median"] * 1.5
    c["summary_ns"]["median_ci_hi"] = c["summary_ns"]["median"] * 2


def _percentiles_out_of_order(c):
    c["summary_ns"]["p25"] = c["summary_ns"]["max"] * 2


def _nul_in_a_parameter_name(c):  # once named the wrong field ("params.k" missing)
    c["params"]["k\u0000z"] = 3


GENERATORS = {"huge-samples": _huge_samples, "deep-array": _deep_array, "empty-dir": _empty_dir,
              "ci-to-1e308": _edited(_ci_to_1e308), "ci-without-the-median": _edited(_ci_without_the_median),
              "percentiles-out-of-order": _edited(_percentiles_out_of_order),
              "nul-in-a-parameter-name": _edited(_nul_in_a_parameter_name)}


def load_results(root):
    entries = []
    folder = RESULTS["dir"]
    with open(os.path.join(root, "results.tsv"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4:
                raise ValueError("results.tsv:%d: want file<TAB>command<TAB>exit<TAB>fragment" % i)
            name, command, code, frag = parts
            path = os.path.join(folder, name)
            if name.startswith("gen:"):
                if name[4:] not in GENERATORS:
                    raise ValueError("results.tsv:%d: no generator %s" % (i, name))
                path = "{tmp}/" + name[4:] + ("" if name[4:].endswith("dir") else ".json")
            elif not os.path.exists(path):
                raise ValueError("results.tsv:%d: no %s" % (i, name))
            if command == "compare":
                args = ["compare", "{good}", path, "--history", "{tmp}/history.db"]
            elif command == "compare-base":
                args = ["compare", path, "{good}", "--history", "{tmp}/history.db"]
            elif command == "merge":
                args = ["merge", path, "--out", "{out}"]
            else:
                raise ValueError("results.tsv:%d: command is compare, compare-base or merge" % i)
            named = os.path.basename(path.rstrip("/")) if int(code) == 3 else None
            entry = Entry("results/%s (%s)" % (name, command), "results", args, int(code), frag, named=named)
            if name.startswith("gen:"):
                entry.generate = name[4:]
            entries.append(entry)
    return entries


def run_entry(entry, binary, root):
    with tempfile.TemporaryDirectory(prefix="assay-hostile-") as tmp:
        out = os.path.join(tmp, "out")
        # Copies, so that no binary under test can write into the source tree (--history {ok}).
        shutil.copy(os.path.join(root, "ok.toml"), os.path.join(tmp, "ok.toml"))
        shutil.copy(os.path.join(RESULTS["dir"], "good.json"), os.path.join(tmp, "good.json"))
        subst = {"{ok}": os.path.join(tmp, "ok.toml"), "{good}": os.path.join(tmp, "good.json"),
                 "{out}": out, "{tmp}": tmp, "{src}": os.path.dirname(os.path.dirname(root))}
        if entry.expand:
            with open(entry.expand, "rb") as f:
                data = expand_repeats(f.read())
            path = os.path.join(tmp, os.path.basename(entry.expand))
            with open(path, "wb") as f:
                f.write(data)
            entry_args = [path if a == entry.expand else a for a in entry.args]
        else:
            entry_args = entry.args
        if entry.generate:
            GENERATORS[entry.generate](root, subst["{tmp}"] + "/" + entry.generate +
                                       ("" if entry.generate.endswith("dir") else ".json"))
        args = []
        for a in entry_args:
            for k, v in subst.items():
                a = a.replace(k, v)
            args.append(a)
        env = dict(os.environ)
        env["ASSAY_HISTORY"] = os.path.join(tmp, "history.db")
        env.pop("TVM_BENCH_CMD", None)
        env.update(entry.env)
        problems = []
        try:
            p = subprocess.run([binary] + args, cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            return ["timeout after %ds" % TIMEOUT_S], None, ""
        text = (p.stdout + p.stderr).decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode < 0:
            problems.append("killed by signal %d" % -p.returncode)
        elif p.returncode != entry.code:
            problems.append("exit %d, expected %d" % (p.returncode, entry.code))
        if entry.fragment and entry.fragment not in text:
            problems.append("no '%s' in the output" % entry.fragment)
        if "internal error" in text and entry.code != 4:
            problems.append("internal error")
        for dirpath, _, files in os.walk(out):
            for fn in files:
                if fn.endswith(".json"):
                    path = os.path.join(dirpath, fn)
                    try:
                        with open(path, "rb") as f:
                            json.loads(f.read().decode("utf-8"), parse_constant=lambda c: 1 / 0)
                    except Exception:
                        problems.append("half-written or invalid JSON: " + os.path.relpath(path, out))
        if p.returncode == 3:
            if not re.search(r"^assay: ", err, re.M):
                problems.append("exit 3 without an 'assay: ...' line on stderr")
            if args and args[0] in ("run", "check"):
                if CASE_LINE.search(text):
                    problems.append("exit 3 after a case ran")
                if os.path.isdir(out) and any(f.endswith(".json") for f in os.listdir(out)):
                    problems.append("exit 3 but a results file was written")
            if entry.named and entry.named not in err:
                problems.append("the error does not name " + entry.named)
        plain = text
        for a in args:  # a file name may say "nan" or "infinity"
            if len(a) > 2:
                plain = plain.replace(a, "")
        if args and args[0] == "compare" and NON_FINITE.search(plain):
            problems.append("compare printed a non-finite number")
        last = [l for l in err.splitlines() if l.strip()]
        return problems, p.returncode, (last[-1] if last else "")[:160]


def main():
    argv = sys.argv[1:]
    if len(argv) < 2:
        print(__doc__)
        return 2
    binary, source = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    only, jobs, listing = None, os.cpu_count() or 2, False
    rest = argv[2:]
    while rest:
        a = rest.pop(0)
        if a == "--only":
            only = rest.pop(0)
        elif a == "--jobs":
            jobs = int(rest.pop(0))
        elif a == "--list":
            listing = True
    root = os.path.join(source, "tests", "hostile")
    unpacked = tempfile.mkdtemp(prefix="assay-hostile-suites-")
    atexit.register(shutil.rmtree, unpacked, True)
    RESULTS["dir"] = unpack_results(root, unpacked)
    entries = load_suites(unpack_suites(root, unpacked)) + load_cli(root) + load_results(root)
    if only:
        entries = [e for e in entries if only in e.name]
    counts = {}
    for e in entries:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    if listing:
        for e in entries:
            print("%-60s %d %s" % (e.name, e.code, e.fragment))
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_entry, e, binary, root): e for e in entries}
        for fut in concurrent.futures.as_completed(futures):
            e = futures[fut]
            problems, code, last = fut.result()
            if problems:
                failures.append((e, problems, code, last))
    print("hostile corpus: %d inputs (%s)" % (len(entries), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    if failures:
        failures.sort(key=lambda f: f[0].name)
        print("%d FAILED:" % len(failures))
        print("%-58s %-6s %s" % ("input", "exit", "problems | last stderr line"))
        for e, problems, code, last in failures:
            print("%-58s %-6s %s | %s" % (e.name[:58], code, "; ".join(problems), last))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

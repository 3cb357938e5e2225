#!/bin/sh
# A stand-in for Nsight Compute's ncu in assay profile's CPU tests (tests/unit/test_profile_cli.cpp):
# `--version` answers as ncu does; otherwise it skips ncu's options, runs the command that
# follows them (the case's worker), and writes $FAKE_NCU_LOG (a recorded raw-page CSV) as the
# log named by --log-file. $FAKE_NCU_ARGS, when set, receives the options it was given;
# $FAKE_NCU_EXIT, when set, is its exit status whatever the worker's (ncu failing after the case);
# $FAKE_NCU_SIGNAL, when set, is the signal it sends itself after the worker (ncu killed after the case).
if [ "$1" = "--version" ]; then
  echo "NVIDIA (R) Nsight Compute Command Line Profiler"
  echo "Version 2099.1.0.0 (build 1) (fake)"
  exit 0
fi
log=""
[ -n "$FAKE_NCU_ARGS" ] && : > "$FAKE_NCU_ARGS"
while [ $# -gt 0 ]; do
  case "$1" in
    --csv) [ -n "$FAKE_NCU_ARGS" ] && echo "$1" >> "$FAKE_NCU_ARGS"; shift ;;
    --log-file) log=$2; shift 2 ;;
    --*) [ -n "$FAKE_NCU_ARGS" ] && echo "$1 $2" >> "$FAKE_NCU_ARGS"; shift 2 ;;
    *) break ;;
  esac
done
"$@"
rc=$?
[ -n "$log" ] && cp "$FAKE_NCU_LOG" "$log"
[ -n "$FAKE_NCU_SIGNAL" ] && kill -"$FAKE_NCU_SIGNAL" $$
exit ${FAKE_NCU_EXIT:-$rc}

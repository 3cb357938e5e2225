#!/usr/bin/env python3
"""Energy per call from the sessions of energy.toml: per case and session, median µs, the median
SM clock, the window's mean power (energy_j / energy_window_s), joules per call and GFLOP/J."""
import glob, json, statistics, sys
for path in sorted(glob.glob(sys.argv[1] + "/*/energy-*.json")):
    doc = json.load(open(path))
    print(path.split("/")[-1])
    for c in doc["cases"]:
        m, d, s = c.get("measurement") or {}, c.get("derived") or {}, c.get("summary_ns") or {}
        e, w = m.get("energy_j"), m.get("energy_window_s") or 0
        clk = statistics.median(m["sm_clock_mhz"]) if m.get("sm_clock_mhz") else 0
        watts = f"{e / w:6.0f}" if e and w else "  none"
        jpc = d.get("energy_per_call_j")
        print(f"  {c['backend']:7}{c['dtype']:7}{c['params']['m']:5} {s.get('median', 0) / 1e3:9.2f} us {clk:5.0f} MHz "
              f"{watts} W  {(jpc or 0) * 1e3:8.3f} mJ/call  {d.get('gflop_per_j') or 0:7.1f} GFLOP/J  calls={m.get('energy_calls')}")

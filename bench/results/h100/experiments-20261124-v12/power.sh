#!/bin/bash
# v12 call 1: wgmma_power (three ways to issue the 128x256 tile) with nvidia-smi's power log joined.
B=${B:-build/carry/wgmma_power}
nvidia-smi --query-gpu=timestamp,power.draw.instant,clocks.sm,temperature.gpu --format=csv,noheader,nounits -lms 50 > $OUT/smi.csv 2>$OUT/smi.err &
SMI=$!
sleep 1
$B ${SECONDS_PER:-2.0} ${ROUNDS:-2} > $OUT/power.txt 2>&1
kill $SMI; sleep 0.3
cuobjdump -sass $B | grep -o "HGMMA\.[^ ]*" | sort | uniq -c > $OUT/sass.txt
cat $OUT/sass.txt; head -3 $OUT/smi.csv; cat $OUT/smi.err
python3 - <<'PY'
import os, datetime, statistics
out = os.environ["OUT"]
rows = []
for line in open(f"{out}/smi.csv"):
    f = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp() * 1000
        rows.append((t, float(f[1]), float(f[2]), float(f[3])))
    except Exception:
        pass
print(f"{'window':12s} {'kernel MHz':>10s} {'TFLOP/s':>8s} {'smi W':>7s} {'smi MHz':>8s} {'temp':>5s} {'pJ/MAC':>7s}")
for line in open(f"{out}/power.txt"):
    if not line.startswith("WINDOW"):
        print(line.rstrip()); continue
    p = line.split()
    name, s, e = p[1], float(p[2]), float(p[3])
    kv = dict(x.split("=") for x in p[4:])
    lo = s + 0.4 * (e - s)
    sel = [r for r in rows if lo <= r[0] <= e]
    if not sel:
        print(name, "no smi rows"); continue
    w = statistics.median(r[1] for r in sel); mhz = statistics.median(r[2] for r in sel)
    tf = float(kv["tflops"])
    print(f"{name:12s} {kv['mhz']:>10s} {tf:8.1f} {w:7.1f} {mhz:8.0f} {statistics.median(r[3] for r in sel):5.0f} {w / (tf * 1e12 / 2) * 1e12:7.3f}")
PY

#!/bin/bash
# v12 call: fp8 8192^3, 192 alone (pick) vs 192_c2 vs 208_c2 vs cuBLASLt, orders a/b alternating, 3 rounds each.
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
D=bench/results/h100/experiments-20261124-v12
mkdir -p $OUT/f8x
for i in 1 2 3; do for o in a b; do
  build/strip/assay run $D/f8x$o.toml --out $OUT/f8x/$o-$i --no-history > $OUT/f8x/$o-$i.txt 2>&1 || echo "$o-$i rc=$?"
done; done
for f in $OUT/f8x/*/*.md; do echo "== $f" | sed "s|$OUT/f8x/||"; grep "^| w8" $f | awk -F'|' '{print $5, $6, $10, $12}'; done

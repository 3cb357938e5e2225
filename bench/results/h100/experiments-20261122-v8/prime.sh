#!/usr/bin/env bash
# Device call: GPU and CLI tests of the base (HEAD) binaries, GPU tests of the variant, then a
# same-call A/B of base and variant over exp/pre.toml.
set -u
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
OUT=$OUT BIN=build/strip bash bench/scripts/gemm_hopper_device.sh tests clitests > $OUT/base_tests.txt 2>&1
mkdir -p $OUT/pre && timeout 400 build/strip/pre/assay_gpu_tests --gtest_brief=1 > $OUT/pre/gpu_tests.txt 2>&1
echo "variant assay_gpu_tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/pre/gpu_tests.txt | tr '\n' ' ')" >> $OUT/base_tests.txt
rm -rf $OUT/pre
SUITE=exp/pre.toml VARIANTS=". pre" ROUNDS=3 OUT=$OUT bash bench/scripts/ab_binaries.sh
tail -5 $OUT/base_tests.txt

#!/usr/bin/env bash
# Installs the build dependencies (Debian/Ubuntu packages) when missing, configures and
# builds assay with a CMake preset, and points build/current at that build.
#   scripts/setup.sh            # preset: release if nvcc is found, cpu otherwise
#   ASSAY_PRESET=ci scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev libgtest-dev libsqlite3-dev liblzma-dev)
# assay report: npm fetches its charting library at build time (web/package-lock.json), and its
# test drives a headless Chromium. A node/npm or a browser already on PATH (NodeSource's node,
# GitHub's google-chrome) is used as is: Debian's npm package would conflict with the former.
command -v npm >/dev/null 2>&1 || packages+=(npm)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
  command -v google-chrome >/dev/null 2>&1 || packages+=(chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -z "${ASSAY_PRESET:-}" ]; then
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then ASSAY_PRESET=release; else ASSAY_PRESET=cpu; fi
fi
# CMake finds nvcc through CUDACXX or PATH.
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null 2>&1; then export PATH="/usr/local/cuda/bin:$PATH"; fi

echo "setup: preset $ASSAY_PRESET"
cmake --preset "$ASSAY_PRESET" >/dev/null
cmake --build --preset "$ASSAY_PRESET" -j "$(nproc)"
ln -sfn "$ASSAY_PRESET" build/current
echo "setup: built build/$ASSAY_PRESET (build/current): $(build/current/bin/assay --version)"

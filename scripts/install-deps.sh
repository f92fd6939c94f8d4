#!/usr/bin/env bash
# Installs what privamp needs to build, test and draw figures on Debian 12 (bookworm).
set -euo pipefail
packages=(
  cmake g++ make
  libeigen3-dev libboost-dev libgsl-dev libnlopt-dev catch2 libflint-arb-dev
  libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
  libbenchmark-dev gnuplot-nox poppler-utils
  texlive-latex-recommended texlive-pictures
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev
  libxml2-utils python3-numpy chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

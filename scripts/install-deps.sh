#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages privamp needs to build and run (the README's first command), or with
# --tests also those that only the test suite uses (the README's test command): TeX Live to typeset every figure,
# Chromium to load the HTML report, xmllint to validate the JUnit report, pandas and matplotlib for the data-frame
# views and plot().
set -euo pipefail
packages=(
  cmake g++ make
  libeigen3-dev libboost-dev libgsl-dev libnlopt-dev catch2 libflint-arb-dev
  libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
  libbenchmark-dev gnuplot-nox poppler-utils
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-numpy
)
case "${1:-}" in
  "") ;;
  --tests) packages+=(texlive-latex-recommended texlive-pictures libxml2-utils chromium python3-pandas python3-matplotlib
           python3-nbclient python3-ipykernel jupyter-nbconvert) ;;
  *) echo "usage: $0 [--tests]" >&2; exit 2 ;;
esac
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

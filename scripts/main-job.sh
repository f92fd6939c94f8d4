#!/usr/bin/env bash
# The main job until the theorem runner lands: exact divergences of the source documents' reference mechanisms.
set -euo pipefail
cd "$(dirname "$0")/.."
privamp=build/privamp
run() {
  echo
  echo "## $1"
  shift
  "$privamp" divergence "$@"
}
run "Poisson-subsampled Gaussian (q = 0.01, sigma = 1): Renyi curve and privacy profile (add direction)" \
  'mix(q=0.01, gaussian(0,1), gaussian(1,1))' 'gaussian(0,1)' --renyi 2,2.5,10.5,256 --hockey-stick 0:3:0.5
run "... remove direction" 'gaussian(0,1)' 'mix(q=0.01, gaussian(0,1), gaussian(1,1))' --hockey-stick 0:3:0.5 --renyi inf
run "Iterated Laplace (E2, L3): K o M with lambda1 = lambda2 = 1, sensitivity 1" \
  'laplace_sum(1, [1, 1])' 'laplace_sum(0, [1, 1])' --renyi 2,8,64,inf
run "Repeated noise addition (RNA): 10-fold Laplace, shift 1 (the value the blog leaves open)" \
  'laplace_nfold(n=10, loc=1)' 'laplace_nfold(n=10)' --renyi 2,8,64
run "Shuffled binary randomized response, n = 10^4, eps0 = 1" \
  'shuffled_rr(n=10000, eps0=1, first=1)' 'shuffled_rr(n=10000, eps0=1, first=0)' --hockey-stick 0,0.01,0.05,0.1
run "Gaussian mechanism projected onto [0, 1] (atoms at the ends)" \
  'clamp(gaussian(0.3, 1), 0, 1)' 'clamp(gaussian(0, 1), 0, 1)' --renyi 2 --kl --hockey-stick 0.1

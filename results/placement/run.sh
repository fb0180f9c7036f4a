#!/usr/bin/env bash
# On the GPU machine: results/placement/run.sh > $OUT/placement.log (see placement.cu).
set -u
cd "$(dirname "$0")"
nvcc -O2 -arch=sm_90a -o /tmp/placement placement.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for round in 1 2 3 4 5 6; do
  for mode in fixed ring arena; do /tmp/placement $mode ${CALLS:-1000}; done
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader

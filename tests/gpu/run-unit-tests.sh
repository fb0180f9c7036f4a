#!/usr/bin/env bash
# The unit tests that depend on the machine (cgroups, the sandbox on its kernel, the hostile
# corpus) run on the GPU machine from the bundle (scripts/gpu-bundle). The tests find the corpus
# through the source path they were built with, so that path is linked to this checkout.
# Usage: tests/gpu/run-unit-tests.sh [GTEST_FILTER]
set -uo pipefail
cd "$(dirname "$0")/../.."
built_at=$(cat bundle/source-dir)
if [ -n "$built_at" ] && [ ! -e "$built_at" ]; then
  mkdir -p "$(dirname "$built_at")" && ln -s "$PWD" "$built_at"
fi
export PATH="$PWD/bundle/bwrap/root/usr/bin:$PATH"
filter=${1:-'ByteSize*:Cgroup*:RealCgroup*:DataLimit*:Sandbox*:Hostile*:Process*'}
LD_LIBRARY_PATH="$PWD/bundle/lib" bundle/kjudge_tests --gtest_filter="$filter" 2>&1

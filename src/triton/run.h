#pragma once
// Forwarding header, kept only because src/triton/run_json.{h,cpp} (the run's identity and
// record, owned by another branch of issue 33) include this old path. The file now lives at
// triton/runner/run.h: once run_json.* include that, delete this one.
#include "triton/runner/run.h"

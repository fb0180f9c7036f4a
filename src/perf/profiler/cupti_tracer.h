#pragma once
// CUPTI's activity API: kernels on every stream and context, copies, memsets, and the runtime
// and driver calls that launched them, delivered in buffers to the store.
#include "store.h"

namespace kjudge::profiler {

// Registers the buffer callbacks and enables the activity kinds. False when CUPTI refuses (no
// driver on this machine, say): the profile then has no GPU records, and says nothing false.
bool start_tracing(Store& store);

// Delivers every buffer, complete or not, to the store and adds CUPTI's dropped count. Only
// after start_tracing() returned true.
void flush_tracing(Store& store);

}  // namespace kjudge::profiler

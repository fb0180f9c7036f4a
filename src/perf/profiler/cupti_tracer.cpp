#include "cupti_tracer.h"

#include <cupti.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "clock.h"

namespace kjudge::profiler {

namespace {

// Big enough that a benchmark's timed loop fills few buffers: each one handed back costs a
// callback that walks every record.
constexpr std::size_t kBufferBytes = 8u << 20;

Store* g_tracing_store = nullptr;

// Which runtime and driver calls can launch a kernel, copy or memset. The others (error
// queries, event polls …) are dropped at once, so a program that polls in a loop does not grow
// the profile without bound.
std::vector<bool> g_runtime_launches;
std::vector<bool> g_driver_launches;

std::vector<bool> launching_calls(CUpti_CallbackDomain domain, std::uint32_t count) {
  std::vector<bool> launches(count, true);  // keep all if CUPTI cannot name them
  for (std::uint32_t cbid = 0; cbid < count; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    launches[cbid] = std::strstr(name, "Launch") != nullptr ||
                     std::strstr(name, "Memcpy") != nullptr ||
                     std::strstr(name, "Memset") != nullptr;
  }
  return launches;
}

bool keeps(const std::vector<bool>& launches, std::uint32_t cbid) {
  return cbid >= launches.size() || launches[cbid];
}

CopyKind copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return CopyKind::kHtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return CopyKind::kDtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return CopyKind::kDtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return CopyKind::kHtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return CopyKind::kPtoP;
    default:
      return CopyKind::kOther;
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void add_record(const CUpti_Activity* record, ActivityBatch& batch) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      // A forced flush hands over kernels still running, with no end: a truncated profile.
      if (k->start == 0 || k->end < k->start) {
        ++batch.dropped;
        return;
      }
      batch.kernels.push_back(
          {k->start, k->end, k->deviceId, k->contextId, k->streamId, k->correlationId, 0});
      batch.kernel_names.push_back(k->name);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      if (m->start == 0 || m->end < m->start) {
        ++batch.dropped;
        return;
      }
      batch.copies.push_back({m->start, m->end, m->bytes, m->deviceId, m->contextId, m->streamId,
                              m->correlationId, m->runtimeCorrelationId, copy_kind(m->copyKind)});
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      if (m->start == 0 || m->end < m->start) {
        ++batch.dropped;
        return;
      }
      batch.copies.push_back({m->start, m->end, m->bytes, m->deviceId, m->contextId, m->streamId,
                              m->correlationId, 0, copy_kind(m->copyKind)});
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      if (m->start == 0 || m->end < m->start) {
        ++batch.dropped;
        return;
      }
      batch.copies.push_back({m->start, m->end, m->bytes, m->deviceId, m->contextId, m->streamId,
                              m->correlationId, 0, CopyKind::kMemset});
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const auto& launches =
          record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? g_runtime_launches : g_driver_launches;
      if (keeps(launches, a->cbid)) {
        batch.api_calls.push_back({a->start, a->correlationId, a->threadId});
      }
      return;
    }
    default:
      return;
  }
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid_size) {
  ActivityBatch batch;
  CUpti_Activity* record = nullptr;
  while (valid_size > 0 &&
         cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    add_record(record, batch);
  }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) {
    batch.dropped += dropped;
  }
  std::free(buffer);
  if (g_tracing_store != nullptr) g_tracing_store->merge(batch);
}

std::uint64_t CUPTIAPI cupti_timestamp() { return now_ns(); }

}  // namespace

bool start_tracing(Store& store) {
  g_runtime_launches = launching_calls(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
  g_driver_launches = launching_calls(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
  g_tracing_store = &store;
  // CUPTI's timestamps (its activity records', and the conversion of the GPU's into host time)
  // come from our clock, not from libc's clock_gettime, which the program may define (clock.h).
  // Before any kind is enabled, as CUPTI asks. An older CUPTI without it keeps its own.
  cuptiActivityRegisterTimestampCallback(cupti_timestamp);
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
    return false;
  }
  // Launch threads as gettid() numbers them, the ids NVTX ranges carry.
  if (cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS) return false;
  // CONCURRENT_KERNEL rather than KERNEL: the latter serialises kernels, changing what is timed.
  // Without kernels there is nothing to time; the other kinds only add to a profile.
  if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) return false;
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER}) {
    cuptiActivityEnable(kind);
  }
  return true;
}

void flush_tracing(Store& store) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    store.add_dropped(dropped);
  }
}

}  // namespace kjudge::profiler

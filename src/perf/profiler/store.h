#pragma once
// What the profiler has seen so far, filled from CUPTI's buffer callbacks (a CUPTI thread or the
// thread that flushes) and from NVTX calls on any application thread, read once at exit.
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace kjudge::profiler {

struct KernelRecord {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
  std::uint32_t name = 0;  // index into Profile::kernel_names
};

enum class CopyKind : std::uint8_t { kHtoD, kDtoH, kDtoD, kHtoH, kPtoP, kMemset, kOther };

struct CopyRecord {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t bytes = 0;
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
  // A runtime call's id where CUPTI gives the driver call's as `correlation` (copies do).
  std::uint32_t runtime_correlation = 0;
  CopyKind kind = CopyKind::kOther;
};

// A runtime or driver call that may have launched work, kept to date and place the launch.
struct ApiRecord {
  std::uint64_t start = 0;
  std::uint32_t correlation = 0;
  std::uint32_t tid = 0;
};

struct RangeRecord {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t tid = 0;
  std::string name;
};

struct Profile {
  std::vector<KernelRecord> kernels;
  std::vector<CopyRecord> copies;
  std::vector<ApiRecord> api_calls;
  std::vector<RangeRecord> ranges;
  std::vector<std::string> kernel_names;
  std::uint64_t dropped = 0;
};

// One buffer's worth of records, gathered without the lock. Kernel names point into CUPTI's
// buffer, valid only until the callback returns, so merge() copies them.
struct ActivityBatch {
  std::vector<KernelRecord> kernels;
  std::vector<const char*> kernel_names;  // parallel to kernels
  std::vector<CopyRecord> copies;
  std::vector<ApiRecord> api_calls;
  std::uint64_t dropped = 0;
};

class Store {
 public:
  void merge(const ActivityBatch& batch);
  void add_range(RangeRecord range);
  void add_dropped(std::uint64_t count);
  // Everything so far; later additions are ignored, so records that arrive while the exit
  // record is being written cannot race with it.
  Profile take();

 private:
  std::uint32_t intern_name(const char* name);

  std::mutex mutex_;
  bool closed_ = false;
  Profile profile_;
  std::unordered_map<std::string, std::uint32_t> name_index_;
  // CUPTI hands the same pointer for every launch of a function; this skips hashing the name.
  std::unordered_map<const char*, std::uint32_t> pointer_index_;
};

// The process's store, or null while profiling is off (no output channel, or after fork).
Store* active_store();
void set_active_store(Store* store);

}  // namespace kjudge::profiler

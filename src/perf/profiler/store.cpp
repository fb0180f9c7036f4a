#include "store.h"

#include <atomic>
#include <cstring>
#include <utility>

namespace kjudge::profiler {

namespace {
std::atomic<Store*> g_store{nullptr};
}  // namespace

Store* active_store() { return g_store.load(std::memory_order_acquire); }

void set_active_store(Store* store) { g_store.store(store, std::memory_order_release); }

std::uint32_t Store::intern_name(const char* name) {
  if (name == nullptr) name = "";
  auto by_pointer = pointer_index_.find(name);
  // The pointer may have been reused for another name after a module was unloaded.
  if (by_pointer != pointer_index_.end() &&
      std::strcmp(profile_.kernel_names[by_pointer->second].c_str(), name) == 0) {
    return by_pointer->second;
  }
  auto [it, inserted] =
      name_index_.try_emplace(name, static_cast<std::uint32_t>(profile_.kernel_names.size()));
  if (inserted) profile_.kernel_names.emplace_back(name);
  pointer_index_[name] = it->second;
  return it->second;
}

void Store::merge(const ActivityBatch& batch) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  for (std::size_t i = 0; i < batch.kernels.size(); ++i) {
    KernelRecord kernel = batch.kernels[i];
    kernel.name = intern_name(batch.kernel_names[i]);
    profile_.kernels.push_back(kernel);
  }
  profile_.copies.insert(profile_.copies.end(), batch.copies.begin(), batch.copies.end());
  profile_.api_calls.insert(profile_.api_calls.end(), batch.api_calls.begin(),
                            batch.api_calls.end());
  profile_.dropped += batch.dropped;
}

void Store::add_range(RangeRecord range) {
  std::lock_guard lock(mutex_);
  if (!closed_) profile_.ranges.push_back(std::move(range));
}

void Store::add_dropped(std::uint64_t count) {
  std::lock_guard lock(mutex_);
  if (!closed_) profile_.dropped += count;
}

Profile Store::take() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  return std::move(profile_);
}

}  // namespace kjudge::profiler

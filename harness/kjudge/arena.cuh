#pragma once
// kj::Arena: where kj::Tensor memory comes from when the judge asks for `placement=arena`.
//
// By default every tensor is a cudaMalloc of its own and goes back with cudaFree. On the H100 a
// streaming kernel ran 13 % slower on buffers allocated that way, call after call, than on
// buffers that stay mapped (70.7 against 62.6 µs for 64 MB in and out; results/placement,
// results/gpu-runs.md 2026-11-23 fifth session): freeing and mapping memory between calls costs the
// next kernel, by an amount that varies from one process to another. The arena is one
// allocation made once; each tensor takes a random 2 MiB-aligned place in it that overlaps no
// live tensor, so a call's buffers still sit at new addresses (a result cached by pointer still
// misses) without memory being mapped between calls. When no place is free the tensor falls
// back to cudaMalloc. The default since the H100 showed it holds softmax's invocation means
// within 0.6 % where cudaMalloc per tensor spread them by 2-9 % (`--placement malloc` to compare).
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <random>

#include "placement.h"

namespace kj {

class Arena {
 public:
  // Never destroyed: tensors kept in the harness's globals (its last calls) are freed during
  // static destruction, after a function-local Arena would already be gone. On the H100 that
  // order made every arena run end in SIGSEGV after its report (2026-11-23, sixth session).
  static Arena& get() {
    static Arena* a = new Arena;
    return *a;
  }

  // Reserves `bytes` (rounded down to whole granules); false when the GPU would not give them.
  bool enable(std::size_t bytes) {
    if (base_ || bytes < kGranule) return base_ != nullptr;
    const std::size_t granules = bytes / kGranule;
    void* p = nullptr;
    if (cudaMalloc(&p, granules * kGranule) != cudaSuccess) {
      cudaGetLastError();  // clear the failed allocation's error
      return false;
    }
    base_ = static_cast<char*>(p);
    places_ = std::make_unique<Placement>(granules, std::random_device{}());
    return true;
  }

  std::size_t size() const { return places_ ? places_->granules() * kGranule : 0; }
  std::size_t used() const { return places_ ? places_->used() * kGranule : 0; }

  // A place for `bytes`, or nullptr (no arena, or no room).
  void* alloc(std::size_t bytes) {
    if (!places_ || bytes == 0) return nullptr;
    const auto at = places_->take((bytes + kGranule - 1) / kGranule);
    return at ? base_ + *at * kGranule : nullptr;
  }

  // Gives a place back; false when `p` is not arena memory (then it was a cudaMalloc).
  bool release(void* p) {
    if (!places_ || p < base_ || p >= base_ + size()) return false;
    places_->give_back(static_cast<std::size_t>(static_cast<char*>(p) - base_) / kGranule);
    return true;
  }

 private:
  static constexpr std::size_t kGranule = std::size_t{2} << 20;
  char* base_ = nullptr;
  std::unique_ptr<Placement> places_;
};

}  // namespace kj

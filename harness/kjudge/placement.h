#pragma once
// kj::Placement: the bookkeeping of kj::Arena (arena.cuh), apart from CUDA so the judge's CPU
// tests can check it. A range of granules; each allocation takes a run of them at a random
// start that overlaps no live run (the first gap that fits once 64 random picks have missed).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <random>

namespace kj {

class Placement {
 public:
  Placement(std::size_t granules, std::uint64_t seed) : granules_(granules), rng_(seed) {}

  std::size_t granules() const { return granules_; }
  std::size_t used() const { return used_; }

  // The first granule of a free run of `need`, now taken; nullopt when none is free.
  std::optional<std::size_t> take(std::size_t need) {
    if (need == 0 || need > granules_) return std::nullopt;
    std::uniform_int_distribution<std::size_t> pick(0, granules_ - need);
    for (int attempt = 0; attempt < 64; ++attempt) {
      const std::size_t at = pick(rng_);
      if (free_at(at, need)) return mark(at, need);
    }
    std::size_t at = 0;
    for (const auto& [start, len] : live_) {
      if (start - at >= need) return mark(at, need);
      at = start + len;
    }
    if (granules_ - at >= need) return mark(at, need);
    return std::nullopt;
  }

  // Gives back the run that starts at `first`; false when none does.
  bool give_back(std::size_t first) {
    const auto it = live_.find(first);
    if (it == live_.end()) return false;
    used_ -= it->second;
    live_.erase(it);
    return true;
  }

 private:
  bool free_at(std::size_t at, std::size_t need) const {
    const auto next = live_.lower_bound(at);
    if (next != live_.end() && next->first < at + need) return false;
    if (next == live_.begin()) return true;
    const auto prev = std::prev(next);
    return prev->first + prev->second <= at;
  }
  std::size_t mark(std::size_t at, std::size_t need) {
    live_[at] = need;
    used_ += need;
    return at;
  }

  std::size_t granules_;
  std::size_t used_ = 0;
  std::map<std::size_t, std::size_t> live_;  // first granule -> granules, of each live run
  std::mt19937_64 rng_;
};

}  // namespace kj

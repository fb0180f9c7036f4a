#pragma once
// How the task harness marks its calls of custom_kernel for the judge's CUPTI profiler: an NVTX
// push/pop range in a domain of the harness's own around each call, named by what the call is.
// The judge (src/task/cupti.cpp) reads the ranges back from the profiler's record to tell
// which GPU work each timed call launched. A private domain rather than the global one: a
// submission's stray nvtxRangePop() pops its own (global) stack and cannot end the harness's
// range early. Plain C++, shared by the harness and the judge.
#include <cstdint>
#include <cstdio>
#include <string>

namespace kj {

// The NVTX domain; the profiler records a domain's range as "<domain>::<name>".
inline constexpr const char* kMarkDomain = "kjudge";

// A timed call: benchmark `bench`, repetition `rep` (the index of its time in times_ns).
inline std::string timed_mark(std::uint64_t bench, std::uint64_t rep) {
  return "timed " + std::to_string(bench) + " " + std::to_string(rep);
}

// Any other call of custom_kernel (warm-up, the untimed call before each benchmark): work it
// launches belongs to a call, though to no timed one.
inline constexpr const char* kUntimedMark = "untimed";

// The benchmark and repetition of a recorded range name, "kjudge::timed 2 17"; false for any
// other name.
inline bool parse_timed_mark(const std::string& recorded, std::uint64_t* bench,
                             std::uint64_t* rep) {
  const std::string head = std::string(kMarkDomain) + "::timed ";
  if (recorded.compare(0, head.size(), head) != 0) return false;
  unsigned long long b = 0, r = 0;
  int used = 0;
  const std::string rest = recorded.substr(head.size());
  if (std::sscanf(rest.c_str(), "%llu %llu%n", &b, &r, &used) != 2) return false;
  if (static_cast<std::size_t>(used) != rest.size()) return false;
  // Exactly the text timed_mark() writes: no signs, spaces or leading zeros it would not.
  if (timed_mark(b, r) != "timed " + rest) return false;
  *bench = b;
  *rep = r;
  return true;
}

inline bool is_untimed_mark(const std::string& recorded) {
  return recorded == std::string(kMarkDomain) + "::" + kUntimedMark;
}

}  // namespace kj

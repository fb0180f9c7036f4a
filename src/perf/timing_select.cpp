#include "perf/timing_select.h"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

namespace kjudge {
namespace {

constexpr std::string_view kCustomMarker = "COMPUTE_EVAL_TIME_MS:";

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (const std::string& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

bool any_glob(const std::vector<std::string>& patterns, const std::string& text) {
  for (const std::string& p : patterns) {
    if (glob_match(p, text)) return true;
  }
  return false;
}

// The last "::"-separated component outside template arguments: "ns::gemm" -> "gemm".
std::string unqualified(const std::string& name) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

bool kernel_matches(const std::vector<std::string>& patterns, const std::string& name) {
  if (any_glob(patterns, name)) return true;
  std::string bare = bare_kernel_name(name);
  if (bare == name) return false;
  return any_glob(patterns, bare) || any_glob(patterns, unqualified(bare));
}

bool kernel_selected(const TimingMode& mode, const KernelRecord& k) {
  if (!mode.include.empty() && !kernel_matches(mode.include, k.name)) return false;
  return !kernel_matches(mode.exclude, k.name);
}

std::string filter_words(const TimingMode& mode) {
  std::string out;
  if (!mode.include.empty()) out += "include " + join(mode.include);
  if (!mode.exclude.empty()) out += (out.empty() ? "" : "; ") + ("exclude " + join(mode.exclude));
  return out.empty() ? "" : " (" + out + ")";
}

std::string plural(std::size_t n, const std::string& one, const std::string& many = "") {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

double ns_to_ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }

TimeSelection timed(std::uint64_t ns, std::string how) {
  TimeSelection t;
  if (ns == 0) {
    t.not_timed = "measured time is zero (" + how + ")";
  } else {
    t.ms = ns_to_ms(ns);
    t.how = std::move(how);
  }
  return t;
}

TimeSelection untimed(std::string why) {
  TimeSelection t;
  t.not_timed = std::move(why);
  return t;
}

TimeSelection select_process(const ProfileRecord& rec) {
  if (rec.app_start_ns == 0 && rec.app_end_ns == 0) {
    return untimed("the profile record has no APP line (the process's span)");
  }
  return timed(rec.app_end_ns - rec.app_start_ns, "process: wall time from start to exit");
}

TimeSelection select_kernels(const TimingMode& mode, const ProfileRecord& rec, bool with_copies) {
  std::uint64_t ns = 0;
  std::size_t kernels = 0;
  for (const KernelRecord& k : rec.kernels) {
    if (!kernel_selected(mode, k)) continue;
    ns += k.end_ns - k.start_ns;
    ++kernels;
  }
  if (!with_copies) {
    if (kernels == 0) {
      return untimed(rec.kernels.empty() ? "no kernels matched: the program launched none"
                                         : "no kernels matched: none of the " +
                                               plural(rec.kernels.size(), "kernel") + " launched" +
                                               filter_words(mode));
    }
    return timed(ns, "kernels: kernel time of " + plural(kernels, "kernel") + " of " +
                         std::to_string(rec.kernels.size()) + filter_words(mode));
  }
  for (const CopyRecord& c : rec.copies) ns += c.end_ns - c.start_ns;
  if (kernels == 0 && rec.copies.empty()) {
    return untimed("no GPU activity matched: no kernels" + filter_words(mode) +
                   " and no copies or memsets");
  }
  return timed(ns, "gpu: time of " + plural(kernels, "kernel") + filter_words(mode) + " and " +
                       plural(rec.copies.size(), "copy or memset", "copies or memsets"));
}

// Sorted, disjoint closed intervals covering the given ones.
std::vector<std::pair<std::uint64_t, std::uint64_t>> merge_spans(
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

bool inside(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& merged, std::uint64_t t) {
  auto it = std::upper_bound(merged.begin(), merged.end(), t,
                             [](std::uint64_t v, const auto& span) { return v < span.first; });
  return it != merged.begin() && t <= std::prev(it)->second;
}

TimeSelection select_region(const TimingMode& mode, const ProfileRecord& rec) {
  const std::string label = "region " + join(mode.include);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  std::uint64_t wall_ns = 0;
  for (const RangeRecord& r : rec.ranges) {
    if (!any_glob(mode.include, r.name) || any_glob(mode.exclude, r.name)) continue;
    spans.emplace_back(r.start_ns, r.end_ns);
    wall_ns += r.end_ns - r.start_ns;
  }
  if (spans.empty()) {
    return untimed("no NVTX range matches " + join(mode.include) +
                   (mode.exclude.empty() ? "" : " (exclude " + join(mode.exclude) + ")") +
                   (rec.ranges.empty() ? ": the program recorded no ranges" : ""));
  }
  const std::string ranges = plural(spans.size(), "range");
  // ComputeEval sums the ranges' durations (nsys's NVTX summary), overlapping ones included.
  if (mode.time_type == "wall_clock") {
    return timed(wall_ns, label + ": wall-clock time of " + ranges);
  }

  auto merged = merge_spans(std::move(spans));
  std::uint64_t ns = 0;
  std::size_t kernels = 0, placed_by_gpu_start = 0;
  for (const KernelRecord& k : rec.kernels) {
    // Without a launch time, the GPU start is the best evidence left; it can only be later than
    // the launch, so a kernel launched just before a range's end may be missed.
    const bool known = k.launch_ns != 0;
    if (!inside(merged, known ? k.launch_ns : k.start_ns)) continue;
    ns += k.end_ns - k.start_ns;
    ++kernels;
    if (!known) ++placed_by_gpu_start;
  }
  if (kernels == 0) {
    return untimed("no kernels matched: none was launched inside the " + ranges + " matching " +
                   join(mode.include));
  }
  std::string how =
      label + ": kernel time of " + plural(kernels, "kernel") + " launched in " + ranges;
  if (placed_by_gpu_start > 0) {
    how += "; " + std::to_string(placed_by_gpu_start) + " of them had no launch time and " +
           "were placed by their GPU start instead";
  }
  return timed(ns, how);
}

}  // namespace

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string bare_kernel_name(const std::string& name) {
  std::string_view s = name;
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty() || s.back() != ')') return name;
  // The parameter list is the parenthesised group that ends the name: earlier parentheses
  // belong to the name itself, as in "(anonymous namespace)::k(int)".
  int depth = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos || open == 0) return name;
  std::string_view head = s.substr(0, open);

  // The return type ends at the last space outside template arguments and parentheses.
  depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    char c = head[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (c == ' ' && depth == 0) start = i + 1;
  }
  std::string out;
  depth = 0;
  for (char c : head.substr(start)) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>' && depth > 0) --depth;
  }
  return out.empty() ? name : out;
}

std::optional<double> parse_custom_time(const std::string& output) {
  std::string_view last;
  bool found = false;
  std::size_t pos = 0;
  while (pos <= output.size()) {
    std::size_t nl = output.find('\n', pos);
    if (nl == std::string::npos) nl = output.size();
    std::string_view line(output.data() + pos, nl - pos);
    std::size_t at = line.find(kCustomMarker);
    if (at != std::string_view::npos) {
      last = line.substr(at + kCustomMarker.size());
      found = true;
    }
    pos = nl + 1;
  }
  if (!found) return std::nullopt;

  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!last.empty() && is_space(last.front())) last.remove_prefix(1);
  while (!last.empty() && is_space(last.back())) last.remove_suffix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(last.data(), last.data() + last.size(), v);
  if (last.empty() || ec != std::errc() || end != last.data() + last.size()) return std::nullopt;
  if (!std::isfinite(v) || std::signbit(v)) return std::nullopt;
  return v;
}

std::string timing_mode_problem(const TimingMode& mode) {
  const std::string& t = mode.type;
  if (t != "process" && t != "kernels" && t != "region" && t != "gpu" && t != "custom") {
    return "unknown timing mode type \"" + t +
           "\" (expected process, kernels, region, gpu or custom)";
  }
  if (t == "region") {
    if (mode.include.empty()) return "region timing needs include: the NVTX range names to time";
    if (!mode.time_type.empty() && mode.time_type != "kernel" && mode.time_type != "wall_clock") {
      return "unknown region time_type \"" + mode.time_type + "\" (expected kernel or wall_clock)";
    }
  }
  return "";
}

bool needs_profiler(const TimingMode& mode) { return mode.type != "custom"; }

std::optional<double> region_wall_ms(const TimingMode& mode, const ProfileRecord& record) {
  if (mode.type != "region" || mode.time_type == "wall_clock" || !timing_mode_problem(mode).empty())
    return std::nullopt;
  std::uint64_t ns = 0;
  bool any = false;
  for (const RangeRecord& r : record.ranges) {
    if (!any_glob(mode.include, r.name) || any_glob(mode.exclude, r.name)) continue;
    ns += r.end_ns - r.start_ns;
    any = true;
  }
  if (!any) return std::nullopt;
  return ns_to_ms(ns);
}

TimeSelection select_time(const TimingMode& mode, const ProfileRecord* record,
                          const std::string& program_output) {
  if (std::string problem = timing_mode_problem(mode); !problem.empty()) {
    return untimed("unusable timing mode: " + problem);
  }
  if (mode.type == "custom") {
    std::optional<double> ms = parse_custom_time(program_output);
    if (!ms) {
      return untimed(program_output.find(kCustomMarker) == std::string::npos
                         ? "the benchmark printed no COMPUTE_EVAL_TIME_MS line"
                         : "the benchmark's last COMPUTE_EVAL_TIME_MS line holds no valid time");
    }
    TimeSelection t;
    if (*ms == 0) {
      t.not_timed = "measured time is zero (COMPUTE_EVAL_TIME_MS: 0)";
    } else {
      t.ms = ms;
      t.how = "custom: the last COMPUTE_EVAL_TIME_MS the benchmark printed";
    }
    return t;
  }
  if (record == nullptr) {
    return untimed(
        "no profile record: the profiler wrote nothing (the program crashed, was killed, or "
        "exited without running exit handlers)");
  }
  if (record->dropped > 0) {
    return untimed("CUPTI dropped " + std::to_string(record->dropped) +
                   " records: the timing would be incomplete");
  }
  if (mode.type == "process") return select_process(*record);
  if (mode.type == "kernels") return select_kernels(mode, *record, false);
  if (mode.type == "gpu") return select_kernels(mode, *record, true);
  return select_region(mode, *record);
}

}  // namespace kjudge

// The CUPTI profiler's record of a KernelBench run, against the runner's marks.
// Declared, and explained, in kernelbench/judge/cupti.h.
#include "kernelbench/judge/cupti.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "perf/profile_record.h"

namespace kjudge::kernelbench {
namespace {

using nlohmann::ordered_json;

constexpr double kBusyToleranceNs = 1000;
constexpr double kBusyToleranceShare = 0.02;
constexpr const char* kSides[] = {"solution", "reference", "compiled"};

struct Activity {
  std::uint64_t start, end, launch;
  std::uint32_t tid;
  std::string name;  // kernels; copies "copy <kind>"
  bool kernel;
};

// The union length of [start, end) intervals.
double busy_ns(std::vector<std::pair<std::uint64_t, std::uint64_t>> v) {
  std::sort(v.begin(), v.end());
  double total = 0;
  std::uint64_t cur_s = 0, cur_e = 0;
  bool open = false;
  for (const auto& [s, e] : v) {
    if (!open || s > cur_e) {
      if (open) total += static_cast<double>(cur_e - cur_s);
      cur_s = s;
      cur_e = e;
      open = true;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (open) total += static_cast<double>(cur_e - cur_s);
  return total;
}

}  // namespace

CuptiEvidence cupti_evidence(const RunOutcome& o) {
  CuptiEvidence ev;
  if (!o.profiled) {
    ev.why = "no profiler";
    return ev;
  }
  if (!o.cupti.reported || !o.cupti.clock) {
    ev.why = o.cupti.why.empty() ? "the runner marked no call" : o.cupti.why;
    ev.json = {{"used", false}, {"why", ev.why}};
    return ev;
  }
  ProfileRecord rec;
  try {
    rec = parse_profile_record(o.profile, o.profile_nonce);
  } catch (const std::exception& e) {
    ev.why = std::string("the profiler's record cannot be read: ") + e.what();
    ev.json = {{"used", false}, {"why", ev.why}};
    return ev;
  }
  std::vector<Activity> acts;
  for (const KernelRecord& k : rec.kernels)
    acts.push_back({k.start_ns, k.end_ns, k.launch_ns, k.launch_tid, k.name, true});
  for (const CopyRecord& c : rec.copies)
    acts.push_back({c.start_ns, c.end_ns, c.launch_ns, c.launch_tid, "copy " + c.kind, false});
  const std::vector<CallMark>& calls = o.cupti.calls;
  // Per side: GPU ns by kernel name; per timed solution call its activities' intervals.
  std::map<std::string, double> names[3];
  double side_ns[3] = {0, 0, 0};
  std::map<int, std::vector<std::pair<std::uint64_t, std::uint64_t>>> timed_sol;
  std::uint64_t loop_start = UINT64_MAX, loop_end = 0;
  for (const CallMark& m : calls)
    if (m.phase == 2) {
      loop_start = std::min(loop_start, m.start_ns);
      loop_end = std::max(loop_end, m.end_ns);
    }
  int outside = 0;
  double outside_ns = 0;
  std::vector<std::string> outside_names;
  for (const Activity& a : acts) {
    if (a.launch == 0) continue;
    const CallMark* in = nullptr;
    for (const CallMark& m : calls)
      if (a.launch >= m.start_ns && a.launch <= m.end_ns) {
        in = &m;
        break;
      }
    if (in) {
      const double ns = static_cast<double>(a.end - a.start);
      if (a.kernel && in->phase != 1) names[in->side][a.name] += ns;
      if (in->phase != 1) side_ns[in->side] += ns;
      if (in->side == 0 && in->phase == 2) timed_sol[in->index].emplace_back(a.start, a.end);
    } else if (a.launch >= loop_start && a.launch <= loop_end && a.tid != o.cupti.tid) {
      ++outside;
      outside_ns += static_cast<double>(a.end - a.start);
      if (outside_names.size() < 4) outside_names.push_back(a.name.substr(0, 100));
    }
  }
  ev.used = true;
  // reference_kernels: the solution's GPU time in kernels the reference also ran.
  double shared = 0;
  for (const auto& [name, ns] : names[0])
    if (names[1].count(name)) shared += ns;
  const double share = side_ns[0] > 0 ? shared / side_ns[0] : 0;
  if (side_ns[0] > 0 && share > 0.5) {
    std::string top;
    std::vector<std::pair<double, std::string>> byns;
    for (const auto& [name, ns] : names[0])
      if (names[1].count(name)) byns.emplace_back(ns, name);
    std::sort(byns.rbegin(), byns.rend());
    for (std::size_t i = 0; i < byns.size() && i < 2; ++i)
      top += (i ? ", " : "") + byns[i].second.substr(0, 80);
    ev.findings.push_back(
        {"reference_kernels", Severity::warning, 0,
         fmt::format("{:.0f}% of ModelNew's GPU time is in kernels the reference ran too ({}): "
                     "it calls the reference's own operators",
                     100 * share, top),
         "cupti"});
  }
  // cupti_below: a timed call reported faster than the GPU worked inside it.
  int below = 0;
  std::string example;
  for (const auto& [index, spans] : timed_sol) {
    if (index < 0 || static_cast<std::size_t>(index) >= o.pairs.size()) continue;
    const double busy = busy_ns(spans);
    const double reported = o.pairs[index].sol_dev_ms * 1e6;
    if (busy > reported + std::max(kBusyToleranceNs, kBusyToleranceShare * busy)) {
      ++below;
      if (example.empty())
        example = fmt::format("pair {}: {:.1f} us reported, {:.1f} us of GPU work", index,
                              reported / 1e3, busy / 1e3);
    }
  }
  if (below > 0)
    ev.findings.push_back({"cupti_below", Severity::hack, 0,
                           fmt::format("{} timed calls reported faster than the GPU worked in "
                                       "them ({})",
                                       below, example),
                           "cupti"});
  if (outside > 0) {
    std::string list;
    for (std::size_t i = 0; i < outside_names.size(); ++i)
      list += (i ? ", " : "") + outside_names[i];
    ev.findings.push_back({"cupti_outside", Severity::hack, 0,
                           fmt::format("{} kernels or copies ({:.1f} us of GPU time) launched by "
                                       "another thread while the pairs were timed, outside every "
                                       "call: {}",
                                       outside, outside_ns / 1e3, list),
                           "cupti"});
  }
  ordered_json sides = ordered_json::object();
  for (int s = 0; s < 3; ++s) {
    std::vector<std::pair<double, std::string>> byns;
    for (const auto& [name, ns] : names[s]) byns.emplace_back(ns, name);
    std::sort(byns.rbegin(), byns.rend());
    ordered_json top = ordered_json::array();
    for (std::size_t i = 0; i < byns.size() && i < 8; ++i)
      top.push_back({{"name", byns[i].second.substr(0, 160)}, {"gpu_us", byns[i].first / 1e3}});
    sides[kSides[s]] = {{"gpu_us", side_ns[s] / 1e3}, {"kernels", names[s].size()}, {"top", top}};
  }
  ev.json = {{"used", true},
             {"dropped", rec.dropped},
             {"finished", o.cupti.finished},
             {"reference_share", share},
             {"below", below},
             {"outside", outside},
             {"sides", sides}};
  return ev;
}

}  // namespace kjudge::kernelbench

#include "task/cupti.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "kjudge/bench_stats.h"
#include "kjudge/call_marks.h"

namespace kjudge::task {

namespace {

constexpr std::uint64_t kNoBench = ~0ull;

// A call of custom_kernel as the harness's range shows it.
struct Call {
  std::uint64_t start = 0, end = 0;
  std::uint64_t bench = kNoBench, rep = 0;  // kNoBench: an untimed call
};

// One kernel or copy, as far as placing it goes.
struct Activity {
  std::uint64_t start = 0, end = 0, launch = 0;
  std::uint32_t tid = 0, stream = 0, context = 0;
  bool kernel = false;
  const std::string* name = nullptr;
};

// Per timed call: the GPU extent of its work.
struct CallWork {
  std::uint64_t first = ~0ull, last = 0;
  bool any = false;
};

std::string us(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ns / 1e3);
  return b;
}

std::string bench_name(const std::vector<std::string>& names, std::size_t i) {
  return i < names.size() ? names[i] : "#" + std::to_string(i);
}

// The call whose range holds `t`, or null. `calls` are sorted by start and never overlap (the
// harness makes one call at a time on one thread).
const Call* call_at(const std::vector<Call>& calls, std::uint64_t t) {
  auto it = std::upper_bound(calls.begin(), calls.end(), t,
                             [](std::uint64_t x, const Call& c) { return x < c.start; });
  if (it == calls.begin()) return nullptr;
  --it;
  return t <= it->end ? &*it : nullptr;
}

TaskCupti not_used(std::string why) {
  TaskCupti c;
  c.why = std::move(why);
  return c;
}

}  // namespace

TaskCupti analyze_task_profile(const ProfileRecord& record, const HarnessReport& report,
                               const std::vector<std::string>& names) {
  TaskCupti out;
  out.dropped = record.dropped;
  auto untrusted = [&](std::string detail) {
    out.why = "the harness's call ranges in the record cannot be trusted";
    out.flags.push_back({"cupti_ranges", std::move(detail)});
    return out;
  };

  // The harness's calls. A timed name seen twice, a range on another thread, or a name for a
  // benchmark the harness never ran means something else wrote into the harness's domain: the
  // calls cannot be told apart, so nothing is judged from the record.
  std::vector<Call> calls;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  std::set<std::uint32_t> tids;
  for (const auto& r : record.ranges) {
    Call c{r.start_ns, r.end_ns};
    if (kj::parse_timed_mark(r.name, &c.bench, &c.rep)) {
      if (c.bench >= report.benchmarks.size() || !seen.insert({c.bench, c.rep}).second)
        return untrusted("the range '" + r.name +
                         "' of the harness's NVTX domain came twice or names no benchmark: "
                         "something else writes ranges in the harness's domain");
    } else if (!kj::is_untimed_mark(r.name)) {
      continue;  // the submission's own ranges, or profile mode's
    }
    tids.insert(r.tid);
    calls.push_back(c);
  }
  if (tids.size() > 1)
    return untrusted("ranges of the harness's NVTX domain came from " +
                     std::to_string(tids.size()) + " threads; the harness uses one");
  if (record.kernels.empty()) {
    out.why = "CUPTI recorded no GPU activity (tracing could not start here)";
    return out;
  }
  // Every timed call the harness reported must have its range; the one that failed its check
  // (rep == times) may have one too.
  int expected = 0, found = 0;
  for (std::size_t b = 0; b < report.benchmarks.size(); ++b)
    for (std::size_t rep = 0; rep < report.benchmarks[b].times_ns.size(); ++rep) {
      ++expected;
      found += seen.count({b, rep}) ? 1 : 0;
    }
  if (found < expected)
    return untrusted(std::to_string(expected - found) + " of " + std::to_string(expected) +
                     " timed calls have no range in the profiler's record (NVTX injection "
                     "turned off, or ranges ended early)");
  std::sort(calls.begin(), calls.end(),
            [](const Call& a, const Call& b) { return a.start < b.start; });
  // The harness makes one call at a time: a range inside another (a solution that pushes
  // "untimed" around its launches in the harness's domain) would move work out of the call.
  for (std::size_t i = 1; i < calls.size(); ++i)
    if (calls[i].start <= calls[i - 1].end)
      return untrusted(
          "two ranges of the harness's NVTX domain overlap; the harness makes one "
          "call at a time");
  const std::uint32_t harness_tid = tids.empty() ? 0 : *tids.begin();
  // The harness launches its own work (inputs, reference, flush) between the calls, on the
  // thread its ranges name. Should CUPTI number threads otherwise than NVTX does here, no
  // launch would carry that number: threads are then not compared at all, rather than every
  // launch of the harness taken for another thread's.
  out.threads_known = false;
  for (const auto& k : record.kernels)
    if (k.launch_tid == harness_tid && k.launch_ns != 0 && call_at(calls, k.launch_ns) == nullptr) {
      out.threads_known = true;
      break;
    }

  std::vector<Activity> acts;
  acts.reserve(record.kernels.size() + record.copies.size());
  for (const auto& k : record.kernels)
    acts.push_back(
        {k.start_ns, k.end_ns, k.launch_ns, k.launch_tid, k.stream, k.context, true, &k.name});
  for (const auto& m : record.copies)
    acts.push_back(
        {m.start_ns, m.end_ns, m.launch_ns, m.launch_tid, m.stream, m.context, false, nullptr});

  out.benchmarks.resize(report.benchmarks.size());
  std::map<std::pair<std::uint64_t, std::uint64_t>, CallWork> work;
  std::vector<std::set<std::uint32_t>> streams(report.benchmarks.size()),
      contexts(report.benchmarks.size());
  for (const Activity& a : acts) {
    if (a.launch == 0 || a.tid == 0) {
      ++out.unplaced;
      continue;
    }
    const Call* c = call_at(calls, a.launch);
    if (c == nullptr) {
      // The harness's own work between the calls, or nothing to tell it from.
      if (a.tid == harness_tid || !out.threads_known) continue;
      (a.kernel ? out.outside_kernels : out.outside_copies)++;
      out.outside_gpu_ns += static_cast<double>(a.end - a.start);
      if (a.kernel && out.outside_names.size() < 3 &&
          std::find(out.outside_names.begin(), out.outside_names.end(), *a.name) ==
              out.outside_names.end())
        out.outside_names.push_back(*a.name);
      continue;
    }
    if (c->bench == kNoBench || c->rep >= report.benchmarks[c->bench].times_ns.size()) continue;
    CuptiBenchmark& b = out.benchmarks[c->bench];
    (a.kernel ? b.kernels : b.copies)++;
    if (a.tid != harness_tid && out.threads_known) ++b.other_thread_launches;
    streams[c->bench].insert(a.stream);
    contexts[c->bench].insert(a.context);
    CallWork& w = work[{c->bench, c->rep}];
    w.first = std::min(w.first, a.start);
    w.last = std::max(w.last, a.end);
    w.any = true;
  }

  for (std::size_t i = 0; i < report.benchmarks.size(); ++i) {
    CuptiBenchmark& b = out.benchmarks[i];
    const std::vector<double>& ev = report.benchmarks[i].times_ns;
    b.streams = static_cast<int>(streams[i].size());
    b.contexts = static_cast<int>(contexts[i].size());
    double excess = 0, events = 0;
    for (std::size_t rep = 0; rep < ev.size(); ++rep) {
      auto it = work.find({i, rep});
      const double span =
          it == work.end() ? 0.0 : static_cast<double>(it->second.last - it->second.first);
      b.span_ns.push_back(span);
      excess += std::max(0.0, span - ev[rep]);
      events += ev[rep];
    }
    b.calls = static_cast<int>(ev.size());
    if (b.calls == 0) continue;
    b.excess_ns = excess / b.calls;
    b.event_mean_ns = events / b.calls;
    if (cupti_undercounts(b.excess_ns, b.event_mean_ns)) {
      kj::RunStats s = kj::summarize_runs(b.span_ns);
      std::string where =
          std::to_string(b.streams) + " stream(s), " + std::to_string(b.contexts) + " context(s)";
      if (b.other_thread_launches > 0)
        where += ", " + std::to_string(b.other_thread_launches) + " launches from other threads";
      out.flags.push_back(
          {"cupti_undercount",
           "benchmark '" + bench_name(names, i) + "': the GPU work launched in each timed call " +
               "spanned " + us(s.mean) + " us on average (CUPTI), the CUDA events timed " +
               us(b.event_mean_ns) + " us; " + us(b.excess_ns) +
               " us per call ran where the events did not look (" + where +
               "): another stream, thread or context, or work left running past the call"});
    }
  }
  if (out.outside_kernels + out.outside_copies > 0) {
    std::string list;
    for (const auto& n : out.outside_names) list += (list.empty() ? "" : ", ") + n;
    out.flags.push_back(
        {"cupti_outside", std::to_string(out.outside_kernels) + " kernels and " +
                              std::to_string(out.outside_copies) + " copies (" +
                              us(out.outside_gpu_ns) +
                              " us of GPU time) were launched outside every call of "
                              "custom_kernel by threads other than the harness's" +
                              (list.empty() ? std::string() : " (" + list + ")")});
  }
  out.used = true;
  return out;
}

TaskCupti task_cupti_from_record(const std::string& text, const std::string& nonce,
                                 const HarnessReport& report, const std::vector<std::string>& names,
                                 const std::string& process) {
  const bool loaded = report.profiler == "loaded";
  if (text.empty()) {
    if (!loaded)
      return not_used(
          "the profiler did not load into " + process +
          " (its library or CUPTI is unavailable here): timed by the CUDA events and the host "
          "clock only");
    TaskCupti c = not_used("the profiler was loaded but wrote no record");
    c.flags.push_back(
        {"cupti_record", "the profiler was loaded into " + process +
                             " but its record never came: the process ended without running its "
                             "exit handlers (_exit, quick_exit), or its channel was closed"});
    return c;
  }
  // The header, which the profiler writes as it starts (KJUDGE_PROFILE_EARLY_HEADER), and
  // nothing after it: loaded, but the process never ran its exit handlers. Whatever the
  // harness's report says: a report written by something else may claim no profiler at all.
  if (text == "KJPROF 1 " + nonce + "\n") {
    TaskCupti c = not_used("the profiler started but never finished its record");
    c.unfinished = true;
    c.flags.push_back(
        {"cupti_record", "the profiler started in " + process +
                             " but its record was never finished: the process ended without "
                             "running its exit handlers (_exit, quick_exit, a crash in a "
                             "destructor)"});
    return c;
  }
  ProfileRecord record;
  try {
    record = parse_profile_record(text, nonce);
  } catch (const ProfileError& e) {
    TaskCupti c = not_used(std::string("the profiler's record was refused: ") + e.what());
    c.flags.push_back({"cupti_record", std::string("the profiler's record was refused (") +
                                           e.what() +
                                           "): something else wrote into its channel, or cut it"});
    return c;
  }
  return analyze_task_profile(record, report, names);
}

nlohmann::json cupti_stage_json(const TaskCupti& c) {
  nlohmann::json j = {{"used", c.used}};
  if (!c.why.empty()) j["why"] = c.why;
  if (!c.used) return j;
  j["dropped"] = c.dropped;
  j["threads_known"] = c.threads_known;
  j["unplaced"] = c.unplaced;
  j["outside"] = {{"kernels", c.outside_kernels},
                  {"copies", c.outside_copies},
                  {"gpu_us", c.outside_gpu_ns / 1e3},
                  {"names", c.outside_names}};
  return j;
}

void add_cupti_benchmark_fields(const CuptiBenchmark& b, nlohmann::json& x) {
  kj::RunStats s = kj::summarize_runs(b.span_ns);
  x["cupti_calls"] = b.calls;
  x["cupti_mean_us"] = s.mean / 1e3;
  x["cupti_median_us"] = s.median / 1e3;
  x["cupti_excess_us"] = b.excess_ns / 1e3;
  x["cupti_kernels"] = b.kernels;
  x["cupti_copies"] = b.copies;
  x["cupti_streams"] = b.streams;
  x["cupti_contexts"] = b.contexts;
  x["cupti_other_thread_launches"] = b.other_thread_launches;
}

}  // namespace kjudge::task

// Reading the CUPTI profiler's records of the Triton timing processes and judging them.
// Declared, and explained, in triton/timing/cupti.h.
#include "triton/timing/cupti.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace kjudge::triton {

namespace {

constexpr int kImport = -2;  // the window of the operator code's import

// A window the runner marked: a call of the operator code, or its import.
struct Window {
  std::uint64_t start = 0, end = 0;
  std::size_t site = 0;
  int rep = -1;  // >= 0: a timed call; -1: another call; kImport
};

const Window* window_at(const std::vector<Window>& ws, std::uint64_t t) {
  auto it = std::upper_bound(ws.begin(), ws.end(), t,
                             [](std::uint64_t x, const Window& w) { return x < w.start; });
  if (it == ws.begin()) return nullptr;
  --it;
  return t <= it->end ? &*it : nullptr;
}

TritonCuptiProcess not_used(std::string why) {
  TritonCuptiProcess p;
  p.why = std::move(why);
  return p;
}

std::string us(double ns) { return fmt::format("{:.1f}", ns / 1e3); }

std::string entry_name(const std::vector<std::string>& entries, std::size_t i) {
  return i < entries.size() ? entries[i] : fmt::format("site {}", i);
}

// The per-call work of one timed call: the GPU extent of what its window launched.
struct CallWork {
  std::uint64_t first = ~0ull, last = 0;
};

}  // namespace

bool aten_kernel(const std::string& name) {
  return name.find("at::native::") != std::string::npos ||
         name.find("at::cuda::") != std::string::npos || name.rfind("at::", 0) == 0 ||
         name.rfind("void at::", 0) == 0;
}

TritonCuptiProcess analyze_triton_profile(const ProfileRecord& record,
                                          const TritonCuptiMarks& marks,
                                          const std::vector<TritonCallSite>& sites,
                                          const TritonStreamLog* stream) {
  std::vector<Window> ws;
  std::set<std::pair<std::size_t, int>> timed;
  std::uint64_t last_end = 0;
  for (const TritonCallMark& m : marks.calls) {
    // A site with no timed calls is not reported (the test's own call raised, as
    // rmsnorm_fused's over-size case does on purpose), but its calls are still the operator
    // code's: their windows stand. A timed call of such a site is a disagreement.
    if (m.site >= sites.size() && m.rep >= 0)
      return not_used(fmt::format(
          "the runner marked timed call {} of site {}, which it never reported", m.rep, m.site));
    if (m.rep >= 0) {
      if (static_cast<std::size_t>(m.rep) >= sites[m.site].samples_ms.size() ||
          !timed.insert({m.site, m.rep}).second)
        return not_used(fmt::format(
            "the runner's marks and samples disagree (site {}, timed call {})", m.site, m.rep));
    }
    ws.push_back({m.start_ns, m.end_ns, m.site, m.rep});
    last_end = std::max(last_end, m.end_ns);
  }
  std::size_t samples = 0;
  for (const TritonCallSite& s : sites) samples += s.samples_ms.size();
  if (timed.size() != samples)
    return not_used(
        fmt::format("the runner marked {} of its {} timed calls", timed.size(), samples));
  if (marks.import_end_ns != 0)
    ws.push_back({marks.import_start_ns, marks.import_end_ns, 0, kImport});
  std::sort(ws.begin(), ws.end(),
            [](const Window& a, const Window& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < ws.size(); ++i)
    if (ws[i].start <= ws[i - 1].end)
      return not_used("two of the runner's marked calls overlap; it makes one call at a time");
  if (record.app_end_ns != 0 && record.app_end_ns < last_end)
    return not_used(
        "the profiler's record ends before the runner's last call: something in the process "
        "wrote it early");

  TritonCuptiProcess out;
  out.dropped = record.dropped;
  out.sites.resize(sites.size());

  // The per-call channel: when each timed call's key went out and its done came back, on the
  // judge's clock. CUPTI's clock is CLOCK_REALTIME on Linux (perf/profiler/clock.h); whether it
  // is here is checked on the record's own start, which must lie between the judge starting the
  // process and its first message.
  struct Interval {
    std::int64_t key = 0, done = 0, kept = 0;
    std::size_t site = 0;
    int rep = 0;
  };
  std::vector<Interval> intervals;
  std::map<std::pair<std::size_t, int>, std::size_t> interval_of;
  if (stream != nullptr && stream->served) {
    std::int64_t first = 0;
    using K = TritonStreamEvent::Kind;
    for (const TritonStreamEvent& e : stream->events) {
      if (e.kind != K::key && e.kind != K::done && e.kind != K::kept) continue;
      if (first == 0) first = e.at_ns;
      const auto at = std::make_pair(e.site, static_cast<int>(e.rep));
      auto [it, added] = interval_of.emplace(at, intervals.size());
      if (added) intervals.push_back({0, 0, 0, e.site, static_cast<int>(e.rep)});
      Interval& iv = intervals[it->second];
      (e.kind == K::key ? iv.key : e.kind == K::done ? iv.done : iv.kept) = e.at_ns;
    }
    const auto app = static_cast<std::int64_t>(record.app_start_ns);
    if (first == 0)
      out.clock = "";
    else if (app != 0 && app >= stream->spawn_ns - 2000000000 && app <= first + 500000000)
      out.clock = "comparable";
    else
      out.clock = fmt::format(
          "not comparable: the record starts at {} ns, the judge started the process at {} ns "
          "and read its first message at {} ns",
          app, stream->spawn_ns, first);
  }
  const bool pinned = out.clock_comparable();
  auto interval_at = [&](std::uint64_t launch) -> const Interval* {
    const auto t = static_cast<std::int64_t>(launch);
    for (const Interval& iv : intervals)  // a few hundred at most, in order
      if (iv.key != 0 && iv.done != 0 && t >= iv.key + kIntervalEdgeNs &&
          t <= iv.done - kIntervalEdgeNs)
        return &iv;
    return nullptr;
  };
  // The read-back of a timed call's output: from its done to its kept.
  auto readback_at = [&](std::uint64_t launch) -> const Interval* {
    const auto t = static_cast<std::int64_t>(launch);
    for (const Interval& iv : intervals)
      if (iv.done != 0 && iv.kept != 0 && t >= iv.done && t <= iv.kept) return &iv;
    return nullptr;
  };

  // As in the task path (task/cupti.cpp): should CUPTI number threads otherwise than the
  // runner does, threads are not compared at all.
  out.threads_known = false;
  for (const KernelRecord& k : record.kernels)
    if (k.launch_tid == marks.tid && k.launch_ns != 0) {
      out.threads_known = true;
      break;
    }

  // Each site's timed loop: from its first key to its last done where the channel's clock is
  // this one's, else from its first timed window's start to its last's end. Between the timed
  // calls there the runner's thread runs only the runner's own work (the flush, the new
  // inputs, the read-back). Elsewhere it runs the test's code, which may call the operator
  // code in ways that are no entry (an instance's method) and so have no window.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> loops(sites.size(), {~0ull, 0});
  for (const TritonCallMark& m : marks.calls)
    if (m.rep >= 0) {
      loops[m.site].first = std::min(loops[m.site].first, m.start_ns);
      loops[m.site].second = std::max(loops[m.site].second, m.end_ns);
    }
  if (pinned)
    for (const Interval& iv : intervals)
      if (iv.site < loops.size() && iv.key != 0 && iv.done != 0) {
        loops[iv.site].first = std::min(loops[iv.site].first, static_cast<std::uint64_t>(iv.key));
        loops[iv.site].second =
            std::max(loops[iv.site].second, static_cast<std::uint64_t>(iv.done));
      }
  auto in_a_loop = [&](std::uint64_t t) {
    for (const auto& [a, b] : loops)
      if (a <= t && t <= b) return true;
    return false;
  };

  std::map<std::pair<std::size_t, int>, CallWork> work;
  // Per window (its index in ws): the GPU intervals of what it launched, and whether that held
  // device work.
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> acts(ws.size());
  std::vector<bool> device_work(ws.size(), false);
  std::vector<std::set<std::uint32_t>> streams(sites.size()), contexts(sites.size());
  for (std::size_t i = 0; i < sites.size(); ++i) {
    out.sites[i].interval_launches.resize(sites[i].samples_ms.size());
    out.sites[i].readback_launches.resize(sites[i].samples_ms.size());
    out.sites[i].attempts.assign(sites[i].samples_ms.size(), 1);
  }
  auto place = [&](std::uint64_t start, std::uint64_t end, std::uint64_t launch, std::uint32_t tid,
                   std::uint32_t stream_id, std::uint32_t context, const std::string* kernel,
                   const std::string& copy_kind) {
    if (launch == 0 || tid == 0) {
      ++out.unplaced;
      return;
    }
    const Window* w = window_at(ws, launch);
    if (w == nullptr) {
      // Inside a timed call's interval (after its key, before its done), outside every window:
      // the runner makes the new inputs and flushes L2 there, nothing else.
      if (pinned) {
        const std::string name = kernel != nullptr ? *kernel : "copy " + copy_kind;
        if (const Interval* iv = interval_at(launch); iv != nullptr && iv->site < sites.size()) {
          TritonCuptiSite& s = out.sites[iv->site];
          if (iv->rep >= 0 && static_cast<std::size_t>(iv->rep) < s.interval_launches.size())
            ++s.interval_launches[static_cast<std::size_t>(iv->rep)][name];
        } else if (const Interval* rb = readback_at(launch);
                   rb != nullptr && rb->site < sites.size()) {
          TritonCuptiSite& s = out.sites[rb->site];
          if (rb->rep >= 0 && static_cast<std::size_t>(rb->rep) < s.readback_launches.size())
            ++s.readback_launches[static_cast<std::size_t>(rb->rep)][name];
        }
      }
      if (tid == marks.tid) {
        if (kernel != nullptr && in_a_loop(launch)) ++out.runner_kernels[*kernel];
        return;
      }
      if (!out.threads_known) return;
      if (in_a_loop(launch)) {
        ++out.loop_other_launches;
        out.loop_other_gpu_ns += static_cast<double>(end - start);
        const std::string name = kernel != nullptr ? *kernel : "copy " + copy_kind;
        if (out.loop_other_names.size() < 3 &&
            std::find(out.loop_other_names.begin(), out.loop_other_names.end(), name) ==
                out.loop_other_names.end())
          out.loop_other_names.push_back(name);
      }
      (kernel != nullptr ? out.outside_kernels : out.outside_copies)++;
      out.outside_gpu_ns += static_cast<double>(end - start);
      if (kernel != nullptr && out.outside_names.size() < 3 &&
          std::find(out.outside_names.begin(), out.outside_names.end(), *kernel) ==
              out.outside_names.end())
        out.outside_names.push_back(*kernel);
      return;
    }
    const std::size_t wi = static_cast<std::size_t>(w - ws.data());
    acts[wi].push_back({start, end});
    if (kernel != nullptr || (copy_kind != "HtoD" && copy_kind != "DtoH" && copy_kind != "HtoH"))
      device_work[wi] = true;
    if (w->rep < 0) return;  // an untimed call, or the import: the operator's, not timed
    TritonCuptiSite& s = out.sites[w->site];
    (kernel != nullptr ? s.kernels : s.copies)++;
    if (tid != marks.tid && out.threads_known) ++s.other_thread_launches;
    streams[w->site].insert(stream_id);
    contexts[w->site].insert(context);
    CallWork& c = work[{w->site, w->rep}];
    c.first = std::min(c.first, start);
    c.last = std::max(c.last, end);
  };
  for (const KernelRecord& k : record.kernels)
    place(k.start_ns, k.end_ns, k.launch_ns, k.launch_tid, k.stream, k.context, &k.name, "");
  for (const CopyRecord& m : record.copies)
    place(m.start_ns, m.end_ns, m.launch_ns, m.launch_tid, m.stream, m.context, nullptr, m.kind);

  // The GPU busy time of a window: the union of its activities' intervals.
  auto busy_of = [&](std::size_t wi) {
    auto v = acts[wi];
    std::sort(v.begin(), v.end());
    double busy = 0;
    std::uint64_t cur_a = 0, cur_b = 0;
    bool open = false;
    for (const auto& [a, b] : v) {
      if (open && a <= cur_b) {
        cur_b = std::max(cur_b, b);
        continue;
      }
      if (open) busy += static_cast<double>(cur_b - cur_a);
      cur_a = a;
      cur_b = b;
      open = true;
    }
    if (open) busy += static_cast<double>(cur_b - cur_a);
    return busy;
  };
  std::map<std::pair<std::size_t, int>, std::size_t> window_of;
  for (std::size_t wi = 0; wi < ws.size(); ++wi)
    if (ws[wi].rep >= 0) window_of[{ws[wi].site, ws[wi].rep}] = wi;

  for (std::size_t i = 0; i < sites.size(); ++i) {
    TritonCuptiSite& s = out.sites[i];
    const std::vector<double>& ev = sites[i].samples_ms;
    s.streams = static_cast<int>(streams[i].size());
    s.contexts = static_cast<int>(contexts[i].size());
    double span = 0, excess = 0, events = 0;
    for (std::size_t rep = 0; rep < ev.size(); ++rep) {
      auto it = work.find({i, static_cast<int>(rep)});
      const double call_span =
          it == work.end() ? 0.0 : static_cast<double>(it->second.last - it->second.first);
      if (it == work.end()) ++s.empty;
      const double event_ns = ev[rep] * 1e6;
      span += call_span;
      excess += std::max(0.0, call_span - event_ns);
      events += event_ns;
      const std::size_t wi = window_of.at({i, static_cast<int>(rep)});
      const double busy = busy_of(wi);
      s.span_ns.push_back(call_span);
      s.busy_ns.push_back(busy);
      if (busy > event_ns + std::max(kBusyToleranceNs, kBusyToleranceShare * event_ns)) {
        if (s.below++ == 0)
          s.below_example = fmt::format("call {} reported {} us, its GPU work was busy {} us", rep,
                                        us(event_ns), us(busy));
      }
      if (!device_work[wi]) ++s.no_work;
      if (!pinned) continue;
      auto iv = interval_of.find({i, static_cast<int>(rep)});
      if (iv == interval_of.end()) continue;
      const Interval& in = intervals[iv->second];
      const auto t0 = static_cast<std::int64_t>(ws[wi].start);
      const auto t1 = static_cast<std::int64_t>(ws[wi].end);
      if (in.key == 0 || in.done == 0 || t0 < in.key - kIntervalSlackNs ||
          t1 > in.done + kIntervalSlackNs) {
        if (s.outside_interval++ == 0)
          s.outside_interval_example = fmt::format(
              "call {} was marked from {} to {} us after its key, which came {} us before its "
              "done",
              rep, us(static_cast<double>(t0 - in.key)), us(static_cast<double>(t1 - in.key)),
              us(static_cast<double>(in.done - in.key)));
        continue;
      }
      // The attempts not counted (the start passed before the call was queued: made again on
      // the same inputs) lie in the same interval: their work against the counted call's. Any
      // other window that reaches into the interval (another site's call, the import, an
      // attempt that straddles the key or the done) is no call the runner makes there: its
      // work is counted as launched outside the call.
      for (std::size_t u = 0; u < ws.size(); ++u) {
        const Window& x = ws[u];
        if (x.rep >= 0 || static_cast<std::int64_t>(x.end) < in.key ||
            static_cast<std::int64_t>(x.start) > in.done)
          continue;
        if (x.rep != -1 || x.site != i || static_cast<std::int64_t>(x.start) < in.key ||
            static_cast<std::int64_t>(x.end) > in.done) {
          if (!acts[u].empty())
            s.interval_launches[rep]["work of another call marked inside this one's interval"] +=
                static_cast<int>(acts[u].size());
          continue;
        }
        ++s.attempts[rep];
        const double other = busy_of(u);
        if (other > 2 * busy + 2000 && s.retry_heavier++ == 0)
          s.retry_example = fmt::format(
              "call {}: an attempt not counted was busy {} us on the GPU, the counted one {} us",
              rep, us(other), us(busy));
      }
    }
    s.calls = static_cast<int>(ev.size());
    if (s.calls == 0) continue;
    s.span_mean_ns = span / s.calls;
    s.excess_ns = excess / s.calls;
    s.event_mean_ns = events / s.calls;
  }
  out.used = true;
  return out;
}

TritonCuptiProcess triton_cupti_process(const TritonRunOutcome& o) {
  if (!o.profiled) return not_used("the profiler was not asked for");
  const std::string& text = o.profile;
  if (text.empty())
    return not_used(
        "the profiler did not load into the runner (its library or CUPTI is unavailable here)");
  // Its header, written as it loaded, and nothing after: the runner's finish never ran.
  if (text == "KJPROF 1 " + o.profile_nonce + "\n")
    return not_used("the profiler started but its record was never finished");
  ProfileRecord record;
  try {
    record = parse_profile_record(text, o.profile_nonce);
  } catch (const ProfileError& e) {
    return not_used(std::string("the profiler's record was refused: ") + e.what());
  }
  const TritonCuptiMarks& m = o.cupti;
  if (!m.reported) return not_used("the runner's report carries no call marks");
  if (!m.clock)
    return not_used("the runner found no profiler clock" + (m.why.empty() ? "" : ": " + m.why));
  if (!m.finished)
    return not_used(
        "the runner's finish found the profiler's record written already: something in the "
        "process wrote it early" +
        (m.why.empty() ? "" : " (" + m.why + ")"));
  if (record.kernels.empty() && record.copies.empty())
    return not_used("CUPTI recorded no GPU activity (tracing could not start here)");
  return analyze_triton_profile(record, m, o.sites, o.stream.served ? &o.stream : nullptr);
}

void TritonCuptiJudge::add(TritonCuptiProcess p, bool reference, std::string what,
                           std::vector<std::string> entries) {
  sides_[reference ? 0 : 1].push_back({std::move(p), std::move(what), std::move(entries)});
}

bool TritonCuptiJudge::decides(const std::string& check) {
  return check != "cupti_undercount" && check != "cupti_outside";
}

namespace {

// torch.cuda._sleep's kernel: the runner's hold before a timed call, as long as each process's
// host needs (so one side may hold where the other does not).
bool torch_spin_kernel(const std::string& name) {
  return name.rfind("at::cuda::", 0) == 0 && name.find("spin_kernel") != std::string::npos;
}

std::string first_names(const std::vector<std::string>& names, std::size_t most = 3) {
  std::string list;
  for (std::size_t i = 0; i < names.size() && i < most; ++i)
    list += (list.empty() ? "" : ", ") + names[i];
  if (names.size() > most) list += fmt::format(" and {} more", names.size() - most);
  return list;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> TritonCuptiJudge::flags() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  const std::vector<Entry>& ref = sides_[0];
  const std::vector<Entry>& cand = sides_[1];
  // Nothing is held against the candidate unless CUPTI worked for every reference process.
  if (ref.empty() || cand.empty()) return out;
  for (const Entry& e : ref)
    if (!e.p.used) return out;

  // What the reference's processes showed, site by site: only what none of them did is held
  // against the candidate.
  std::set<std::size_t> ref_under, ref_below, ref_no_work, ref_outside_interval, ref_retry;
  std::set<std::size_t> ref_sites;
  double ref_outside = 0, ref_loop_other = 0;
  std::set<std::string> ref_runner;
  bool ref_pinned = true;
  // Per site, per name: the most a reference process launched inside a timed call's interval
  // outside its windows, per attempt.
  std::map<std::size_t, std::map<std::string, double>> ref_rate;
  // Per site, per name: the most a reference process launched while one output was read back.
  std::map<std::size_t, std::map<std::string, int>> ref_readback;
  for (const Entry& e : ref) {
    ref_pinned = ref_pinned && e.p.clock_comparable();
    for (std::size_t s = 0; s < e.p.sites.size(); ++s) {
      const TritonCuptiSite& x = e.p.sites[s];
      if (x.calls > 0) ref_sites.insert(s);
      if (cupti_undercounts(x.excess_ns, x.event_mean_ns)) ref_under.insert(s);
      if (x.below > 0) ref_below.insert(s);
      if (x.no_work > 0) ref_no_work.insert(s);
      if (x.outside_interval > 0) ref_outside_interval.insert(s);
      if (x.retry_heavier > 0) ref_retry.insert(s);
      for (std::size_t rep = 0; rep < x.interval_launches.size(); ++rep)
        for (const auto& [name, n] : x.interval_launches[rep]) {
          double& r = ref_rate[s][name];
          r = std::max(r, static_cast<double>(n) / std::max(1, x.attempts[rep]));
        }
      for (const auto& launches : x.readback_launches)
        for (const auto& [name, n] : launches) {
          int& m = ref_readback[s][name];
          m = std::max(m, n);
        }
    }
    ref_outside = std::max(ref_outside, e.p.outside_gpu_ns);
    ref_loop_other = std::max(ref_loop_other, e.p.loop_other_gpu_ns);
    for (const auto& [name, n] : e.p.runner_kernels) ref_runner.insert(name);
  }

  std::vector<std::string> record, clock, below, no_work, interval, hidden, under, outside;
  for (const Entry& e : cand) {
    const TritonCuptiProcess& p = e.p;
    if (!p.used) {
      record.push_back(e.what + ": " + p.why);
      continue;
    }
    const bool pinned = ref_pinned && p.clock_comparable();
    if (ref_pinned && !p.clock.empty() && !p.clock_comparable())
      clock.push_back(e.what + ": the profiler's clock and the judge's, " + p.clock +
                      " (every reference process's were comparable)");
    for (std::size_t s = 0; s < p.sites.size(); ++s) {
      const TritonCuptiSite& x = p.sites[s];
      const std::string site = entry_name(e.entries, s);
      if (x.below >= std::max(2, (x.calls + 9) / 10) && !ref_below.count(s))
        below.push_back(fmt::format(
            "{}: {}: {} of {} timed calls reported less time than the GPU was busy with the work "
            "launched in them (first: {})",
            e.what, site, x.below, x.calls, x.below_example));
      if (x.no_work > 0 && ref_sites.count(s) && !ref_no_work.count(s))
        no_work.push_back(fmt::format(
            "{}: {}: {} of {} timed calls launched no kernel, device copy or memset, where every "
            "reference process's did",
            e.what, site, x.no_work, x.calls));
      if (pinned && x.outside_interval > 0 && !ref_outside_interval.count(s))
        interval.push_back(fmt::format(
            "{}: {}: {} of {} timed calls were marked outside the time between their key and "
            "their done on the judge's clock (first: {})",
            e.what, site, x.outside_interval, x.calls, x.outside_interval_example));
      if (pinned) {
        std::vector<std::string> extra;
        const auto& rates = ref_rate[s];
        std::map<std::string, int> worst;
        for (std::size_t rep = 0; rep < x.interval_launches.size(); ++rep)
          for (const auto& [name, n] : x.interval_launches[rep]) {
            const int attempts = std::max(1, x.attempts[rep]);
            auto it = rates.find(name);
            const int allowed =
                torch_spin_kernel(name)
                    ? attempts
                    : (it == rates.end()
                           ? 0
                           : static_cast<int>(std::ceil(it->second * attempts - 1e-9)));
            if (n > allowed) worst[name] = std::max(worst[name], n - allowed);
          }
        for (const auto& [name, n] : worst) extra.push_back(fmt::format("{} x{}", name, n));
        if (!extra.empty())
          hidden.push_back(fmt::format(
              "{}: {}: launched between a timed call's key and its done, outside the call, what "
              "the reference's processes did not launch there (beyond the new inputs and the "
              "flush; most in one call): {}",
              e.what, site, first_names(extra)));
        std::map<std::string, int> read_worst;
        const auto& allowed_reads = ref_readback[s];
        for (const auto& launches : x.readback_launches)
          for (const auto& [name, n] : launches) {
            auto it = allowed_reads.find(name);
            const int allowed = it == allowed_reads.end() ? 0 : it->second;
            if (n > allowed) read_worst[name] = std::max(read_worst[name], n - allowed);
          }
        std::vector<std::string> reads;
        for (const auto& [name, n] : read_worst) reads.push_back(fmt::format("{} x{}", name, n));
        if (!reads.empty())
          hidden.push_back(fmt::format(
              "{}: {}: launched while a timed call's output was read back (between its done "
              "and its kept), what the reference's processes did not launch there (a hook "
              "running in the read-back; most in one call): {}",
              e.what, site, first_names(reads)));
      }
      if (x.retry_heavier > 0 && !ref_retry.count(s))
        hidden.push_back(fmt::format("{}: {}: {} (the counted call did less than its attempt)",
                                     e.what, site, x.retry_example));
      if (!ref_under.count(s) && cupti_undercounts(x.excess_ns, x.event_mean_ns)) {
        std::string where = fmt::format("{} stream(s), {} context(s)", x.streams, x.contexts);
        if (x.other_thread_launches > 0)
          where += fmt::format(", {} launches from other threads", x.other_thread_launches);
        under.push_back(fmt::format(
            "{}: {}: the GPU work launched in each timed call spanned {} us on average (CUPTI), "
            "the events timed {} us; {} us per call ran where the events did not look ({})",
            e.what, site, us(x.span_mean_ns), us(x.event_mean_ns), us(x.excess_ns), where));
      }
    }
    if (p.threads_known && p.loop_other_launches > 0 &&
        p.loop_other_gpu_ns > 1.25 * ref_loop_other + 20e3)
      hidden.push_back(fmt::format(
          "{}: {} launches ({} us of GPU time; the reference's processes at most {} us) came "
          "from threads other than the runner's while a site's calls were being timed, outside "
          "every call ({})",
          e.what, p.loop_other_launches, us(p.loop_other_gpu_ns), us(ref_loop_other),
          first_names(p.loop_other_names)));
    // Slack for what differs between processes anyway: 25 % and 20 us of GPU time.
    if (p.threads_known && p.outside_kernels + p.outside_copies > 0 &&
        p.outside_gpu_ns > 1.25 * ref_outside + 20e3) {
      outside.push_back(fmt::format(
          "{}: {} kernels and {} copies ({} us of GPU time; the reference's processes at most "
          "{} us) were launched outside every call of the operator code by threads other than "
          "the runner's{}",
          e.what, p.outside_kernels, p.outside_copies, us(p.outside_gpu_ns), us(ref_outside),
          p.outside_names.empty() ? "" : " (" + first_names(p.outside_names) + ")"));
    }
    std::vector<std::string> fresh;
    for (const auto& [name, n] : p.runner_kernels)
      if (!ref_runner.count(name) && !aten_kernel(name))
        fresh.push_back(fmt::format("{} x{}", name, n));
    if (!fresh.empty())
      hidden.push_back(fmt::format(
          "{}: kernels the reference's processes never launched there were launched from the "
          "runner's thread between the timed calls of a site (a hook of the operator "
          "code's): {}",
          e.what, first_names(fresh)));
  }
  if (!record.empty()) out.push_back({"cupti_record", record});
  if (!clock.empty()) out.push_back({"cupti_clock", clock});
  if (!below.empty()) out.push_back({"cupti_below_gpu", below});
  if (!no_work.empty()) out.push_back({"cupti_no_work", no_work});
  if (!interval.empty()) out.push_back({"cupti_interval", interval});
  if (!hidden.empty()) out.push_back({"cupti_hidden_work", hidden});
  if (!under.empty()) out.push_back({"cupti_undercount", under});
  if (!outside.empty()) out.push_back({"cupti_outside", outside});
  return out;
}

nlohmann::ordered_json TritonCuptiJudge::json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  bool all = !sides_[0].empty() && !sides_[1].empty();
  std::string why;
  for (const auto& side : sides_)
    for (const Entry& e : side)
      if (!e.p.used) {
        all = false;
        if (why.empty()) why = e.what + ": " + e.p.why;
      }
  j["used"] = all;
  if (!why.empty()) j["why"] = why;
  const char* names[2] = {"reference", "candidate"};
  for (int side = 0; side < 2; ++side) {
    int used = 0, unplaced = 0;
    std::uint64_t dropped = 0;
    double outside = 0, loop_other = 0;
    int runner_kernels = 0;
    std::set<std::string> clocks;
    // Per site: the largest mean excess of any process, with its span and event means.
    std::vector<nlohmann::ordered_json> sites;
    std::vector<double> worst;
    for (const Entry& e : sides_[side]) {
      if (!e.p.used) continue;
      ++used;
      unplaced += e.p.unplaced;
      dropped += e.p.dropped;
      outside = std::max(outside, e.p.outside_gpu_ns);
      loop_other = std::max(loop_other, e.p.loop_other_gpu_ns);
      clocks.insert(e.p.clock.empty() ? "no per-call channel" : e.p.clock);
      for (const auto& [name, n] : e.p.runner_kernels) runner_kernels += n;
      for (std::size_t s = 0; s < e.p.sites.size(); ++s) {
        const TritonCuptiSite& x = e.p.sites[s];
        if (sites.size() <= s) {
          sites.resize(s + 1);
          worst.resize(s + 1, -1);
        }
        if (x.excess_ns <= worst[s]) continue;
        worst[s] = x.excess_ns;
        double busy = 0;
        for (double b : x.busy_ns) busy += b;
        int hidden = 0, read = 0;
        for (const auto& launches : x.interval_launches)
          for (const auto& [name, n] : launches) hidden += n;
        for (const auto& launches : x.readback_launches)
          for (const auto& [name, n] : launches) read += n;
        sites[s] = {{"entry", entry_name(e.entries, s)},
                    {"busy_us", x.busy_ns.empty() ? 0.0 : busy / x.busy_ns.size() / 1e3},
                    {"below_gpu", x.below},
                    {"no_work", x.no_work},
                    {"outside_interval", x.outside_interval},
                    {"interval_launches", hidden},
                    {"readback_launches", read},
                    {"retry_heavier", x.retry_heavier},
                    {"calls", x.calls},
                    {"empty", x.empty},
                    {"span_us", x.span_mean_ns / 1e3},
                    {"event_us", x.event_mean_ns / 1e3},
                    {"excess_us", x.excess_ns / 1e3},
                    {"kernels", x.kernels},
                    {"copies", x.copies},
                    {"streams", x.streams},
                    {"contexts", x.contexts},
                    {"other_thread_launches", x.other_thread_launches}};
      }
    }
    j[names[side]] = {{"processes", sides_[side].size()},
                      {"used", used},
                      {"dropped", dropped},
                      {"unplaced", unplaced},
                      {"outside_gpu_us_max", outside / 1e3},
                      {"loop_other_gpu_us_max", loop_other / 1e3},
                      {"clock", clocks},
                      {"runner_kernels_between_calls", runner_kernels},
                      {"sites", sites}};
  }
  return j;
}

}  // namespace kjudge::triton

#include "eval/triton_cupti.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "eval/task_cupti.h"

namespace kjudge {

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
                                          const std::vector<TritonCallSite>& sites) {
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
  // Each site's timed loop, from its first timed call's start to its last's end: between the
  // timed calls there the runner's thread runs only the runner's own work (the flush, the new
  // inputs, the read-back). Elsewhere it runs the test's code, which may call the operator
  // code in ways that are no entry (an instance's method) and so have no window.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> loops(sites.size(), {~0ull, 0});
  for (const TritonCallMark& m : marks.calls)
    if (m.rep >= 0) {
      loops[m.site].first = std::min(loops[m.site].first, m.start_ns);
      loops[m.site].second = std::max(loops[m.site].second, m.end_ns);
    }
  auto in_a_loop = [&](std::uint64_t t) {
    for (const auto& [a, b] : loops)
      if (a <= t && t <= b) return true;
    return false;
  };
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
  // As in the task path (eval/task_cupti.cpp): should CUPTI number threads otherwise than the
  // runner does, threads are not compared at all.
  out.threads_known = false;
  for (const KernelRecord& k : record.kernels)
    if (k.launch_tid == marks.tid && k.launch_ns != 0) {
      out.threads_known = true;
      break;
    }

  std::map<std::pair<std::size_t, int>, CallWork> work;
  std::vector<std::set<std::uint32_t>> streams(sites.size()), contexts(sites.size());
  auto place = [&](std::uint64_t start, std::uint64_t end, std::uint64_t launch, std::uint32_t tid,
                   std::uint32_t stream, std::uint32_t context, const std::string* kernel) {
    if (launch == 0 || tid == 0) {
      ++out.unplaced;
      return;
    }
    const Window* w = window_at(ws, launch);
    if (w == nullptr) {
      if (tid == marks.tid) {
        if (kernel != nullptr && in_a_loop(launch)) ++out.runner_kernels[*kernel];
        return;
      }
      if (!out.threads_known) return;
      (kernel != nullptr ? out.outside_kernels : out.outside_copies)++;
      out.outside_gpu_ns += static_cast<double>(end - start);
      if (kernel != nullptr && out.outside_names.size() < 3 &&
          std::find(out.outside_names.begin(), out.outside_names.end(), *kernel) ==
              out.outside_names.end())
        out.outside_names.push_back(*kernel);
      return;
    }
    if (w->rep < 0) return;  // an untimed call, or the import: the operator's, not timed
    TritonCuptiSite& s = out.sites[w->site];
    (kernel != nullptr ? s.kernels : s.copies)++;
    if (tid != marks.tid && out.threads_known) ++s.other_thread_launches;
    streams[w->site].insert(stream);
    contexts[w->site].insert(context);
    CallWork& c = work[{w->site, w->rep}];
    c.first = std::min(c.first, start);
    c.last = std::max(c.last, end);
  };
  for (const KernelRecord& k : record.kernels)
    place(k.start_ns, k.end_ns, k.launch_ns, k.launch_tid, k.stream, k.context, &k.name);
  for (const CopyRecord& m : record.copies)
    place(m.start_ns, m.end_ns, m.launch_ns, m.launch_tid, m.stream, m.context, nullptr);

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
  return analyze_triton_profile(record, m, o.sites);
}

void TritonCuptiJudge::add(TritonCuptiProcess p, bool reference, std::string what,
                           std::vector<std::string> entries) {
  sides_[reference ? 0 : 1].push_back({std::move(p), std::move(what), std::move(entries)});
}

std::vector<std::pair<std::string, std::vector<std::string>>> TritonCuptiJudge::flags() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  const std::vector<Entry>& ref = sides_[0];
  const std::vector<Entry>& cand = sides_[1];
  // Nothing is held against the candidate unless CUPTI worked for every reference process.
  if (ref.empty() || cand.empty()) return out;
  for (const Entry& e : ref)
    if (!e.p.used) return out;

  std::set<std::size_t> ref_under;
  double ref_outside = 0;
  std::set<std::string> ref_runner;
  for (const Entry& e : ref) {
    for (std::size_t s = 0; s < e.p.sites.size(); ++s)
      if (cupti_undercounts(e.p.sites[s].excess_ns, e.p.sites[s].event_mean_ns))
        ref_under.insert(s);
    ref_outside = std::max(ref_outside, e.p.outside_gpu_ns);
    for (const auto& [name, n] : e.p.runner_kernels) ref_runner.insert(name);
  }

  std::vector<std::string> record, under, outside;
  for (const Entry& e : cand) {
    const TritonCuptiProcess& p = e.p;
    if (!p.used) {
      record.push_back(e.what + ": " + p.why);
      continue;
    }
    for (std::size_t s = 0; s < p.sites.size(); ++s) {
      const TritonCuptiSite& x = p.sites[s];
      if (ref_under.count(s) || !cupti_undercounts(x.excess_ns, x.event_mean_ns)) continue;
      std::string where = fmt::format("{} stream(s), {} context(s)", x.streams, x.contexts);
      if (x.other_thread_launches > 0)
        where += fmt::format(", {} launches from other threads", x.other_thread_launches);
      under.push_back(fmt::format(
          "{}: {}: the GPU work launched in each timed call spanned {} us on average (CUPTI), "
          "the events timed {} us; {} us per call ran where the events did not look ({})",
          e.what, entry_name(e.entries, s), us(x.span_mean_ns), us(x.event_mean_ns),
          us(x.excess_ns), where));
    }
    // Slack for what differs between processes anyway: 25 % and 20 us of GPU time.
    if (p.threads_known && p.outside_kernels + p.outside_copies > 0 &&
        p.outside_gpu_ns > 1.25 * ref_outside + 20e3) {
      std::string names;
      for (const std::string& n : p.outside_names) names += (names.empty() ? "" : ", ") + n;
      outside.push_back(fmt::format(
          "{}: {} kernels and {} copies ({} us of GPU time; the reference's processes at most "
          "{} us) were launched outside every call of the operator code by threads other than "
          "the runner's{}",
          e.what, p.outside_kernels, p.outside_copies, us(p.outside_gpu_ns), us(ref_outside),
          names.empty() ? "" : " (" + names + ")"));
    }
    std::vector<std::string> fresh;
    for (const auto& [name, n] : p.runner_kernels)
      if (!ref_runner.count(name) && !aten_kernel(name))
        fresh.push_back(fmt::format("{} x{}", name, n));
    if (!fresh.empty()) {
      std::string list;
      for (std::size_t i = 0; i < fresh.size() && i < 3; ++i)
        list += (list.empty() ? "" : ", ") + fresh[i];
      if (fresh.size() > 3) list += fmt::format(" and {} more", fresh.size() - 3);
      outside.push_back(fmt::format(
          "{}: kernels the reference's processes never launched there were launched from the "
          "runner's thread between the timed calls of a site (a hook of the operator "
          "code's): {}",
          e.what, list));
    }
  }
  if (!record.empty()) out.push_back({"cupti_record", record});
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
    double outside = 0;
    int runner_kernels = 0;
    // Per site: the largest mean excess of any process, with its span and event means.
    std::vector<nlohmann::ordered_json> sites;
    std::vector<double> worst;
    for (const Entry& e : sides_[side]) {
      if (!e.p.used) continue;
      ++used;
      unplaced += e.p.unplaced;
      dropped += e.p.dropped;
      outside = std::max(outside, e.p.outside_gpu_ns);
      for (const auto& [name, n] : e.p.runner_kernels) runner_kernels += n;
      for (std::size_t s = 0; s < e.p.sites.size(); ++s) {
        const TritonCuptiSite& x = e.p.sites[s];
        if (sites.size() <= s) {
          sites.resize(s + 1);
          worst.resize(s + 1, -1);
        }
        if (x.excess_ns <= worst[s]) continue;
        worst[s] = x.excess_ns;
        sites[s] = {{"entry", entry_name(e.entries, s)},
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
                      {"runner_kernels_between_calls", runner_kernels},
                      {"sites", sites}};
  }
  return j;
}

}  // namespace kjudge

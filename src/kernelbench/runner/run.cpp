// One run of the KernelBench runner in a process of its own: request, report, control channel.
// Declared, and explained, in kernelbench/runner/run.h.
#include "kernelbench/runner/run.h"

#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "core/enum_names.h"
#include "core/input_error.h"
#include "perf/profiler_channel.h"
#include "run/beside_binary.h"
#include "run/cloexec_file.h"
#include "run/result_channel.h"
#include "triton/runner/python_bytecode.h"

namespace kjudge::kernelbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kProtocol = 1;
constexpr std::size_t kMaxTrials = 1000;
constexpr std::size_t kMaxPairs = 100000;
constexpr std::size_t kMaxNotes = 64;

// The report's fields, read strictly: every one that is there must have its type.
struct Fields {
  const json& obj;
  const std::string& source;
  std::string where;  // "trials[2]." ...

  const json* opt(const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  std::string text(const char* key, bool required = false) const {
    const json* v = opt(key);
    if (!v) {
      if (required) throw InputError(source, 1, where + key, "missing");
      return "";
    }
    if (!v->is_string()) throw InputError(source, 1, where + key, "not a string");
    return v->get<std::string>().substr(0, 4000);
  }
  bool flag(const char* key) const {
    const json* v = opt(key);
    if (!v) return false;
    if (!v->is_boolean()) throw InputError(source, 1, where + key, "not true/false");
    return v->get<bool>();
  }
  double number(const char* key, bool required = false) const {
    const json* v = opt(key);
    if (!v || v->is_null()) {
      if (required) throw InputError(source, 1, where + key, "missing");
      return NAN;
    }
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0)
      throw InputError(source, 1, where + key, "not a finite non-negative number");
    return v->get<double>();
  }
  std::uint64_t count(const char* key) const {
    const json* v = opt(key);
    if (!v) return 0;
    if (!v->is_number_unsigned()) throw InputError(source, 1, where + key, "not a count");
    return v->get<std::uint64_t>();
  }
  // A list of short strings the solution's code may have named (threads, functions): few, cut.
  std::vector<std::string> notes(const char* key) const {
    std::vector<std::string> out;
    const json* v = opt(key);
    if (!v) return out;
    if (!v->is_array() || v->size() > kMaxNotes)
      throw InputError(source, 1, where + key, "not an array of at most 64 strings");
    for (const json& x : *v) {
      if (!x.is_string()) throw InputError(source, 1, where + key, "holds a non-string");
      std::string t = x.get<std::string>();
      if (t.size() > 160) t = t.substr(0, 157) + "...";
      out.push_back(std::move(t));
    }
    return out;
  }
};

// A timed side's time: positive and finite ("no time" is not a measurement).
double time_ms(const Fields& f, const char* key, bool optional_side) {
  const json* v = f.opt(key);
  if ((!v || v->is_null()) && optional_side) return NAN;
  if (!v || !v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() <= 0)
    throw InputError(f.source, 1, f.where + key, "not a positive time");
  return v->get<double>();
}

void parse_trials(const json& arr, const std::string& source, RunOutcome& out) {
  if (!arr.is_array() || arr.size() > kMaxTrials)
    throw InputError(source, 1, "trials", "not an array of at most 1000 trials");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_object())
      throw InputError(source, 1, fmt::format("trials[{}]", i), "not an object");
    const Fields f{arr[i], source, fmt::format("trials[{}].", i)};
    TrialCheck t;
    t.ok = f.flag("ok");
    t.why = f.text("why");
    t.max_abs = f.number("max_abs");
    t.mean_abs = f.number("mean_abs");
    t.mismatched = f.count("mismatched");
    t.elements = f.count("elements");
    t.nonfinite = f.count("nonfinite");
    t.shape = f.text("shape");
    t.dtype = f.text("dtype");
    t.expected_shape = f.text("expected_shape");
    t.expected_dtype = f.text("expected_dtype");
    t.alias_input = f.flag("alias_input");
    t.alias_earlier = f.flag("alias_earlier");
    t.alias_reference = f.flag("alias_reference");
    t.reference_alias_input = f.flag("reference_alias_input");
    if (t.ok && !t.why.empty())
      throw InputError(source, 1, f.where + "why", "given for a trial that passed");
    out.trials.push_back(std::move(t));
  }
}

void parse_timing(const json& obj, const std::string& source, RunOutcome& out) {
  if (!obj.is_object()) throw InputError(source, 1, "timing", "not an object");
  const Fields f{obj, source, "timing."};
  out.timed = f.flag("timed");
  out.timing_note = f.text("note");
  const json* pairs = f.opt("pairs");
  if (!pairs) return;
  if (!pairs->is_array() || pairs->size() > kMaxPairs)
    throw InputError(source, 1, "timing.pairs", "not an array");
  for (std::size_t i = 0; i < pairs->size(); ++i) {
    const json& p = (*pairs)[i];
    if (!p.is_object())
      throw InputError(source, 1, fmt::format("timing.pairs[{}]", i), "not an object");
    const Fields g{p, source, fmt::format("timing.pairs[{}].", i)};
    TimedPair t;
    t.sol_ms = time_ms(g, "sol_ms", false);
    t.ref_ms = time_ms(g, "ref_ms", false);
    t.cmp_ms = time_ms(g, "cmp_ms", true);
    t.sol_dev_ms = time_ms(g, "sol_dev_ms", false);
    t.ref_dev_ms = time_ms(g, "ref_dev_ms", false);
    t.cmp_dev_ms = time_ms(g, "cmp_dev_ms", true);
    if (std::isnan(t.cmp_ms) != std::isnan(t.cmp_dev_ms))
      throw InputError(source, 1, g.where + "cmp_dev_ms",
                       "given without cmp_ms, or missing with it");
    t.ok = g.flag("ok");
    t.why = g.text("why");
    t.order = g.text("order");
    t.alias_input = g.flag("alias_input");
    t.alias_earlier = g.flag("alias_earlier");
    out.pairs.push_back(std::move(t));
  }
  if (!out.pairs.empty() && !out.timed)
    throw InputError(source, 1, "timing.timed", "false, yet pairs were timed");
}

void parse_cupti(const json& c, const std::string& source, CuptiMarks& m) {
  if (!c.is_object()) throw InputError(source, 1, "cupti", "not an object");
  const Fields f{c, source, "cupti."};
  m.reported = true;
  m.clock = f.flag("clock");
  m.finished = f.flag("finished");
  m.why = f.text("why");
  m.tid = static_cast<std::uint32_t>(f.count("tid"));
  const json* calls = f.opt("calls");
  if (!calls) return;
  if (!calls->is_array() || calls->size() > 4 * kMaxPairs)
    throw InputError(source, 1, "cupti.calls", "not an array");
  for (std::size_t i = 0; i < calls->size(); ++i) {
    const json& v = (*calls)[i];
    const std::string at = fmt::format("cupti.calls[{}]", i);
    if (!v.is_array() || v.size() != 5)
      throw InputError(source, 1, at, "not [side, phase, index, start, end]");
    for (const json& x : v)
      if (!x.is_number_unsigned()) throw InputError(source, 1, at, "holds a non-count");
    CallMark mark{v[0].get<int>(), v[1].get<int>(), v[2].get<int>(), v[3].get<std::uint64_t>(),
                  v[4].get<std::uint64_t>()};
    if (mark.side > 2 || mark.phase > 2 || mark.end_ns < mark.start_ns)
      throw InputError(source, 1, at, "not a call the runner marks");
    m.calls.push_back(mark);
  }
}

void fill_from_process(const ProcessResult& r, RunOutcome& out) {
  out.log = r.output;
  out.log_truncated = r.truncated;
  out.seconds = r.wall_s;
  out.exit_code = r.exit_code;
  out.signal = r.signal;
  out.memory_peak_bytes = r.memory_peak_bytes;
}

std::string last_line(const std::string& log) {
  std::size_t end = log.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  std::size_t start = log.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return log.substr(start, std::min<std::size_t>(end - start + 1, 300));
}

bool same_time(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a));
}

}  // namespace

std::string_view run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::ok:
      return "ok";
    case RunStatus::error:
      return "error";
    case RunStatus::timeout:
      return "timeout";
    case RunStatus::crashed:
      return "crashed";
    case RunStatus::limit:
      return "limit";
    case RunStatus::refused:
      return "refused";
    case RunStatus::judge_error:
      return "judge_error";
  }
  return "?";
}

json request_json(const Request& req, const fs::path& reference_path, const fs::path& solution_path,
                  const std::string& nonce) {
  return {{"protocol", kProtocol},
          {"nonce", nonce},
          {"problem", req.problem},
          {"level", req.level},
          {"reference_path", reference_path.string()},
          {"solution_path", solution_path.string()},
          {"seed", req.seed},
          {"trial_seeds", req.trial_seeds},
          {"atol", req.atol},
          {"rtol", req.rtol},
          {"time", req.time},
          {"compile", req.compile},
          // The pairs' keys come over the control channel in their turn; the secret stays here.
          {"timing",
           {{"warmup", req.timing.warmup},
            {"trials", req.timing.trials},
            {"min_trials", req.timing.min_trials},
            {"budget_s", req.timing.budget_s},
            {"flush_bytes", req.timing.flush_bytes},
            {"side_work_ms", req.timing.side_work_ms},
            {"cupti", req.timing.cupti}}},
          {"gpu_memory_bytes", req.gpu_memory_bytes},
          {"hf_offline", req.hf_offline},
          {"alone", req.alone}};
}

void parse_report(const std::string& channel, const std::string& nonce, const std::string& source,
                  RunOutcome& out) {
  if (channel.empty()) throw InputError(source, 0, "", "the runner wrote no report");
  const std::size_t nl = channel.find('\n');
  if (nl == std::string::npos || nl + 1 != channel.size())
    throw InputError(source, 0, "", "the report is not one line");
  json rec;
  try {
    rec = json::parse(channel.substr(0, nl));
  } catch (const json::parse_error& e) {
    throw InputError(source, 1, "", std::string("the report is not JSON: ") + e.what());
  }
  if (!rec.is_object()) throw InputError(source, 1, "", "the report is not a JSON object");
  const Fields f{rec, source, ""};
  const json* protocol = f.opt("protocol");
  if (!protocol || *protocol != kProtocol)
    throw InputError(
        source, 1, "protocol",
        fmt::format("expected {}, got {}", kProtocol, protocol ? protocol->dump() : "nothing"));
  if (f.text("nonce", true) != nonce)
    throw InputError(source, 1, "nonce", "not the nonce of this run (a foreign or stale report)");
  const std::string status = f.text("status", true);
  if (status == "error") {
    const json* e = f.opt("error");
    if (!e || !e->is_object()) throw InputError(source, 1, "error", "missing or not an object");
    const Fields g{*e, source, "error."};
    out.status = RunStatus::error;
    out.error.stage = g.text("stage", true);
    out.error.exception_type = g.text("exception_type", true);
    out.error.message = g.text("message", true);
    out.error.traceback = g.text("traceback");
    out.detail = fmt::format("{} at stage {}: {}", out.error.exception_type, out.error.stage,
                             out.error.message.substr(0, 300));
  } else if (status == "ok") {
    out.status = RunStatus::ok;
  } else {
    throw InputError(source, 1, "status", "'" + status + "' is neither ok nor error");
  }
  if (const json* t = f.opt("trials")) parse_trials(*t, source, out);
  if (const json* t = f.opt("timing")) parse_timing(*t, source, out);
  if (const json* c = f.opt("compile")) {
    if (!c->is_object()) throw InputError(source, 1, "compile", "not an object");
    const Fields g{*c, source, "compile."};
    out.compile.attempted = g.flag("attempted");
    out.compile.ok = g.flag("ok");
    out.compile.why = g.text("why");
    const double s = g.number("seconds");
    out.compile.seconds = std::isnan(s) ? 0 : s;
  }
  out.torch_patched = f.notes("torch_patched");
  out.watch = f.notes("watch");
  out.flags_changed = f.notes("flags_changed");
  out.tampered = f.notes("tampered");
  if (const json* e = f.opt("env")) {
    if (!e->is_object()) throw InputError(source, 1, "env", "not an object");
    out.env = nlohmann::ordered_json::parse(e->dump());
  }
  if (const json* s = f.opt("seconds")) {
    if (!s->is_object()) throw InputError(source, 1, "seconds", "not an object");
    for (auto it = s->begin(); it != s->end(); ++it) {
      if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
        throw InputError(source, 1, "seconds." + it.key(), "not a duration");
      out.phase_seconds[it.key().substr(0, 40)] = it->get<double>();
    }
  }
  if (const json* c = f.opt("cupti")) parse_cupti(*c, source, out.cupti);
  if (status == "ok" && out.trials.empty())
    throw InputError(source, 1, "trials", "status ok, yet no correctness trial");
}

std::string control_mismatch(const RunOutcome& o) {
  const ControlLog& log = o.control;
  if (!log.served) return "";
  std::vector<const ControlEvent*> keys, dones;
  for (const ControlEvent& e : log.events) {
    if (e.kind == ControlEvent::Kind::pair) keys.push_back(&e);
    if (e.kind == ControlEvent::Kind::done) dones.push_back(&e);
  }
  if (!o.pairs.empty() && !log.timed)
    return "it reports timed pairs, yet it was never let in to time";
  if (dones.size() != o.pairs.size())
    return fmt::format("it reports {} timed pairs, it committed {}", o.pairs.size(), dones.size());
  for (std::size_t k = 0; k < dones.size(); ++k) {
    const ControlEvent& d = *dones[k];
    const TimedPair& p = o.pairs[k];
    if (!same_time(d.sol_ms, p.sol_ms) || !same_time(d.ref_ms, p.ref_ms) ||
        !same_time(d.cmp_ms, p.cmp_ms) || !same_time(d.sol_dev_ms, p.sol_dev_ms) ||
        !same_time(d.ref_dev_ms, p.ref_dev_ms) || !same_time(d.cmp_dev_ms, p.cmp_dev_ms) ||
        d.ok != p.ok)
      return fmt::format(
          "pair {}: the report says otherwise than what it committed as the pair ended", k);
    // The judge's clock: from the key's answer to the done, the pair's sides ran one after the
    // other, each to the device's end. They cannot add up to more than that (1 ms of slack for
    // the two clocks' reading).
    const double wall_ms = static_cast<double>(d.at_ns - keys[k]->answer_ns) / 1e6;
    const double gpu_ms =
        p.sol_dev_ms + p.ref_dev_ms + (std::isnan(p.cmp_dev_ms) ? 0.0 : p.cmp_dev_ms);
    if (gpu_ms > wall_ms + 1.0)
      return fmt::format(
          "pair {}: its sides' times add up to {:.3f} ms, but only {:.3f} ms passed "
          "on the judge's clock between its key and its done",
          k, gpu_ms, wall_ms);
  }
  return "";
}

fs::path locate_kernelbench_runner(const std::string& preferred) {
  return locate_python_entry("kjudge_kernelbench_runner.py", "KJUDGE_KERNELBENCH_RUNNER",
                             "the KernelBench runner", preferred);
}

fs::path locate_end_clock() {
  const fs::path lib = locate_beside_binary("KJUDGE_END_CLOCK", "libkjudge_end_clock.so");
  std::error_code ec;
  if (!lib.empty() && fs::is_regular_file(lib, ec)) return fs::absolute(lib);
  throw std::runtime_error(
      "the KernelBench runner's end clock, libkjudge_end_clock.so, was not found " +
      (lib.empty() ? std::string("beside kjudge (its lib/ folder, or ../lib/kjudge)")
                   : "at $KJUDGE_END_CLOCK (" + lib.string() + ")") +
      ": it is built with kjudge (ninja -C build kjudge_end_clock); or set KJUDGE_END_CLOCK");
}

RunOutcome run_kernelbench(const Runner& runner, const Request& req, const fs::path& workspace,
                           GpuGate& gate) {
  RunOutcome out;
  const fs::path ws = fs::absolute(workspace);
  std::optional<ResultChannel> request, result;
  std::optional<ControlServer> control;
  fs::path files;
  try {
    request.emplace("kjudge-kernelbench-request");
    result.emplace("kjudge-kernelbench-result");
    files = ws / ("run-" + result->nonce().substr(0, 12));
    fs::create_directories(files);
    fs::create_directories(ws / "ext");
    write_file_cloexec(files / "reference.py", req.reference_code);
    write_file_cloexec(files / "solution.py", req.solution_code);
    json body_json =
        request_json(req, files / "reference.py", files / "solution.py", result->nonce());
    if (!runner.end_clock.empty()) body_json["timing"]["end_clock"] = runner.end_clock.string();
    const std::string body = body_json.dump();
    if (pwrite(request->fd(), body.data(), body.size(), 0) != static_cast<ssize_t>(body.size()))
      throw std::runtime_error("cannot write the request");
    control.emplace(gate, req.secret, req.time, runner.timeout_s);
  } catch (const std::exception& e) {
    out.status = RunStatus::judge_error;
    out.detail = std::string("judge: cannot prepare the run: ") + e.what();
    return out;
  }
  StepExtras extras;
  // -I: no PYTHON* variable, no user site; -B: no bytecode written; -u: the log survives a kill.
  extras.argv = {runner.python.executable, "-I", "-B", "-u"};
  for (const std::string& arg : triton::python_bytecode_args(runner.python.bytecode_cache))
    extras.argv.push_back(arg);
  extras.argv.insert(
      extras.argv.end(),
      {runner.script.string(), "--request-fd", std::to_string(request->fd()), "--result-fd",
       std::to_string(result->fd()), "--control-fd", std::to_string(control->child_fd())});
  extras.inherit_fds = {request->fd(), result->fd(), control->child_fd()};
  extras.ro_paths = runner.python.ro_paths;
  extras.ro_paths.push_back(runner.script.parent_path());
  if (!runner.end_clock.empty()) extras.ro_paths.push_back(runner.end_clock);
  if (!runner.python.bytecode_cache.empty())
    extras.ro_paths.push_back(runner.python.bytecode_cache);
  // The interpreter's own bin/ first: torch's extension builds run the venv's ninja.
  extras.path_dirs.push_back(fs::path(runner.python.executable).parent_path());
  // The extensions ModelNew builds stay in `ws/ext`, one folder per solution source (the
  // caller's): built once, and no other solution's code can plant a library there. Every
  // other cache is the run's own: a Triton or inductor cache shared between runs would let one
  // solution plant compiled kernels under the reference's key.
  extras.env = {"HOME=" + files.string(),
                "TORCH_EXTENSIONS_DIR=" + (ws / "ext").string(),
                "TRITON_CACHE_DIR=" + (files / ".triton").string(),
                "TRITON_HOME=" + files.string(),
                "TORCHINDUCTOR_CACHE_DIR=" + (files / ".inductor").string(),
                "XDG_CACHE_HOME=" + (files / ".cache").string(),
                "MAX_JOBS=" + std::to_string(std::max(1, runner.max_jobs))};
  if (runner.gpu >= 0) extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(runner.gpu));
  if (req.hf_offline && !runner.hf_home.empty()) {
    extras.ro_paths.push_back(runner.hf_home);
    for (const char* e : {"HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_DATASETS_OFFLINE=1",
                          "HF_HUB_DISABLE_TELEMETRY=1"})
      extras.env.push_back(e);
    extras.env.push_back("HF_HOME=" + runner.hf_home.string());
  }
  std::optional<ResultChannel> profile;
  if (!runner.profiler.empty()) {
    try {
      profile.emplace(open_profiler_channel("kjudge-kernelbench-profile"));
    } catch (const std::exception& e) {
      out.status = RunStatus::judge_error;
      out.detail = std::string("judge: cannot make the profiler's channel: ") + e.what();
      return out;
    }
    for (std::string& e : profiler_channel_env(*profile, true)) extras.env.push_back(std::move(e));
    extras.preload.push_back(runner.profiler);
    extras.inherit_fds.push_back(profile->fd());
  }
  const std::string label =
      runner.python.executable + " " + runner.script.filename().string() + " " + req.problem;
  control->start(realtime_ns());
  ProcessResult r = run_step(runner.step, runner.machine, label, ws,
                             runner.timeout_s + runner.wait_allowance_s, extras);
  out.control = control->stop();
  fill_from_process(r, out);
  if (profile) {
    out.profiled = true;
    out.profile = profile_channel_text(*profile);
    out.profile_nonce = profile->nonce();
  }
  std::error_code ec;
  fs::remove_all(files, ec);
  if (!r.started) {
    out.status = RunStatus::judge_error;
    out.detail = "judge: could not start the runner: " + r.error;
    return out;
  }
  if (!out.control.violation.empty()) {
    out.status = RunStatus::refused;
    out.detail = "the runner's control channel was refused: " + out.control.violation;
    return out;
  }
  const double own_s = r.wall_s - out.control.waited_s;
  if (r.timed_out || out.control.killed || own_s > runner.timeout_s + 5) {
    out.status = RunStatus::timeout;
    out.detail = fmt::format(
        "timed out after {:g} s of its own (not counting {:.1f} s waiting for "
        "the GPU)",
        runner.timeout_s, out.control.waited_s);
    return out;
  }
  if (!r.limit_exceeded.empty()) {
    out.status = RunStatus::limit;
    out.detail = "stopped: it " + r.limit_exceeded;
    return out;
  }
  if (r.signal != 0) {
    out.status = RunStatus::crashed;
    out.detail = fmt::format("killed by signal {}: {}", r.signal, last_line(r.output));
    return out;
  }
  const std::string channel = result->read_all();
  if (r.exit_code != 0 || channel.empty()) {
    out.status = RunStatus::crashed;
    out.detail = fmt::format("exit {} without a report: {}", r.exit_code, last_line(r.output));
    return out;
  }
  const ControlLog log = out.control;
  try {
    parse_report(channel, result->nonce(), "the runner's report", out);
  } catch (const InputError& e) {
    out = RunOutcome{};
    fill_from_process(r, out);
    out.control = log;
    out.status = RunStatus::refused;
    out.detail = std::string("the runner's report was refused: ") + e.what();
    return out;
  }
  std::string why;
  if (!out.tampered.empty()) {
    why = "the solution rebound the runner's own code: " + out.tampered.front();
    if (out.tampered.size() > 1) why += fmt::format(" (and {} more)", out.tampered.size() - 1);
  } else {
    why = control_mismatch(out);
  }
  if (!why.empty()) {
    out.status = RunStatus::refused;
    out.detail = "the runner's report was refused: " + why;
  }
  return out;
}

}  // namespace kjudge::kernelbench

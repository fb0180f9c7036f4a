// One run of the Triton runner in a process of its own: the request, the report, the channel.
// Declared, and explained, in triton/runner/run.h.
#include "triton/runner/run.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/enum_names.h"
#include "core/input_error.h"
#include "core/sha256.h"
#include "perf/profiler_channel.h"
#include "run/cloexec_file.h"
#include "run/result_channel.h"
#include "triton/runner/python_bytecode.h"

namespace kjudge::triton {
namespace fs = std::filesystem;

namespace {

constexpr int kProtocol = 1;

const nlohmann::json* optional_field(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string string_at(const nlohmann::json& obj, const char* key, const std::string& source,
                      const std::string& where) {
  const nlohmann::json* v = optional_field(obj, key);
  if (!v) throw InputError(source, 0, where + key, "missing");
  if (!v->is_string()) throw InputError(source, 0, where + key, "not a string");
  return v->get<std::string>();
}

// The array of strings at `array[i]`; `field` names it in errors.
std::vector<std::string> strings_at(const nlohmann::json& array, std::size_t i,
                                    const std::string& source, const std::string& field) {
  const nlohmann::json& v = array[i];
  if (!v.is_array()) throw InputError(source, 0, field, "not an array");
  std::vector<std::string> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (!v[k].is_string())
      throw InputError(source, 0, fmt::format("{}[{}]", field, k), "not a string");
    out.push_back(v[k].get<std::string>());
  }
  return out;
}

// An optional array of strings; `field` names it in errors (the key, or its whole path).
std::vector<std::string> strings_at(const nlohmann::json& obj, const char* key,
                                    const std::string& source, const std::string& field = "") {
  const std::string name = field.empty() ? key : field;
  std::vector<std::string> out;
  const nlohmann::json* v = optional_field(obj, key);
  if (!v) return out;
  if (!v->is_array()) throw InputError(source, 0, name, "not an array");
  for (std::size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string())
      throw InputError(source, 0, fmt::format("{}[{}]", name, i), "not a string");
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

// The values one call site describes (the runner's call_values); every malformed field is an
// error naming it, like the rest of the report.
std::vector<TritonCallValue> parse_values(const nlohmann::json& values, const std::string& source,
                                          const std::string& where) {
  if (!values.is_array()) throw InputError(source, 0, where, "not an array");
  std::vector<TritonCallValue> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string at = fmt::format("{}[{}].", where, i);
    const nlohmann::json& v = values[i];
    if (!v.is_object()) throw InputError(source, 0, at, "not an object");
    TritonCallValue value;
    value.name = string_at(v, "name", source, at);
    const std::string kind = string_at(v, "kind", source, at);
    if (kind == "tensor") {
      value.kind = TritonCallValue::Kind::tensor;
      value.dtype = string_at(v, "dtype", source, at);
      const nlohmann::json* shape = optional_field(v, "shape");
      if (!shape || !shape->is_array()) throw InputError(source, 0, at + "shape", "not an array");
      for (const auto& d : *shape) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
          throw InputError(source, 0, at + "shape", "holds " + d.dump() + ", not a size");
        value.shape.push_back(d.get<std::int64_t>());
      }
      const nlohmann::json* cuda = optional_field(v, "cuda");
      value.cuda = cuda && cuda->is_boolean() && cuda->get<bool>();
    } else if (kind == "scalar") {
      value.kind = TritonCallValue::Kind::scalar;
      const nlohmann::json* x = optional_field(v, "value");
      if (!x || !(x->is_number() || x->is_boolean() || x->is_null()))
        throw InputError(source, 0, at + "value", "not a number, a bool or null");
      if (x->is_boolean()) value.number = x->get<bool>() ? 1.0 : 0.0;
      if (x->is_number()) value.number = x->get<double>();
    } else if (kind == "text") {
      value.kind = TritonCallValue::Kind::text;
      value.text = string_at(v, "value", source, at);
    } else if (kind == "none") {
      value.kind = TritonCallValue::Kind::none;
    } else {
      throw InputError(source, 0, at + "kind",
                       "'" + kind + "' is not tensor, scalar, text or none");
    }
    out.push_back(std::move(value));
  }
  return out;
}

// The outputs of a site's timed calls: each one's manifest names its slice of the blob, and the
// slices follow one another from `pos` (where the test's outputs end), so that every byte is
// accounted for once. `budget` is the elements the judge still agrees to hold.
OutputSet parse_slice(const nlohmann::json& o, std::string_view data, std::size_t& pos,
                      std::uint64_t& budget, const std::string& source, const std::string& at,
                      std::string* digest = nullptr) {
  if (!o.is_object()) throw InputError(source, 0, at, "not an object");
  const nlohmann::json* offset = optional_field(o, "offset");
  const nlohmann::json* bytes = optional_field(o, "data_bytes");
  if (!offset || !offset->is_number_unsigned() || offset->get<std::uint64_t>() != pos)
    throw InputError(source, 0, at + ".offset",
                     fmt::format("{}, not {} (where the previous outputs end)",
                                 offset ? offset->dump() : "missing", pos));
  if (!bytes || !bytes->is_number_unsigned() || bytes->get<std::uint64_t>() > data.size() - pos)
    throw InputError(source, 0, at + ".data_bytes",
                     fmt::format("{}, with {} bytes left", bytes ? bytes->dump() : "missing",
                                 data.size() - pos));
  const std::size_t n = bytes->get<std::size_t>();
  OutputSet set = parse_output_set(o, data.substr(pos, n), source + ": " + at, budget);
  for (const OutputEntry& e : set.entries) budget -= e.tensor.values.size();
  if (digest != nullptr) *digest = sha256_hex(data.substr(pos, n));
  pos += n;
  return set;
}

std::vector<OutputSet> parse_call_outputs(const nlohmann::json& outputs, std::string_view data,
                                          std::size_t& pos, std::uint64_t& budget,
                                          const std::string& source, const std::string& where,
                                          std::vector<std::string>& digests) {
  if (!outputs.is_array()) throw InputError(source, 0, where, "not an array");
  std::vector<OutputSet> out;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    digests.emplace_back();
    out.push_back(parse_slice(outputs[i], data, pos, budget, source,
                              fmt::format("{}[{}]", where, i), &digests.back()));
  }
  return out;
}

// Test mode: what each call gave (the runner's CallRecorder), after the test's outputs.
std::vector<TritonCallOutput> parse_test_calls(const nlohmann::json& calls, std::string_view data,
                                               std::size_t& pos, const std::string& source) {
  if (!calls.is_array()) throw InputError(source, 0, "call_outputs", "not an array");
  std::uint64_t budget = std::uint64_t{1} << 28;
  std::vector<TritonCallOutput> out;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::string at = fmt::format("call_outputs[{}]", i);
    if (!calls[i].is_object()) throw InputError(source, 0, at, "not an object");
    TritonCallOutput c;
    c.entry = string_at(calls[i], "entry", source, at + ".");
    const nlohmann::json* o = optional_field(calls[i], "outputs");
    if (o && !o->is_null())
      c.outputs = parse_slice(*o, data, pos, budget, source, at + ".outputs", &c.digest);
    out.push_back(std::move(c));
  }
  return out;
}

TritonSiteCheck parse_check(const nlohmann::json& check, std::size_t samples, std::string_view data,
                            std::size_t& pos, std::uint64_t& budget, const std::string& source,
                            const std::string& where) {
  if (!check.is_object()) throw InputError(source, 0, where, "not an object");
  TritonSiteCheck c;
  c.mode = string_at(check, "mode", source, where + ".");
  if (c.mode != "perturbed" && c.mode != "unperturbed")
    throw InputError(source, 0, where + ".mode",
                     "'" + c.mode + "' is neither perturbed nor unperturbed");
  c.reason = string_at(check, "reason", source, where + ".");
  c.perturbed = strings_at(check, "perturbed", source, where + ".perturbed");
  c.observed = strings_at(check, "observed", source, where + ".observed");
  if (const nlohmann::json* probe = optional_field(check, "probe")) {
    if (!probe->is_array()) throw InputError(source, 0, where + ".probe", "not an array");
    for (std::size_t i = 0; i < probe->size(); ++i)
      c.probe.push_back(strings_at(*probe, i, source, fmt::format("{}.probe[{}]", where, i)));
  }
  const nlohmann::json* outputs = optional_field(check, "outputs");
  if (!outputs) throw InputError(source, 0, where + ".outputs", "missing");
  c.outputs =
      parse_call_outputs(*outputs, data, pos, budget, source, where + ".outputs", c.digests);
  // Every timed call is judged by its output: a sample without one is a time nobody checked.
  if (c.outputs.size() != samples)
    throw InputError(source, 0, where + ".outputs",
                     fmt::format("{} outputs for {} timed calls", c.outputs.size(), samples));
  c.whole = c.outputs.size();
  if (const nlohmann::json* whole = optional_field(check, "whole")) {
    if (!whole->is_number_unsigned() || whole->get<std::uint64_t>() > c.outputs.size())
      throw InputError(source, 0, where + ".whole",
                       fmt::format("{}, not a count of at most {} timed calls", whole->dump(),
                                   c.outputs.size()));
    c.whole = whole->get<std::size_t>();
  }
  if (const nlohmann::json* sample = optional_field(check, "sample")) {
    if (!sample->is_number_unsigned() || sample->get<std::uint64_t>() == 0)
      throw InputError(source, 0, where + ".sample", sample->dump() + ", not a positive count");
    c.sample = sample->get<std::uint64_t>();
  }
  return c;
}

std::vector<TritonCallSite> parse_sites(const nlohmann::json& timing, std::string_view data,
                                        std::size_t& pos, const std::string& source) {
  if (!timing.is_object()) throw InputError(source, 0, "timing", "not an object");
  std::uint64_t budget = std::uint64_t{1} << 28;
  const nlohmann::json* sites = optional_field(timing, "sites");
  if (!sites || !sites->is_array()) throw InputError(source, 0, "timing.sites", "not an array");
  std::vector<TritonCallSite> out;
  for (std::size_t i = 0; i < sites->size(); ++i) {
    const std::string where = fmt::format("timing.sites[{}].", i);
    const nlohmann::json& s = (*sites)[i];
    if (!s.is_object()) throw InputError(source, 0, where, "not an object");
    TritonCallSite site;
    site.entry = string_at(s, "entry", source, where);
    const nlohmann::json* samples = optional_field(s, "samples_ms");
    if (!samples || !samples->is_array() || samples->empty())
      throw InputError(source, 0, where + "samples_ms", "not a non-empty array");
    for (const auto& x : *samples) {
      // A time that is not finite and positive is not a measurement (nor is a forged zero).
      if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() <= 0)
        throw InputError(source, 0, where + "samples_ms",
                         "holds " + x.dump() + ", not a positive time");
      site.samples_ms.push_back(x.get<double>());
    }
    if (const nlohmann::json* bytes = optional_field(s, "bytes")) {
      if (!bytes->is_number_integer() || bytes->get<std::int64_t>() < 0)
        throw InputError(source, 0, where + "bytes", "not a non-negative integer");
      site.bytes = bytes->get<std::int64_t>();
    }
    if (const nlohmann::json* values = optional_field(s, "values"))
      site.values = parse_values(*values, source, where + "values");
    if (const nlohmann::json* end = optional_field(s, "end")) {
      if (!end->is_string() || (*end != "stream" && *end != "device"))
        throw InputError(source, 0, where + "end", "not \"stream\" or \"device\"");
      site.end = end->get<std::string>();
    }
    // The site's optional times in ms: what the runner says, never a negative or endless one.
    auto time_at = [&](const char* key, double& into) {
      const nlohmann::json* v = optional_field(s, key);
      if (!v) return;
      if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0)
        throw InputError(source, 0, where + key, "not a non-negative time");
      into = v->get<double>();
    };
    time_at("tail_ms", site.tail_ms);
    time_at("hold_ms", site.hold_ms);
    if (const nlohmann::json* bound = optional_field(s, "host_bound")) {
      if (!bound->is_boolean()) throw InputError(source, 0, where + "host_bound", "not a boolean");
      site.host_bound = bound->get<bool>();
    }
    if (const nlohmann::json* watch = optional_field(s, "watch")) {
      // The names come from code the candidate controls: kept short, and few.
      if (!watch->is_array() || watch->size() > 64)
        throw InputError(source, 0, where + "watch", "not an array of at most 64 strings");
      for (const nlohmann::json& w : *watch) {
        if (!w.is_string()) throw InputError(source, 0, where + "watch", "not a string");
        std::string text = w.get<std::string>();
        if (text.size() > 120) text = text.substr(0, 117) + "...";
        site.watch.push_back(std::move(text));
      }
    }
    const nlohmann::json* check = optional_field(s, "check");
    if (!check) throw InputError(source, 0, where + "check", "missing");
    site.check =
        parse_check(*check, site.samples_ms.size(), data, pos, budget, source, where + "check");
    out.push_back(std::move(site));
  }
  return out;
}

// The runner's report of the kept entry arguments: {entry, args, calls, recorded, bytes}.
nlohmann::ordered_json parse_entry_args(const nlohmann::json& kept, const std::string& source) {
  if (!kept.is_object()) throw InputError(source, 1, "entry_args", "not an object");
  const std::string entry = string_at(kept, "entry", source, "entry_args.");
  const nlohmann::json* args = optional_field(kept, "args");
  if (!args || !args->is_array())
    throw InputError(source, 1, "entry_args.args", "missing or not an array");
  std::vector<int> positions;
  for (const auto& a : *args) {
    if (!a.is_number_unsigned() || a.get<std::uint64_t>() > 1024)
      throw InputError(source, 1, "entry_args.args", "holds " + a.dump() + ", not a position");
    positions.push_back(a.get<int>());
  }
  auto count = [&](const char* key) {
    const nlohmann::json* v = optional_field(kept, key);
    if (!v || !v->is_number_unsigned())
      throw InputError(source, 1, std::string("entry_args.") + key, "missing or not a count");
    return v->get<std::uint64_t>();
  };
  const std::uint64_t calls = count("calls"), recorded = count("recorded"), bytes = count("bytes");
  if (recorded > calls)
    throw InputError(source, 1, "entry_args.recorded",
                     fmt::format("{} calls recorded of {}", recorded, calls));
  return {{"entry", entry},
          {"args", positions},
          {"calls", calls},
          {"recorded", recorded},
          {"bytes", bytes}};
}

void fill_from_process(const ProcessResult& r, TritonRunOutcome& out) {
  out.log = r.output;
  out.log_truncated = r.truncated;
  out.seconds = r.wall_s;
  out.exit_code = r.exit_code;
  out.signal = r.signal;
  out.memory_peak_bytes = r.memory_peak_bytes;
}

// The last line of the log that says something: Python's last traceback line, usually.
std::string last_line(const std::string& log) {
  std::size_t end = log.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  std::size_t start = log.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return log.substr(start, std::min<std::size_t>(end - start + 1, 300));
}

// The judge's tolerances for the runner's own comparisons (whether the reference agrees with
// itself on new content): tolerance.h stays the one place they live.
nlohmann::json tolerance_table() {
  nlohmann::json t = nlohmann::json::object();
  for (DType d : {DType::f64, DType::f32, DType::f16, DType::bf16, DType::f8e4m3, DType::f8e5m2}) {
    const Tolerance tol = tolerance_for(d);
    if (!tol.exact) t[std::string(dtype_name(d))] = {{"rtol", tol.rtol}, {"atol", tol.atol}};
  }
  return t;
}

std::uint64_t u64_at(const nlohmann::json& v, const std::string& source, const std::string& field) {
  if (!v.is_number_unsigned()) throw InputError(source, 1, field, "not a count");
  return v.get<std::uint64_t>();
}

TritonCuptiMarks parse_cupti(const nlohmann::json& c, const std::string& source) {
  if (!c.is_object()) throw InputError(source, 1, "cupti", "not an object");
  TritonCuptiMarks m;
  m.reported = true;
  const nlohmann::json* clock = optional_field(c, "clock");
  if (!clock || !clock->is_boolean())
    throw InputError(source, 1, "cupti.clock", "missing or not true/false");
  m.clock = clock->get<bool>();
  if (const nlohmann::json* f = optional_field(c, "finished")) {
    if (!f->is_boolean()) throw InputError(source, 1, "cupti.finished", "not true/false");
    m.finished = f->get<bool>();
  }
  if (const nlohmann::json* w = optional_field(c, "why"); w && w->is_string()) m.why = *w;
  if (const nlohmann::json* t = optional_field(c, "tid"))
    m.tid = static_cast<std::uint32_t>(u64_at(*t, source, "cupti.tid"));
  if (const nlohmann::json* imp = optional_field(c, "import")) {
    if (!imp->is_array() || imp->size() != 2)
      throw InputError(source, 1, "cupti.import", "not [start, end]");
    m.import_start_ns = u64_at((*imp)[0], source, "cupti.import[0]");
    m.import_end_ns = u64_at((*imp)[1], source, "cupti.import[1]");
  }
  const nlohmann::json* calls = optional_field(c, "calls");
  if (!calls || !calls->is_array())
    throw InputError(source, 1, "cupti.calls", "missing or not an array");
  for (std::size_t i = 0; i < calls->size(); ++i) {
    const nlohmann::json& v = (*calls)[i];
    const std::string field = fmt::format("cupti.calls[{}]", i);
    if (!v.is_array() || v.size() != 4 || !v[1].is_number_integer())
      throw InputError(source, 1, field, "not [site, rep, start, end]");
    TritonCallMark mark;
    mark.site = static_cast<std::size_t>(u64_at(v[0], source, field + "[0]"));
    const std::int64_t rep = v[1].get<std::int64_t>();
    if (rep < -1 || rep > 1000000) throw InputError(source, 1, field + "[1]", "not a repetition");
    mark.rep = static_cast<int>(rep);
    mark.start_ns = u64_at(v[2], source, field + "[2]");
    mark.end_ns = u64_at(v[3], source, field + "[3]");
    if (mark.end_ns < mark.start_ns) throw InputError(source, 1, field, "ends before it starts");
    m.calls.push_back(mark);
  }
  return m;
}

}  // namespace

std::string_view triton_run_status_name(TritonRunStatus s) {
  switch (s) {
    case TritonRunStatus::ok:
      return "ok";
    case TritonRunStatus::error:
      return "error";
    case TritonRunStatus::timeout:
      return "timeout";
    case TritonRunStatus::crashed:
      return "crashed";
    case TritonRunStatus::limit:
      return "limit";
    case TritonRunStatus::refused:
      return "refused";
    case TritonRunStatus::judge_error:
      return "judge_error";
  }
  return "?";
}

std::optional<TritonRunStatus> triton_run_status_from_name(std::string_view name) {
  return enum_from_name<TritonRunStatus>(name, triton_run_status_name);
}

nlohmann::json triton_request_json(const TritonRunRequest& req, const fs::path& candidate_path,
                                   const fs::path& test_path, const std::string& nonce) {
  nlohmann::json modes = nlohmann::json::array();
  if (req.test) modes.push_back("test");
  if (req.time) modes.push_back("time");
  return {{"protocol", kProtocol},
          {"nonce", nonce},
          {"candidate_path", candidate_path.string()},
          {"test_path", test_path.string()},
          {"seed", req.seed},
          {"modes", modes},
          {"require_torch", req.require_torch},
          {"zero_fill", req.zero_fill},
          {"entry_args", req.entry_args ? nlohmann::json{{"entry", req.entry_args->entry},
                                                         {"args", req.entry_args->args},
                                                         {"max_bytes", req.entry_args->max_bytes}}
                                        : nlohmann::json(nullptr)},
          {"timing",
           {{"warmup", req.timing.warmup},
            {"reps", req.timing.reps},
            {"min_reps", req.timing.min_reps},
            {"max_ms_per_site", req.timing.max_ms_per_site},
            {"flush_bytes", req.timing.flush_bytes},
            {"cupti", req.timing.cupti},
            // The job's secret never enters the runner: each timed call's key comes over the
            // per-call channel in its turn (TritonStreamServer); the request holds only the
            // seed of the probe's untimed calls, which says nothing of the keys.
            {"check",
             {{"perturb", req.timing.perturb},
              {"perturb_relative", req.timing.perturb_relative},
              {"seed", req.time ? triton_probe_seed(req.timing.perturb_seed) : 0},
              {"max_bytes_per_site", req.timing.check_bytes_per_site},
              {"max_bytes", req.timing.check_bytes},
              {"plan", req.plan},
              {"tolerances", tolerance_table()}}}}}};
}

nlohmann::json triton_check_plan(const std::vector<TritonCallSite>& sites) {
  nlohmann::json plan = nlohmann::json::array();
  for (const TritonCallSite& s : sites)
    plan.push_back({{"entry", s.entry},
                    {"mode", s.check.mode},
                    {"reason", s.check.reason},
                    {"perturb", s.check.perturbed},
                    {"observe", s.check.observed},
                    {"probe", s.check.probe},
                    {"reps", s.check.outputs.size()},
                    {"whole", s.check.whole},
                    {"sample", s.check.sample}});
  return plan;
}

void parse_runner_record(const std::string& channel, const std::string& nonce,
                         const std::string& source, TritonRunOutcome& out) {
  const std::size_t nl = channel.find('\n');
  if (channel.empty()) throw InputError(source, 0, "", "the runner wrote no report");
  if (nl == std::string::npos) throw InputError(source, 0, "", "the report has no end of line");
  nlohmann::json rec;
  try {
    rec = nlohmann::json::parse(channel.substr(0, nl));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source, 1, "", std::string("the report is not JSON: ") + e.what());
  }
  if (!rec.is_object()) throw InputError(source, 1, "", "the report is not a JSON object");
  const nlohmann::json* protocol = optional_field(rec, "protocol");
  if (!protocol || *protocol != kProtocol)
    throw InputError(
        source, 1, "protocol",
        fmt::format("expected {}, got {}", kProtocol, protocol ? protocol->dump() : "nothing"));
  if (string_at(rec, "nonce", source, "") != nonce)
    throw InputError(source, 1, "nonce", "not the nonce of this run (a foreign or stale report)");
  const std::string_view data = std::string_view(channel).substr(nl + 1);
  const nlohmann::json* data_bytes = optional_field(rec, "data_bytes");
  if (!data_bytes || !data_bytes->is_number_unsigned() ||
      data_bytes->get<std::uint64_t>() != data.size())
    throw InputError(source, 1, "data_bytes",
                     fmt::format("says {}, {} bytes follow the record",
                                 data_bytes ? data_bytes->dump() : "nothing", data.size()));
  const std::string status = string_at(rec, "status", source, "");
  if (status == "error") {
    const nlohmann::json* e = optional_field(rec, "error");
    if (!e || !e->is_object()) throw InputError(source, 1, "error", "missing or not an object");
    out.status = TritonRunStatus::error;
    out.error.stage = string_at(*e, "stage", source, "error.");
    out.error.exception_type = string_at(*e, "exception_type", source, "error.");
    out.error.message = string_at(*e, "message", source, "error.");
    out.error.traceback = string_at(*e, "traceback", source, "error.");
    out.detail = fmt::format("{} at stage {}: {}", out.error.exception_type, out.error.stage,
                             out.error.message.substr(0, 300));
  } else if (status == "ok") {
    out.status = TritonRunStatus::ok;
  } else {
    throw InputError(source, 1, "status", "'" + status + "' is neither ok nor error");
  }
  // The blob: the test's outputs first, then the timed calls' outputs, site by site.
  std::size_t pos = 0;
  if (const nlohmann::json* o = optional_field(rec, "outputs")) {
    const nlohmann::json* n = o->is_object() ? optional_field(*o, "data_bytes") : nullptr;
    // A data_bytes beyond the blob is refused by parse_output_set, with the blob's size.
    const bool fits = n && n->is_number_unsigned() && n->get<std::uint64_t>() <= data.size();
    pos = fits ? n->get<std::size_t>() : data.size();
    out.outputs = parse_output_set(*o, data.substr(0, pos), source);
    out.has_outputs = true;
  }
  if (const nlohmann::json* calls = optional_field(rec, "call_outputs"))
    out.call_outputs = parse_test_calls(*calls, data, pos, source);
  const nlohmann::json* timing = optional_field(rec, "timing");
  if (timing) out.sites = parse_sites(*timing, data, pos, source);
  if (pos != data.size()) {
    if (!out.has_outputs && !timing && out.call_outputs.empty())
      throw InputError(source, 1, "outputs", "missing, yet data follows the record");
    throw InputError(source, 1, "data_bytes",
                     fmt::format("{} bytes of data are nobody's outputs", data.size() - pos));
  }
  if (const nlohmann::json* c = optional_field(rec, "calls")) {
    if (!c->is_object()) throw InputError(source, 1, "calls", "not an object");
    for (auto it = c->begin(); it != c->end(); ++it) {
      if (!it.value().is_number_unsigned())
        throw InputError(source, 1, "calls." + it.key(), "not a count");
      out.calls[it.key()] = it.value();
    }
  }
  out.entries = strings_at(rec, "entries", source);
  out.shadowed = strings_at(rec, "shadowed", source);
  if (const nlohmann::json* s = optional_field(rec, "result_source"); s && s->is_string())
    out.result_source = s->get<std::string>();
  if (const nlohmann::json* fill = optional_field(rec, "zero_fill")) {
    if (!fill->is_object()) throw InputError(source, 1, "zero_fill", "not an object");
    const std::vector<std::string> patched =
        strings_at(*fill, "patched", source, "zero_fill.patched");
    const nlohmann::json* calls = optional_field(*fill, "calls");
    if (!calls || !calls->is_object())
      throw InputError(source, 1, "zero_fill.calls", "missing or not an object");
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (auto it = calls->begin(); it != calls->end(); ++it) {
      if (!it.value().is_number_unsigned())
        throw InputError(source, 1, "zero_fill.calls." + it.key(), "not a count");
      counts[it.key()] = it.value();
    }
    out.zero_fill = {{"patched", patched}, {"calls", std::move(counts)}};
  }
  if (const nlohmann::json* kept = optional_field(rec, "entry_args"))
    out.entry_args = parse_entry_args(*kept, source);
  if (const nlohmann::json* phases = optional_field(rec, "seconds"); phases && phases->is_object())
    for (auto it = phases->begin(); it != phases->end(); ++it)
      if (it.value().is_number() && std::isfinite(it.value().get<double>()))
        out.phase_seconds[it.key()] = it.value().get<double>();
  if (const nlohmann::json* env = optional_field(rec, "env"); env && env->is_object())
    for (auto it = env->begin(); it != env->end(); ++it)
      if (it.value().is_string()) out.env[it.key()] = it.value();
  if (const nlohmann::json* c = optional_field(rec, "cupti")) out.cupti = parse_cupti(*c, source);
  // What the runner found rebound of its own code. The names come from code the candidate
  // controls: kept short, and few.
  if (const nlohmann::json* t = optional_field(rec, "tampered")) {
    if (!t->is_array() || t->size() > 64)
      throw InputError(source, 1, "tampered", "not an array of at most 64 strings");
    for (const nlohmann::json& w : *t) {
      if (!w.is_string()) throw InputError(source, 1, "tampered", "not a string");
      std::string text = w.get<std::string>();
      if (text.size() > 120) text = text.substr(0, 117) + "...";
      out.tampered.push_back(std::move(text));
    }
  }
  if (out.status == TritonRunStatus::ok && !out.has_outputs && out.sites.empty() && !timing)
    throw InputError(source, 1, "", "status ok, yet neither outputs nor timing");
}

std::string triton_call_key(std::uint64_t secret, std::size_t site, std::size_t rep) {
  return sha256_hex(fmt::format("{:016x}/kjudge-triton/in/{}/{}", secret, site, rep)).substr(0, 32);
}

std::string triton_sample_key(std::uint64_t secret, std::size_t site, std::size_t rep) {
  return sha256_hex(fmt::format("{:016x}/kjudge-triton/sample/{}/{}", secret, site, rep))
      .substr(0, 32);
}

std::string triton_call_sample_key(std::uint64_t secret, std::size_t index) {
  return sha256_hex(fmt::format("{:016x}/kjudge-triton/call/{}", secret, index)).substr(0, 32);
}

std::uint64_t triton_probe_seed(std::uint64_t secret) {
  // 60 bits: positive as a JSON integer anywhere, and never 0 (none given).
  return std::strtoull(
             sha256_hex(fmt::format("{:016x}/kjudge-triton/probe", secret)).substr(0, 15).c_str(),
             nullptr, 16) |
         1;
}

namespace {

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool parse_count(const std::string& w, std::size_t& out) {
  if (w.empty() || w.size() > 7 || w.find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = static_cast<std::size_t>(std::stoul(w));
  return true;
}

bool parse_ms(const std::string& w, double& out) {
  if (w.empty() || w.size() > 40) return false;
  char* end = nullptr;
  out = std::strtod(w.c_str(), &end);
  return end == w.c_str() + w.size() && std::isfinite(out) && out >= 0;
}

bool sha256_word(const std::string& w) {
  return w.size() == 64 && w.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

// The judge's end of the per-call channel (the runner's CallStream): a socket pair, the runner
// keeping one end, and a thread answering it while the run goes on. It answers in order only
// and takes the time of every message on the judge's clock; anything out of order (a message
// the operator code forged on the runner's descriptor) ends the service with a violation.
class TritonStreamServer {
 public:
  TritonStreamServer() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw std::runtime_error("cannot make the per-call channel");
    judge_ = fds[0];
    child_ = fds[1];
  }
  ~TritonStreamServer() {
    (void)stop();
    close(judge_);
    close(child_);
  }
  TritonStreamServer(const TritonStreamServer&) = delete;
  TritonStreamServer& operator=(const TritonStreamServer&) = delete;

  int child_fd() const { return child_; }
  // Set from the request when it is written (for a gated run, just before its go).
  void configure(std::uint64_t secret, bool timed) {
    std::lock_guard<std::mutex> lock(mu_);
    secret_ = secret;
    timed_ = timed;
  }
  void start(std::int64_t spawn_ns) {
    log_ = TritonStreamLog{};
    log_.served = true;
    log_.spawn_ns = spawn_ns;
    state_ = State::idle;
    started_ = false;
    next_rec_ = 0;
    call_keyed_ = false;
    thread_ = std::thread([this] { serve(); });
  }
  // Once the runner has ended: the thread is woken (the judge holds the runner's end open too,
  // so no end of file would come) and its log handed back.
  TritonStreamLog stop() {
    if (!thread_.joinable()) return TritonStreamLog{};
    shutdown(judge_, SHUT_RDWR);
    thread_.join();
    return std::move(log_);
  }

 private:
  enum class State { idle, keyed, done };
  static constexpr std::size_t kLineCap = 256;
  static constexpr std::size_t kEventCap = 1u << 20;

  void send_line(const std::string& line) {
    std::string_view v = line;
    while (!v.empty()) {
      const ssize_t n = send(judge_, v.data(), v.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      v.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  void serve() {
    std::string buf;
    char tmp[512];
    for (;;) {
      const ssize_t n = read(judge_, tmp, sizeof tmp);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      const std::int64_t now = realtime_ns();
      buf.append(tmp, static_cast<std::size_t>(n));
      std::size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        const std::string line = buf.substr(0, nl);
        buf.erase(0, nl + 1);
        std::string reply;
        const std::string bad = handle(line, now, reply);
        if (!bad.empty()) {
          log_.violation = bad;
          send_line("refused\n");
          return;
        }
        if (!reply.empty()) send_line(reply);
      }
      if (buf.size() > kLineCap) {
        log_.violation = "a message longer than 256 bytes";
        send_line("refused\n");
        return;
      }
    }
  }

  // The reply to one message in `reply` (none for rec); non-empty: the violation. A kept is
  // answered too, and the runner waits for it: what its thread launches next (the next call's
  // inputs) then comes after the judge took the kept's time, never inside the read-back window
  // the profiler's record is held to (on the H100, a read-back race flagged an honest operator).
  std::string handle(const std::string& line, std::int64_t now, std::string& reply) {
    std::vector<std::string> w;
    for (std::size_t i = 0; i < line.size();) {
      const std::size_t j = std::min(line.find(' ', i), line.size());
      w.push_back(line.substr(i, j - i));
      i = j + 1;
    }
    const std::string quoted = "'" + line.substr(0, 80) + "'";
    if (log_.events.size() >= kEventCap) return "more than 2^20 messages";
    std::uint64_t secret;
    bool timed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      secret = secret_;
      timed = timed_;
    }
    TritonStreamEvent e;
    e.at_ns = now;
    if (w.empty()) return "an empty message";
    if (w[0] == "call") {  // the sample key of an entry call too large to keep whole
      e.kind = TritonStreamEvent::Kind::call;
      if (timed) return "an entry call sampled in a timing run: " + quoted;
      if (w.size() != 2 || !parse_count(w[1], e.rep)) return "a malformed message " + quoted;
      if (e.rep != next_rec_ || call_keyed_)
        return fmt::format("the sample key of entry call {} asked for out of turn", e.rep);
      call_keyed_ = true;
      reply = "s " + triton_call_sample_key(secret, e.rep) + "\n";
      log_.events.push_back(std::move(e));
      return "";
    }
    if (w[0] == "rec") {
      e.kind = TritonStreamEvent::Kind::rec;
      if (timed) return "an entry call recorded in a timing run: " + quoted;
      if (w.size() != 3 || !parse_count(w[1], e.rep) || (w[2] != "-" && !sha256_word(w[2])))
        return "a malformed message " + quoted;
      if (e.rep != next_rec_)
        return fmt::format("entry call {} recorded where call {} was next", e.rep, next_rec_);
      ++next_rec_;
      call_keyed_ = false;
      e.digest = w[2] == "-" ? "" : w[2];
      log_.events.push_back(std::move(e));
      return "";
    }
    if (!timed) return "a timed call's message in a test-mode run: " + quoted;
    if (w.size() < 3 || !parse_count(w[1], e.site) || !parse_count(w[2], e.rep))
      return "a malformed message " + quoted;
    const auto at = std::make_pair(e.site, e.rep);
    if (w[0] == "key" && w.size() == 3) {
      const bool next = state_ == State::idle &&
                        (!started_ ? (e.site == 0 && e.rep == 0)
                                   : ((e.site == last_.first && e.rep == last_.second + 1) ||
                                      (e.site == last_.first + 1 && e.rep == 0)));
      if (!next)
        return fmt::format("the key of site {} call {} asked for out of turn ({})", e.site, e.rep,
                           started_
                               ? fmt::format("after site {} call {}", last_.first, last_.second)
                               : std::string("first"));
      e.kind = TritonStreamEvent::Kind::key;
      state_ = State::keyed;
      cur_ = at;
      reply = "k " + triton_call_key(secret, e.site, e.rep) + "\n";
    } else if (w[0] == "done" && w.size() == 5) {
      if (state_ != State::keyed || cur_ != at)
        return fmt::format("site {} call {} said done out of turn", e.site, e.rep);
      if (!parse_ms(w[3], e.stream_ms) || !parse_ms(w[4], e.device_ms))
        return "a malformed message " + quoted;
      e.kind = TritonStreamEvent::Kind::done;
      state_ = State::done;
      reply = "s " + triton_sample_key(secret, e.site, e.rep) + "\n";
    } else if (w[0] == "kept" && w.size() == 4) {
      if (state_ != State::done || cur_ != at)
        return fmt::format("site {} call {} said kept out of turn", e.site, e.rep);
      if (!sha256_word(w[3])) return "a malformed message " + quoted;
      e.kind = TritonStreamEvent::Kind::kept;
      e.digest = w[3];
      reply = fmt::format("a {:x}\n", e.rep);
      state_ = State::idle;
      started_ = true;
      last_ = at;
    } else {
      return "a message the judge has no use for: " + quoted;
    }
    log_.events.push_back(std::move(e));
    return "";
  }

  int judge_ = -1, child_ = -1;
  std::mutex mu_;
  std::uint64_t secret_ = 0;
  bool timed_ = false;
  std::thread thread_;
  TritonStreamLog log_;
  State state_ = State::idle;
  bool started_ = false;
  std::pair<std::size_t, std::size_t> last_{0, 0}, cur_{0, 0};
  std::size_t next_rec_ = 0;
  bool call_keyed_ = false;
};

std::string triton_stream_mismatch(const TritonRunOutcome& o, bool timed) {
  const TritonStreamLog& log = o.stream;
  if (!log.served) return "";
  if (!log.violation.empty()) return "its per-call channel: " + log.violation;
  if (o.status != TritonRunStatus::ok) return "";
  using K = TritonStreamEvent::Kind;
  if (!timed) {
    std::size_t i = 0;
    for (const TritonStreamEvent& e : log.events) {
      if (e.kind != K::rec) continue;
      if (i >= o.call_outputs.size())
        return fmt::format("it committed entry call {}, which its report does not hold", i);
      if (e.digest != o.call_outputs[i].digest)
        return fmt::format(
            "entry call {} ({}) in its report is not what it committed as the call ended", i,
            o.call_outputs[i].entry);
      ++i;
    }
    if (i != o.call_outputs.size())
      return fmt::format("its report holds {} entry calls, it committed {}", o.call_outputs.size(),
                         i);
    return "";
  }
  // Per reported site, the done and kept of each timed call, in order.
  std::vector<std::vector<std::pair<const TritonStreamEvent*, const TritonStreamEvent*>>> calls(
      o.sites.size());
  const TritonStreamEvent* last = nullptr;
  for (const TritonStreamEvent& e : log.events) {
    last = &e;
    if (e.kind == K::key) continue;
    if (e.site >= o.sites.size())
      return fmt::format("it committed timed calls of site {}, which its report does not hold",
                         e.site);
    auto& site = calls[e.site];
    if (e.kind == K::done)
      site.push_back({&e, nullptr});
    else if (e.kind == K::kept && !site.empty())
      site.back().second = &e;
  }
  if (last != nullptr && last->kind != K::kept)
    return fmt::format("its last timed call (site {} call {}) was never committed whole",
                       last->site, last->rep);
  for (std::size_t s = 0; s < o.sites.size(); ++s) {
    const TritonCallSite& site = o.sites[s];
    if (calls[s].size() != site.samples_ms.size())
      return fmt::format("site {} ({}) reports {} timed calls, it committed {}", s, site.entry,
                         site.samples_ms.size(), calls[s].size());
    for (std::size_t n = 0; n < calls[s].size(); ++n) {
      const auto& [done, kept] = calls[s][n];
      const double committed = site.end == "device" ? done->device_ms : done->stream_ms;
      if (committed != site.samples_ms[n])
        return fmt::format(
            "site {} ({}) call {} reports {} ms, it committed {} ms as the call ended", s,
            site.entry, n, site.samples_ms[n], committed);
      if (kept == nullptr || n >= site.check.digests.size() ||
          kept->digest != site.check.digests[n])
        return fmt::format(
            "site {} ({}) call {}: the output in its report is not what it committed as the call "
            "ended",
            s, site.entry, n);
    }
  }
  return "";
}

TritonRunFiles::TritonRunFiles(const fs::path& workspace, const std::string& code,
                               const std::string& test_code)
    : ws(fs::absolute(workspace)), candidate(ws / "candidate.py"), test(ws / "test.py") {
  fs::create_directories(ws);
  write_file_cloexec(candidate, code);
  write_file_cloexec(test, test_code);
  request = std::make_unique<ResultChannel>("kjudge-triton-request");
  result = std::make_unique<ResultChannel>("kjudge-triton-result");
  stream = std::make_unique<TritonStreamServer>();
}

TritonRunFiles::~TritonRunFiles() = default;

void TritonRunFiles::write_request(const TritonRunRequest& req) const {
  stream->configure(req.time ? req.timing.perturb_seed : req.test_secret, req.time);
  const std::string body = triton_request_json(req, candidate, test, result->nonce()).dump();
  if (pwrite(request->fd(), body.data(), body.size(), 0) != static_cast<ssize_t>(body.size()))
    throw std::runtime_error("cannot write the request");
}

namespace {

// Starts the runner on prepared files and reads its report; go_fd >= 0: the runner waits on it.
TritonRunOutcome execute(const TritonRunner& runner, const TritonRunFiles& f, int go_fd,
                         double timeout_s, bool timed) {
  TritonRunOutcome out;
  const fs::path& ws = f.ws;
  StepExtras extras;
  // -I: nothing of the environment or the user's site-packages reaches the interpreter, so
  // PYTHON* variables have no effect here (string hashes stay randomised): -B (write no
  // bytecode) and -u (unbuffered output, kept when the run is killed) say it instead.
  extras.argv = {runner.python.executable, "-I", "-B", "-u"};
  for (const std::string& arg : python_bytecode_args(runner.python.bytecode_cache))
    extras.argv.push_back(arg);
  extras.argv.insert(extras.argv.end(),
                     {runner.script.string(), "--request-fd", std::to_string(f.request->fd()),
                      "--result-fd", std::to_string(f.result->fd())});
  extras.inherit_fds = {f.request->fd(), f.result->fd()};
  extras.argv.insert(extras.argv.end(), {"--stream-fd", std::to_string(f.stream->child_fd())});
  extras.inherit_fds.push_back(f.stream->child_fd());
  if (go_fd >= 0) {
    extras.argv.insert(extras.argv.end(), {"--go-fd", std::to_string(go_fd)});
    extras.inherit_fds.push_back(go_fd);
  }
  extras.ro_paths = runner.python.ro_paths;
  extras.ro_paths.push_back(runner.script.parent_path());
  if (!runner.python.bytecode_cache.empty())
    extras.ro_paths.push_back(runner.python.bytecode_cache);
  // Every cache the run writes stays in its own workspace: a Triton cache shared between runs
  // would let one candidate plant compiled kernels under the reference's cache key.
  extras.env = {"HOME=" + ws.string(), "TRITON_CACHE_DIR=" + (ws / ".triton/cache").string(),
                "TRITON_HOME=" + ws.string(), "XDG_CACHE_HOME=" + (ws / ".cache").string()};
  if (runner.gpu >= 0) extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(runner.gpu));
  // The profiler gets a channel of its own, as in the task path (perf/benchmarker.cpp): its
  // header is written as it loads, so a record that stops there says the process never reached
  // the runner's finish.
  std::optional<ResultChannel> profile;
  if (!runner.profiler.empty()) {
    try {
      profile.emplace(open_profiler_channel("kjudge-triton-profile"));
    } catch (const std::exception& e) {
      out.status = TritonRunStatus::judge_error;
      out.detail = std::string("judge: cannot make the profiler's channel: ") + e.what();
      return out;
    }
    for (std::string& e : profiler_channel_env(*profile, true)) extras.env.push_back(std::move(e));
    extras.preload.push_back(runner.profiler);
    extras.inherit_fds.push_back(profile->fd());
  }
  const std::string label = runner.python.executable + " " + runner.script.filename().string();
  f.stream->start(realtime_ns());
  ProcessResult r = run_step(runner.step, runner.machine, label, ws, timeout_s, extras);
  TritonStreamLog stream = f.stream->stop();
  fill_from_process(r, out);
  if (profile) {
    out.profiled = true;
    out.profile = profile_channel_text(*profile);
    out.profile_nonce = profile->nonce();
  }

  if (!r.started) {
    out.status = TritonRunStatus::judge_error;
    out.detail = "judge: could not start the runner: " + r.error;
    return out;
  }
  if (!stream.violation.empty()) {
    // A message out of turn on the runner's descriptor is the operator code's (the runner only
    // asks in order): the run is refused, whatever became of the process after the judge said
    // no (the runner raises when it is answered "refused").
    out.status = TritonRunStatus::refused;
    out.detail = "the runner's report was refused: its per-call channel: " + stream.violation;
    out.stream = std::move(stream);
    return out;
  }
  if (r.timed_out) {
    out.status = TritonRunStatus::timeout;
    out.detail = fmt::format("timed out after {:g} s", timeout_s);
    return out;
  }
  if (!r.limit_exceeded.empty()) {
    out.status = TritonRunStatus::limit;
    out.detail = "stopped: it " + r.limit_exceeded;
    return out;
  }
  if (r.signal != 0) {
    out.status = TritonRunStatus::crashed;
    out.detail = fmt::format("killed by signal {}: {}", r.signal, last_line(r.output));
    return out;
  }
  const std::string channel = f.result->read_all();
  if (r.exit_code != 0 || channel.empty()) {
    // The runner always exits 0 after writing its report: anything else means the process
    // ended under it (os._exit in the operator code, a CUDA abort, a missing interpreter).
    out.status = TritonRunStatus::crashed;
    out.detail = fmt::format("exit {} without a report: {}", r.exit_code, last_line(r.output));
    return out;
  }
  try {
    parse_runner_record(channel, f.result->nonce(), "the runner's report", out);
  } catch (const InputError& e) {
    out = TritonRunOutcome{};
    fill_from_process(r, out);
    out.status = TritonRunStatus::refused;
    out.detail = std::string("the runner's report was refused: ") + e.what();
    out.stream = std::move(stream);
    return out;
  }
  out.stream = std::move(stream);
  // Evidence the operator code cannot rewrite after the fact decides: a runner whose own code
  // was rebound, or whose report says otherwise than what it committed call by call, is refused.
  std::string why;
  if (!out.tampered.empty()) {
    why = "the operator code rebound the runner's own code: " + out.tampered.front();
    if (out.tampered.size() > 1) why += fmt::format(" (and {} more)", out.tampered.size() - 1);
  } else {
    why = triton_stream_mismatch(out, timed);
  }
  if (!why.empty()) {
    out.status = TritonRunStatus::refused;
    out.detail = "the runner's report was refused: " + why;
  }
  return out;
}

}  // namespace

TritonRunOutcome run_triton(const TritonRunner& runner, const TritonRunRequest& req,
                            const fs::path& workspace) {
  std::optional<TritonRunFiles> files;
  try {
    files.emplace(workspace, req.code, req.test_code);
    files->write_request(req);
  } catch (const std::exception& e) {
    TritonRunOutcome out;
    out.status = TritonRunStatus::judge_error;
    out.detail = std::string("judge: cannot prepare the run: ") + e.what();
    return out;
  }
  return execute(runner, *files, -1, runner.timeout_s, req.time);
}

TritonGate::TritonGate(const fs::path& workspace, const std::string& code,
                       const std::string& test_code)
    : files_(workspace, code, test_code) {
  int fds[2];
  // Close-on-exec both: the runner gets the read end through inherit_fds alone, and no other
  // process started meanwhile holds the write end (which would keep a cancel from reaching it).
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot make the go pipe");
  go_read_ = fds[0];
  go_write_ = fds[1];
}

TritonGate::~TritonGate() {
  cancel();
  if (go_read_ >= 0) close(go_read_);
}

bool TritonGate::release(const TritonRunRequest& req) {
  if (go_write_ < 0) return false;
  try {
    files_.write_request(req);
  } catch (const std::exception&) {
    cancel();
    return false;
  }
  const char go = 'g';
  const bool ok = write(go_write_, &go, 1) == 1;
  close(go_write_);
  go_write_ = -1;
  return ok;
}

void TritonGate::cancel() {
  if (go_write_ >= 0) close(go_write_);
  go_write_ = -1;
}

TritonRunOutcome run_triton_gated(const TritonRunner& runner, TritonGate& gate) {
  // A gate only ever starts a timing process (TimedProcesses).
  return execute(runner, gate.files_, gate.go_read_, 2 * runner.timeout_s, true);
}

}  // namespace kjudge::triton

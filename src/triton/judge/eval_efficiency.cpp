// GPU efficiency in the Triton judge: the bytes and FLOPs of a timed candidate and its reference
// over their times, against the GPU's measured peaks (docs/triton.md, "GPU efficiency"), and
// reading those peaks. Declared in triton/judge/eval_efficiency.h and triton/judge/eval.h.
#include "triton/judge/eval_efficiency.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "core/input_error.h"
#include "core/read_file.h"

namespace kjudge::triton {

// The sum of the sites' byte counts, or -1 when a site has none.
std::int64_t bytes_of(const std::vector<TritonCallSite>& sites) {
  std::int64_t sum = 0;
  for (const TritonCallSite& s : sites) {
    if (s.bytes < 0) return -1;
    sum += s.bytes;
  }
  return sum;
}

namespace {

// The matmul peak for FLOPs in `dtype`, and the peak's own key: float32 inputs are read against
// the TF32 peak where measured, since Triton's tl.dot computes float32 in TF32 by default (the
// float32 peak, TF32 off, would put such kernels above 100 %).
std::optional<std::pair<std::string, double>> flops_peak(const GpuPeaks& p,
                                                         const std::string& dtype) {
  std::vector<std::string> keys = {dtype};
  if (dtype == "float32") keys.insert(keys.begin(), "tfloat32");
  for (const std::string& k : keys) {
    auto it = p.matmul_flops_per_s.find(k);
    if (it != p.matmul_flops_per_s.end() && it->is_number() && it->get<double>() > 0)
      return std::make_pair(k, it->get<double>());
  }
  return std::nullopt;
}

}  // namespace

// Achieved bytes/s and FLOP/s of both sides: the operator's work (stated, or the runner's lower
// bound on bytes) over the geometric mean of the per-round sums of medians; over the measured
// peaks when they were measured on the GPU these runs report. The fraction of a side is the
// larger of its bytes and FLOPs fractions (the resource it comes closest to exhausting).
nlohmann::ordered_json efficiency_json(const TritonEvalOptions& opt, TritonJobResult& r,
                                       const nlohmann::ordered_json& env) {
  r.work = triton_operator_work(r.job.op->name, r.reference_sites);
  if (r.work.basis == "none") {
    r.efficiency_note = "the runner did not count the bytes of every call";
    return nullptr;
  }
  const double seconds[2] = {r.speedup->reference_ms / 1000, r.speedup->candidate_ms / 1000};
  const double bytes = static_cast<double>(r.work.bytes);
  nlohmann::ordered_json formulas = r.work.formulas;
  nlohmann::ordered_json j = {
      {"basis", r.work.basis},
      {"formulas", formulas},
      {"work_note", r.work.note},
      {"bytes", r.work.bytes},
      {"flops", r.work.flops ? nlohmann::ordered_json(*r.work.flops) : nullptr},
      {"flops_dtype", r.work.flops_dtype.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(r.work.flops_dtype)},
      {"reference_bytes", r.bytes[0]},
      {"candidate_bytes", r.bytes[1]},
      {"reference_bytes_per_s", bytes / seconds[0]},
      {"candidate_bytes_per_s", bytes / seconds[1]},
      {"reference_flops_per_s", nullptr},
      {"candidate_flops_per_s", nullptr},
      {"gpu", env.value("gpu", "")},
      {"peak_bytes_per_s", nullptr},
      {"peak_flops_per_s", nullptr},
      {"peak_flops_dtype", nullptr},
      {"reference_fraction", nullptr},
      {"candidate_fraction", nullptr},
      {"bound_by", nullptr}};
  if (r.work.flops) {
    j["reference_flops_per_s"] = *r.work.flops / seconds[0];
    j["candidate_flops_per_s"] = *r.work.flops / seconds[1];
  }
  if (!opt.peaks) {
    r.efficiency_note = "no peaks given (--peaks)";
    return j;
  }
  if (opt.peaks->gpu != env.value("gpu", "")) {
    // Peaks of another GPU would make a fraction that means nothing.
    r.efficiency_note = fmt::format("the peaks are of {}, the runs reported {}", opt.peaks->gpu,
                                    env.value("gpu", "no GPU"));
    return j;
  }
  const double bw = opt.peaks->memory_bandwidth_bytes_per_s;
  j["peak_bytes_per_s"] = bw;
  std::optional<double> fpeak;
  if (r.work.flops && !r.work.flops_dtype.empty()) {
    if (auto p = flops_peak(*opt.peaks, r.work.flops_dtype)) {
      fpeak = p->second;
      j["peak_flops_per_s"] = p->second;
      j["peak_flops_dtype"] = p->first;
    } else {
      r.efficiency_note = "no matmul peak measured for " + r.work.flops_dtype;
    }
  }
  const char* sides[2] = {"reference", "candidate"};
  std::string bound = "memory";
  for (int s = 0; s < 2; ++s) {
    const double bf = bytes / seconds[s] / bw;
    j[fmt::format("{}_bytes_fraction", sides[s])] = bf;
    double best = bf;
    if (fpeak) {
      const double ff = *r.work.flops / seconds[s] / *fpeak;
      j[fmt::format("{}_flops_fraction", sides[s])] = ff;
      if (ff > best) {
        best = ff;
        if (s == 0) bound = "compute";
      }
    }
    j[fmt::format("{}_fraction", sides[s])] = best;
  }
  // Both sides do the same work, so the same resource is the nearer one for both.
  j["bound_by"] = bound;
  return j;
}

GpuPeaks read_gpu_peaks(const std::filesystem::path& file) {
  const nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(read_input_file(file, std::uintmax_t{1} << 20), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError(file.string(), 0, "", "not a JSON object");
  if (j.value("kind", "") != "kjudge-gpu-peaks")
    throw InputError(file.string(), 0, "kind", "not kjudge-gpu-peaks (python/kjudge_gpu_peaks.py)");
  GpuPeaks p;
  if (!j.contains("gpu") || !j["gpu"].is_string() || j["gpu"].get<std::string>().empty())
    throw InputError(file.string(), 0, "gpu", "missing or not a name");
  p.gpu = j["gpu"].get<std::string>();
  const auto bw = j.find("memory_bandwidth_bytes_per_s");
  if (bw == j.end() || !bw->is_number() || !std::isfinite(bw->get<double>()) ||
      bw->get<double>() <= 0)
    throw InputError(file.string(), 0, "memory_bandwidth_bytes_per_s", "not a positive number");
  p.memory_bandwidth_bytes_per_s = bw->get<double>();
  if (j.contains("matmul_flops_per_s")) p.matmul_flops_per_s = j["matmul_flops_per_s"];
  return p;
}

}  // namespace kjudge::triton

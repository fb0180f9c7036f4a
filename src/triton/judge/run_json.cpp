// RUN/run.json of kjudge triton eval: the run's identity, checked on --resume.
// Declared, and explained, in triton/run_json.h.
#include "triton/judge/run_json.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/run_identity.h"
#include "core/sha256.h"
#include "core/time_stamp.h"
#include "triton/judge/journal.h"

namespace kjudge::triton {
namespace fs = std::filesystem;

namespace {

constexpr const char* kKind = "kjudge-triton-run";

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal().string() : abs.string();
}

// A hash of every job: its key, its code and its operator's reference and test code, in key
// order (the same jobs hash the same whatever order the file lists them in).
std::string jobs_fingerprint(const std::vector<TritonJob>& jobs) {
  ItemFingerprint items("\n");
  for (const TritonJob& j : jobs)
    items.add(triton_candidate_key(j), sha256_hex(j.code) + " " + sha256_hex(j.op->reference_code) +
                                           " " + sha256_hex(j.op->test_code));
  return items.hex();
}

// The option each identity field comes from, for the error.
constexpr IdentityField kFields[] = {
    {"data_dir", "DIR"},
    {"candidates", "--self, --solutions or --llm-generated"},
    {"candidates_file", "the candidates' file"},
    {"channel", "--channel"},
    {"operators", "--operator"},
    {"difficulty", "--difficulty"},
    {"limit", "--limit"},
    {"keep_defective", "--keep-defective"},
    {"reference_check", "--no-reference-check"},
    {"seed", "--seed"},
    {"speedup", "--speedup"},
    {"timing", "--rounds, --warmup-rounds, --warmup, --reps, --max-ms-per-call or --cupti"},
    {"jobs", "the number of candidates"},
    {"jobs_fingerprint",
     "the candidates' code, or the operators' reference or test code (the files changed)", true}};

}  // namespace

namespace {

// What decides the timed figures; `cupti` only when on, so runs from before it resume.
nlohmann::ordered_json timing_identity(const RunIdentityOptions& a) {
  if (!a.speedup) return nullptr;
  nlohmann::ordered_json t = {{"rounds", a.rounds},
                              {"warmup_rounds", a.warmup_rounds},
                              {"warmup", a.timing.warmup},
                              {"reps", a.timing.reps},
                              {"max_ms_per_call", a.timing.max_ms_per_site}};
  if (a.cupti) t["cupti"] = true;
  return t;
}

}  // namespace

nlohmann::ordered_json triton_run_identity(const RunIdentityOptions& a,
                                           const std::vector<TritonJob>& jobs) {
  using oj = nlohmann::ordered_json;
  std::vector<std::string> operators = a.operators;
  std::sort(operators.begin(), operators.end());
  const std::string file = a.self ? "" : !a.llm_generated.empty() ? a.llm_generated : a.solutions;
  return {{"data_dir", absolute_path(a.dir)},
          {"candidates", a.self                     ? "self"
                         : !a.llm_generated.empty() ? "llm_generated"
                                                    : "solutions"},
          {"candidates_file", file.empty() ? oj(nullptr) : oj(absolute_path(file))},
          {"channel", a.channel.empty() ? oj(nullptr) : oj(a.channel)},
          {"operators", operators},
          {"difficulty", a.difficulty == 0 ? oj(nullptr) : oj(a.difficulty)},
          {"limit", a.limit == 0 ? oj(nullptr) : oj(a.limit)},
          {"keep_defective", a.keep_defective},
          {"reference_check", !a.no_reference_check},
          {"seed", a.seed},
          {"speedup", a.speedup},
          {"timing", timing_identity(a)},
          {"jobs", jobs.size()},
          {"jobs_fingerprint", jobs_fingerprint(jobs)}};
}

void check_triton_run_identity(const fs::path& run_dir, const nlohmann::ordered_json& identity) {
  const fs::path path = run_dir / "run.json";
  std::ifstream in(path);
  if (!in)
    throw InputError(path.string(), 0, "",
                     "missing: " + run_dir.string() +
                         " holds results but no record of what they judge, so --resume cannot "
                         "tell whether they are this run's; choose another --out");
  const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
  if (prev.is_discarded() || !prev.is_object() || prev.value("kind", "") != kKind ||
      !prev.contains("identity") || !prev["identity"].is_object())
    throw InputError(
        path.string(), 0, "kind",
        std::string("not a kjudge triton eval run (") + kKind + "); choose another --out");
  check_run_identity(path, run_dir, prev["identity"], identity, kFields, "identity");
}

bool triton_run_used_cupti(const fs::path& run_dir) {
  std::ifstream in(run_dir / "run.json");
  if (!in) return false;
  const auto j = nlohmann::ordered_json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  const auto* t = &j;
  for (const char* key : {"identity", "timing", "cupti"}) {
    if (!t->is_object() || !t->contains(key)) return false;
    t = &(*t)[key];
  }
  return t->is_boolean() && t->get<bool>();
}

void write_triton_run_json(const fs::path& run_dir, const nlohmann::ordered_json& identity,
                           bool resumed) {
  const fs::path path = run_dir / "run.json";
  const std::string now = iso8601_utc(std::time(nullptr));
  nlohmann::ordered_json j = {
      {"schema_version", 1},  {"kind", kKind},     {"kjudge_version", KJUDGE_VERSION},
      {"identity", identity}, {"started_at", now}, {"resumed_at", nlohmann::ordered_json::array()}};
  if (resumed) {
    std::ifstream in(path);
    const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
    if (!prev.is_discarded() && prev.is_object()) {
      if (prev.contains("started_at")) j["started_at"] = prev["started_at"];
      if (prev.contains("resumed_at") && prev["resumed_at"].is_array())
        j["resumed_at"] = prev["resumed_at"];
    }
    j["resumed_at"].push_back(now);
  }
  write_json_atomically(path, j);
}

}  // namespace kjudge::triton

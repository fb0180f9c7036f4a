// CodeBLEU of Triton candidates against the G references, through python/codebleu_score.py.
// Declared, and explained, in triton/judge/codebleu.h.
#include "triton/judge/codebleu.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/private_dir.h"
#include "run/process.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kScriptName = "codebleu_score.py";

CodeBleuResult unavailable(std::string reason, std::size_t pairs) {
  CodeBleuResult r;
  r.reason = std::move(reason);
  r.pairs = pairs;
  return r;
}

std::string last_lines(const std::string& text, std::size_t cap = 600) {
  const size_t e = text.find_last_not_of(" \t\r\n");
  if (e == std::string::npos) return "";
  const std::string t = text.substr(0, e + 1);
  return t.size() > cap ? "..." + t.substr(t.size() - cap) : t;
}

double number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) throw std::runtime_error(std::string("no ") + key);
  return it->get<double>();
}

}  // namespace

fs::path default_codebleu_script() {
  if (const char* dir = std::getenv("KJUDGE_PYTHON_DIR"); dir && *dir) {
    fs::path p = fs::path(dir) / kScriptName;
    if (fs::is_regular_file(p)) return p;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = self.parent_path();
  for (const fs::path& p : {dir / "python" / kScriptName, dir / ".." / "python" / kScriptName,
                            dir / ".." / "share" / "kjudge" / "python" / kScriptName})
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec);
  return {};
}

CodeBleuResult codebleu_score(const std::vector<CodeBleuPair>& pairs,
                              const CodeBleuOptions& options) {
  if (pairs.empty()) return unavailable("no candidate/reference pairs to score", 0);
  const fs::path script = options.script.empty() ? default_codebleu_script() : options.script;
  if (script.empty() || !fs::is_regular_file(script))
    return unavailable(script.empty()
                           ? std::string("the helper ") + kScriptName +
                                 " was not found (set KJUDGE_PYTHON_DIR to the python/ folder)"
                           : "the helper " + script.string() + " does not exist",
                       pairs.size());
  PrivateDir scratch = PrivateDir::try_make(fs::temp_directory_path(), "kjudge-codebleu-");
  if (scratch.path().empty())
    return unavailable("cannot create a temporary directory", pairs.size());

  json request = {{"lang", "python"},
                  {"weights", {0.25, 0.25, 0.25, 0.25}},
                  {"per_pair", options.per_pair},
                  {"pairs", json::array()}};
  for (const CodeBleuPair& p : pairs)
    request["pairs"].push_back({{"reference", p.reference}, {"hypothesis", p.hypothesis}});
  const fs::path in = scratch.path() / "in.json", out = scratch.path() / "out.json";
  {
    std::ofstream f(in, std::ios::binary);
    // Model output is not always valid UTF-8; replace rather than refuse the whole batch.
    f << request.dump(-1, ' ', false, json::error_handler_t::replace);
    if (!f) return unavailable("cannot write " + in.string(), pairs.size());
  }

  ProcessSpec spec;
  spec.argv = {options.python, script.string(), in.string(), out.string()};
  spec.cwd = scratch.path();
  spec.timeout_s = options.timeout_s;
  const ProcessResult pr = run_process(spec);
  if (!pr.started)
    return unavailable("cannot start " + options.python + ": " + pr.error, pairs.size());
  if (pr.timed_out)
    return unavailable(fmt::format("the helper ran past {} s", options.timeout_s), pairs.size());
  if (pr.signal != 0)
    return unavailable(fmt::format("the helper was killed by signal {}", pr.signal), pairs.size());
  if (pr.exit_code == 127)
    return unavailable(options.python + " was not found: " + last_lines(pr.output), pairs.size());
  if (pr.exit_code != 0)
    return unavailable(
        fmt::format("the helper exited with {}: {}", pr.exit_code, last_lines(pr.output)),
        pairs.size());

  std::ifstream f(out, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const json result = json::parse(ss.str(), nullptr, false);
  if (result.is_discarded() || !result.is_object())
    return unavailable("the helper wrote no readable result", pairs.size());
  if (!result.value("available", false))
    return unavailable(result.value("reason", std::string("unavailable (no reason given)")),
                       pairs.size());
  CodeBleuResult r;
  r.pairs = pairs.size();
  try {
    r.codebleu = number(result, "codebleu");
    r.ngram_match = number(result, "ngram_match_score");
    r.weighted_ngram_match = number(result, "weighted_ngram_match_score");
    r.syntax_match = number(result, "syntax_match_score");
    r.dataflow_match = number(result, "dataflow_match_score");
    if (options.per_pair) {
      const json& per = result.at("per_pair");
      if (!per.is_array() || per.size() != pairs.size())
        throw std::runtime_error("per_pair does not have one score per pair");
      for (const json& x : per) r.per_pair.push_back(x.get<double>());
    }
  } catch (const std::exception& e) {
    return unavailable(std::string("the helper's result is incomplete: ") + e.what(), pairs.size());
  }
  r.package_version = result.value("version", std::string());
  r.available = true;
  return r;
}

std::vector<CodeBleuPair> codebleu_pairs(const std::vector<TritonCandidate>& candidates,
                                         const TritonBench& bench) {
  std::vector<CodeBleuPair> out;
  for (const TritonCandidate& c : candidates) {
    if (c.channel != TritonChannel::G) continue;
    const TritonOperator* op = bench.find(c.file, TritonChannel::G);
    if (!op) continue;
    out.push_back({op->reference_code, c.code});
  }
  return out;
}

}  // namespace kjudge::triton

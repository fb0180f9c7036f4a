#include "core/task_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "core/input_bounds.h"
#include "core/input_error.h"
#include "core/text.h"
#include "core/yaml_load.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {"files",          "lang",
                                             "description",    "config",
                                             "templates",      "tests",
                                             "benchmarks",     "ranking_by",
                                             "test_timeout",   "benchmark_timeout",
                                             "ranked_timeout", "multi_gpu",
                                             "libraries",      "seed",
                                             "forbidden",      "gpus"};
  return keys;
}

class TaskYamlReader {
 public:
  explicit TaskYamlReader(fs::path yml) : yml_(std::move(yml)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field,
                         const std::string& why) const {
    int line = at && at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    throw InputError(yml_.string(), line, field, why);
  }

  std::string scalar(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be a single value");
    return n.Scalar();
  }

  std::vector<std::string> string_list(const YAML::Node& n, const std::string& field) const {
    std::vector<std::string> out;
    if (!n || n.IsNull()) return out;
    if (!n.IsSequence()) fail(n, field, "must be a list");
    for (std::size_t i = 0; i < n.size(); ++i)
      out.push_back(scalar(n[i], field + "[" + std::to_string(i) + "]"));
    return out;
  }

  double seconds(const YAML::Node& n, const std::string& field) const {
    std::string s = scalar(n, field);
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
      fail(n, field, "must be a positive number of seconds, not '" + s + "'");
    if (v > kMaxTimeoutSeconds)
      fail(n, field,
           "must be at most " + std::to_string(static_cast<int>(kMaxTimeoutSeconds)) +
               " seconds (one day), not '" + s + "'");
    return v;
  }

  bool boolean(const YAML::Node& n, const std::string& field) const {
    std::string s = scalar(n, field);
    if (s == "true" || s == "True" || s == "yes") return true;
    if (s == "false" || s == "False" || s == "no") return false;
    fail(n, field, "must be true or false, not '" + s + "'");
  }

  // A path inside the task folder that must not climb out of the build directory.
  static bool plain_relative(const std::string& name) {
    if (name.empty() || name.front() == '/') return false;
    for (const auto& part : fs::path(name))
      if (part == ".." || part == ".") return false;
    return true;
  }

  // tests / benchmarks: a list of maps of integers or plain words, as GPU MODE's harness
  // accepts them (the case line format has no quoting).
  std::vector<TaskCase> cases(const YAML::Node& n, const std::string& field) const {
    std::vector<TaskCase> out;
    if (!n || n.IsNull()) return out;
    if (!n.IsSequence())
      fail(n, field, "must be a list of argument maps, e.g. - {size: 1024, seed: 1}");
    static const std::regex value_re("[A-Za-z_][A-Za-z0-9_]*|[+-]?[0-9]+");
    static const std::regex name_re("[A-Za-z_][A-Za-z0-9_]*");
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string f = field + "[" + std::to_string(i) + "]";
      const YAML::Node c = n[i];
      if (!c.IsMap() || c.size() == 0)
        fail(c, f, "must be a map of arguments, e.g. {size: 1024, seed: 1}");
      TaskCase tc;
      tc.line = c.Mark().line + 1;
      for (const auto& kv : c) {
        std::string key = scalar(kv.first, f);
        if (!std::regex_match(key, name_re))
          fail(kv.first, f, "argument name '" + key + "' is not a plain name");
        std::string value = scalar(kv.second, f + "." + key);
        if (!std::regex_match(value, value_re))
          fail(kv.second, f + "." + key,
               "'" + value + "' must be an integer or a plain word (letters, digits, _)");
        // The harness reads case integers with strtoll, which saturates silently.
        if (!std::isalpha(static_cast<unsigned char>(value[0])) && value[0] != '_') {
          errno = 0;
          (void)std::strtoll(value.c_str(), nullptr, 10);
          if (errno == ERANGE)
            fail(kv.second, f + "." + key, "'" + value + "' is out of a 64-bit integer's range");
        }
        if (tc.find(key)) fail(kv.first, f, "argument '" + key + "' given twice");
        tc.args.emplace_back(key, value);
      }
      if (const std::string* seed = tc.find("seed"); seed && (*seed)[0] == '-')
        fail(c, f + ".seed", "must not be negative");
      out.push_back(std::move(tc));
    }
    return out;
  }

 private:
  fs::path yml_;
};

}  // namespace

const std::string* TaskCase::find(const std::string& name) const {
  for (const auto& [k, v] : args)
    if (k == name) return &v;
  return nullptr;
}

std::string TaskCase::text() const {
  std::string s;
  for (const auto& [k, v] : args) s += (s.empty() ? "" : "; ") + k + ": " + v;
  return s;
}

const char* to_string(RankingBy r) {
  switch (r) {
    case RankingBy::mean:
      return "mean";
    case RankingBy::geom:
      return "geom";
    default:
      return "last";
  }
}

const TaskFile* TaskSpec::submission_file() const {
  for (const auto& f : files)
    if (f.submission) return &f;
  return nullptr;
}

TaskSpec load_task(const fs::path& folder_or_yml) {
  TaskSpec t;
  std::error_code ec;
  t.yml = fs::is_directory(folder_or_yml, ec) ? folder_or_yml / "task.yml" : folder_or_yml;
  t.dir = fs::absolute(t.yml, ec).parent_path();
  t.name = t.dir.filename().string();
  if (!fs::exists(t.yml, ec))
    throw InputError(t.yml.string(), 0, "", "no task.yml here: a task folder holds task.yml");
  const YAML::Node root = load_yaml_file(t.yml);
  TaskYamlReader r(t.yml);
  if (!root.IsMap()) r.fail(root, "", "task.yml must be a map of keys (files, lang, tests, ...)");
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (!known_keys().count(key))
      r.fail(kv.first, key,
             "unknown key (known: files, lang, description, config, templates, tests, "
             "benchmarks, ranking_by, test_timeout, benchmark_timeout, ranked_timeout, "
             "multi_gpu, gpus, libraries, forbidden)");
  }

  if (!root["lang"]) r.fail(root, "lang", "missing: cu or py");
  t.lang = r.scalar(root["lang"], "lang");
  if (t.lang != "cu" && t.lang != "py")
    r.fail(root["lang"], "lang", "must be cu or py, not '" + t.lang + "'");
  if (root["description"]) t.description = r.scalar(root["description"], "description");

  const YAML::Node files = root["files"];
  if (!files || !files.IsSequence() || files.size() == 0)
    r.fail(files ? files : root, "files", "must list the task's files as {name, source} maps");
  std::set<std::string> names;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string f = "files[" + std::to_string(i) + "]";
    const YAML::Node e = files[i];
    if (!e.IsMap() || !e["name"] || !e["source"])
      r.fail(e, f, "must be a map with name and source");
    TaskFile tf;
    tf.name = r.scalar(e["name"], f + ".name");
    if (!TaskYamlReader::plain_relative(tf.name))
      r.fail(e["name"], f + ".name",
             "'" + tf.name + "' must be a relative path inside the build directory");
    if (!names.insert(tf.name).second)
      r.fail(e["name"], f + ".name", "'" + tf.name + "' is listed twice");
    const std::string source = r.scalar(e["source"], f + ".source");
    if (source == "@SUBMISSION@") {
      if (t.submission_file())
        r.fail(e["source"], f + ".source", "only one file can be @SUBMISSION@");
      tf.submission = true;
    } else {
      tf.source = fs::weakly_canonical(t.dir / source, ec);
      if (!fs::is_regular_file(tf.source, ec))
        r.fail(e["source"], f + ".source", "file not found: " + (t.dir / source).string());
    }
    t.files.push_back(std::move(tf));
  }
  if (!t.submission_file())
    r.fail(files, "files", "no file has source \"@SUBMISSION@\" (the submission)");

  if (const YAML::Node c = root["config"]; c && !c.IsNull()) {
    if (!c.IsMap()) r.fail(c, "config", "must be a map");
    if (t.lang == "cu") {
      t.sources = r.string_list(c["sources"], "config.sources");
      t.include_dirs = r.string_list(c["include_dirs"], "config.include_dirs");
      t.compile_flags = r.string_list(c["compile_flags"], "config.compile_flags");
      for (const auto& s : t.sources)
        if (!names.count(s))
          r.fail(c["sources"], "config.sources", "'" + s + "' is not one of the files");
      if (const YAML::Node d = c["defines"]; d && !d.IsNull()) {
        if (!d.IsMap()) r.fail(d, "config.defines", "must be a map NAME: value");
        static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
        for (const auto& kv : d) {
          std::string name = kv.first.Scalar();
          if (!std::regex_match(name, ident))
            r.fail(kv.first, "config.defines", "'" + name + "' is not an identifier");
          t.defines.emplace_back(
              name, kv.second.IsNull() ? "" : r.scalar(kv.second, "config.defines." + name));
        }
      }
    } else if (const YAML::Node m = c["main"]; m && !m.IsNull()) {
      t.main = r.scalar(m, "config.main");
      if (!names.count(t.main))
        r.fail(m, "config.main", "'" + t.main + "' is not one of the files");
    }
  }
  if (t.lang == "cu" && t.sources.empty()) {
    // Without config.sources, the submission is the one source (headers need no compiling).
    t.sources.push_back(t.submission_file()->name);
  }
  t.libraries = r.string_list(root["libraries"], "libraries");
  static const std::regex lib_re("[A-Za-z0-9_+.-]+");
  for (const auto& l : t.libraries)
    if (!std::regex_match(l, lib_re))
      r.fail(root["libraries"], "libraries", "'" + l + "' is not a library name");

  if (const YAML::Node tp = root["templates"]; tp && !tp.IsNull()) {
    if (!tp.IsMap()) r.fail(tp, "templates", "must map a language to a starter file");
    for (const auto& kv : tp) {
      std::string lang = kv.first.Scalar();
      fs::path p = fs::weakly_canonical(t.dir / r.scalar(kv.second, "templates." + lang), ec);
      if (!fs::is_regular_file(p, ec))
        r.fail(kv.second, "templates." + lang, "file not found: " + p.string());
      t.templates[lang] = p;
    }
  }

  t.tests = r.cases(root["tests"], "tests");
  if (t.tests.empty())
    r.fail(root["tests"] ? root["tests"] : root, "tests", "needs at least one test case");
  t.benchmarks = r.cases(root["benchmarks"], "benchmarks");

  if (const YAML::Node rb = root["ranking_by"]; rb && !rb.IsNull()) {
    std::string s = r.scalar(rb, "ranking_by");
    if (s == "last")
      t.ranking_by = RankingBy::last;
    else if (s == "mean")
      t.ranking_by = RankingBy::mean;
    else if (s == "geom")
      t.ranking_by = RankingBy::geom;
    else
      r.fail(rb, "ranking_by", "must be last, mean or geom, not '" + s + "'");
  }
  if (root["test_timeout"]) t.test_timeout_s = r.seconds(root["test_timeout"], "test_timeout");
  if (root["benchmark_timeout"])
    t.benchmark_timeout_s = r.seconds(root["benchmark_timeout"], "benchmark_timeout");
  if (root["ranked_timeout"])
    t.ranked_timeout_s = r.seconds(root["ranked_timeout"], "ranked_timeout");
  if (root["multi_gpu"]) t.multi_gpu = r.boolean(root["multi_gpu"], "multi_gpu");
  t.gpus = r.string_list(root["gpus"], "gpus");
  t.forbidden = r.string_list(root["forbidden"], "forbidden");
  static const std::regex forbidden_re(R"([A-Za-z_][A-Za-z0-9_]*((\.|::)[A-Za-z_][A-Za-z0-9_]*)*)");
  for (const auto& f : t.forbidden)
    if (!std::regex_match(f, forbidden_re))
      r.fail(root["forbidden"], "forbidden",
             "'" + f + "' is not a name (an identifier, or a dotted or ::-qualified one)");
  if (root["seed"])
    r.fail(
        root["seed"], "seed",
        "is not written in task.yml: the secret seed is given to the ranked run (--secret-seed)");
  return t;
}

const TaskFile* TaskSpec::file_named(const std::string& n) const {
  for (const auto& f : files)
    if (f.name == n) return &f;
  return nullptr;
}

bool TaskSpec::brings_eval_cu() const {
  for (const auto& f : files)
    if (fs::path(f.name).filename() == "eval.cu") return true;
  return false;
}

namespace {

bool is_amd_gpu(const std::string& g) {
  const std::string l = lower(g);
  return l.rfind("mi", 0) == 0 || l.find("amd") != std::string::npos ||
         l.find("radeon") != std::string::npos;
}

bool is_b200(const std::string& g) { return lower(g).find("b200") != std::string::npos; }

std::string joined(const std::vector<std::string>& xs) {
  std::string s;
  for (const auto& x : xs) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::vector<std::string> competition_gpus(const TaskSpec& t) {
  // reference-kernels: problems/<competition>.yaml beside problems/<competition>/<task>/.
  const fs::path problems = t.dir.parent_path().parent_path();
  const std::string directory = t.dir.parent_path().filename().string() + "/" + t.name;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(problems, ec)) {
    if (e.path().extension() != ".yaml" || !e.is_regular_file(ec)) continue;
    try {
      const YAML::Node y = load_yaml_file(e.path());
      if (!y.IsMap() || !y["problems"] || !y["problems"].IsSequence()) continue;
      for (const auto& p : y["problems"]) {
        if (!p.IsMap() || !p["directory"] || !p["directory"].IsScalar()) continue;
        if (fs::path(p["directory"].Scalar()).lexically_normal() != fs::path(directory)) continue;
        std::vector<std::string> out;
        if (p["gpus"] && p["gpus"].IsSequence())
          for (const auto& g : p["gpus"])
            if (g.IsScalar()) out.push_back(g.Scalar());
        return out;
      }
    } catch (const std::exception&) {
      // Not a competition yaml (or a broken one): it names no GPUs for this task.
    }
  }
  return {};
}

std::string task_unsupported(const TaskSpec& t, const std::string& gpu_name) {
  // GPU MODE keeps AMD's problems under problems/amd, amd_202602, amd_distributed: ROCm
  // kernels (HIP, aiter, rocshmem) that no NVIDIA GPU runs.
  for (fs::path p = t.dir; !p.empty() && p != p.parent_path(); p = p.parent_path())
    if (p.parent_path().filename() == "problems" &&
        lower(p.filename().string()).rfind("amd", 0) == 0)
      return "an AMD task (it sits under " + p.string() +
             "): its kernels are written for ROCm and cannot run on an NVIDIA GPU";
  if (t.multi_gpu)
    return "a multi-GPU task (multi_gpu: true: several ranks over torch.distributed); kjudge runs "
           "a task on one GPU";
  std::vector<std::string> gpus = t.gpus;
  std::string where = "task.yml's gpus";
  if (gpus.empty()) {
    gpus = competition_gpus(t);
    where = "the competition's yaml (" + t.dir.parent_path().parent_path().string() + "/*.yaml)";
  }
  if (!gpus.empty()) {
    bool nvidia = false, other_than_b200 = false;
    for (const auto& g : gpus)
      if (!is_amd_gpu(g)) {
        nvidia = true;
        other_than_b200 |= !is_b200(g) && lower(g) != "nvidia";
      }
    if (!nvidia)
      return "written for AMD GPUs only (" + where + ": " + joined(gpus) +
             "): it cannot run on an NVIDIA GPU";
    // "NVIDIA" alone names no model: GPU MODE's nvfp4 problems say so and are B200's (their
    // description says it); a task that names B200 in its description is taken at its word.
    const bool b200_only = !other_than_b200 && (std::any_of(gpus.begin(), gpus.end(), is_b200) ||
                                                t.description.find("B200") != std::string::npos);
    if (b200_only && !is_b200(gpu_name))
      return "written for the B200 only (" + where + ": " + joined(gpus) +
             (t.description.find("B200") != std::string::npos ? "; its description targets B200"
                                                              : "") +
             "): its kernels need Blackwell (sm_100), and this GPU is " +
             (gpu_name.empty() ? std::string("unknown") : gpu_name);
  }
  return "";
}

}  // namespace kjudge

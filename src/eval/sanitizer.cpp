#include "eval/sanitizer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "eval/step_runner.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "=========";

bool executable_file(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// A line of the sanitizer's own ("========= ..."), its text without the prefix and the spaces
// after it; nullopt for a line of the program's.
std::optional<std::string> sanitizer_line(const std::string& line) {
  if (line.compare(0, kPrefix.size(), kPrefix) != 0) return std::nullopt;
  std::string rest = line.substr(kPrefix.size());
  const std::size_t start = rest.find_first_not_of(" \t");
  const std::size_t end = rest.find_last_not_of(" \t\r");
  return start == std::string::npos ? std::string() : rest.substr(start, end - start + 1);
}

// The lines that are the sanitizer's frame, not an error: its banner and its summaries.
bool frame_line(const std::string& text) {
  return text.empty() || text == "COMPUTE-SANITIZER" || text.rfind("ERROR SUMMARY", 0) == 0 ||
         text.rfind("RACECHECK SUMMARY", 0) == 0 || text.rfind("LEAK SUMMARY", 0) == 0 ||
         text.rfind("Warning", 0) == 0;
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

const std::vector<std::string>& sanitizer_tools() {
  static const std::vector<std::string> tools = {"memcheck", "racecheck", "initcheck", "synccheck"};
  return tools;
}

std::vector<std::string> parse_sanitizer_tools(const std::vector<std::string>& given) {
  std::vector<bool> wanted(sanitizer_tools().size(), false);
  for (const std::string& item : given) {
    std::stringstream in(item);
    std::string tool;
    while (std::getline(in, tool, ',')) {
      if (tool.empty()) continue;
      auto it = std::find(sanitizer_tools().begin(), sanitizer_tools().end(), tool);
      if (it == sanitizer_tools().end())
        throw std::invalid_argument("'" + tool +
                                    "' is no compute-sanitizer tool (memcheck, racecheck, "
                                    "initcheck, synccheck)");
      wanted[it - sanitizer_tools().begin()] = true;
    }
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < wanted.size(); ++i)
    if (wanted[i]) out.push_back(sanitizer_tools()[i]);
  return out;
}

fs::path locate_compute_sanitizer(const std::string& nvcc_path, const fs::path& given) {
  if (!given.empty()) return executable_file(given) ? given : fs::path();
  if (const char* env = std::getenv("KJUDGE_COMPUTE_SANITIZER"); env && *env)
    return executable_file(env) ? fs::path(env) : fs::path();
  if (nvcc_path.empty()) return {};
  // The toolkit's: bin/compute-sanitizer (a link into compute-sanitizer/ in NVIDIA's packages),
  // else the folder itself.
  const fs::path bin = fs::path(nvcc_path).parent_path();
  for (const fs::path& p :
       {bin / "compute-sanitizer", bin.parent_path() / "compute-sanitizer" / "compute-sanitizer"})
    if (executable_file(p)) return p;
  return {};
}

std::vector<std::string> sanitizer_argv(const fs::path& sanitizer, const std::string& tool,
                                        const std::string& test_command) {
  std::vector<std::string> argv = {sanitizer.string(), "--tool", tool, "--error-exitcode",
                                   std::to_string(kSanitizerErrorExit),
                                   // Errors are what the tool finds; the program's own exit
                                   // status is judged apart (judge_sanitizer_run).
                                   "--check-exit-code", "no", "--target-processes", "all"};
  // A command with assignments (`PYTHONPATH=. python t.py`) keeps them through the shell.
  if (const auto simple = simple_command(test_command); simple && simple->env.empty()) {
    argv.insert(argv.end(), simple->argv.begin(), simple->argv.end());
  } else {
    for (const char* w : {"/bin/sh", "-c"}) argv.emplace_back(w);
    argv.push_back(test_command);
  }
  return argv;
}

SanitizerOutput parse_sanitizer_output(const std::string& output, std::size_t max_lines) {
  SanitizerOutput out;
  std::istringstream in(output);
  std::string line;
  bool in_error = false, error_done = false;
  std::optional<int> racecheck_errors;
  while (std::getline(in, line)) {
    const std::optional<std::string> text = sanitizer_line(line);
    if (!text) {
      if (in_error) error_done = true;  // the program's output ends the block
      in_error = false;
      continue;
    }
    static constexpr std::string_view kSummary = "ERROR SUMMARY:";
    if (text->rfind(kSummary, 0) == 0) {
      const int n = std::atoi(text->c_str() + kSummary.size());
      out.errors = out.errors.value_or(0) + std::max(0, n);
    }
    // racecheck ends with its own line alone when it found nothing (compute-sanitizer
    // 2025.3.1 on the H200, 2026-11-28): "RACECHECK SUMMARY: 0 hazards displayed (0 errors,
    // 0 warnings)". Its errors count where no ERROR SUMMARY came.
    static constexpr std::string_view kRace = "RACECHECK SUMMARY:";
    if (text->rfind(kRace, 0) == 0) {
      const auto open = text->find('(');
      if (open != std::string::npos)
        racecheck_errors =
            racecheck_errors.value_or(0) + std::max(0, std::atoi(text->c_str() + open + 1));
    }
    if (error_done) continue;
    if (in_error) {
      if (text->empty() || frame_line(*text) || out.first_error.size() >= max_lines) {
        in_error = false;
        error_done = true;
      } else {
        out.first_error.push_back(*text);
      }
    } else if (!frame_line(*text)) {
      in_error = true;
      out.first_error.push_back(*text);
    }
  }
  if (!out.errors) out.errors = racecheck_errors;
  return out;
}

SanitizerRecord judge_sanitizer_run(const std::string& tool, const ProcessResult& r,
                                    double timeout_s) {
  SanitizerRecord rec;
  rec.tool = tool;
  rec.outcome = SanitizerOutcome::inconclusive;
  if (!r.started) {
    rec.detail = "could not start compute-sanitizer: " + r.error;
    return rec;
  }
  if (!r.limit_exceeded.empty()) {
    rec.detail = "the " + tool + " run was stopped: it " + r.limit_exceeded +
                 " (the sanitizer's own overhead counts there)";
    return rec;
  }
  if (r.timed_out) {
    rec.detail = "the " + tool + " run did not finish within " +
                 std::to_string(static_cast<int>(timeout_s)) +
                 " s (the sanitizer's slowdown is not charged to the solution)";
    return rec;
  }
  const SanitizerOutput parsed = parse_sanitizer_output(r.output);
  rec.report = parsed.first_error;
  if (r.signal != 0) {
    rec.detail =
        "compute-sanitizer (" + tool + ") was killed by signal " + std::to_string(r.signal);
    return rec;
  }
  if (parsed.errors.value_or(0) > 0) {
    rec.outcome = SanitizerOutcome::errors;
    rec.errors = *parsed.errors;
    rec.detail = tool + ": " + plural(rec.errors, "error") +
                 (rec.report.empty() ? std::string() : ": " + rec.report.front());
    return rec;
  }
  if (!parsed.errors) {
    rec.detail = "compute-sanitizer (" + tool + ") printed no ERROR SUMMARY (exit code " +
                 std::to_string(r.exit_code) + "): it did not check the test";
    return rec;
  }
  if (r.exit_code != 0) {
    rec.detail = "the test failed under " + tool + " (exit code " + std::to_string(r.exit_code) +
                 ") with no error the tool reported: the solution's fault cannot be told from "
                 "the sanitizer's";
    return rec;
  }
  rec.outcome = SanitizerOutcome::clean;
  return rec;
}

std::string_view to_string(SanitizerOutcome o) {
  switch (o) {
    case SanitizerOutcome::clean:
      return "clean";
    case SanitizerOutcome::errors:
      return "errors";
    case SanitizerOutcome::inconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

std::optional<SanitizerOutcome> sanitizer_outcome_from_string(std::string_view s) {
  for (SanitizerOutcome o :
       {SanitizerOutcome::clean, SanitizerOutcome::errors, SanitizerOutcome::inconclusive})
    if (to_string(o) == s) return o;
  return std::nullopt;
}

EnvCheck sanitizer_check(const MachineInfo& machine, const fs::path& given, bool required) {
  EnvCheck c;
  c.name = "compute-sanitizer";
  const CheckStatus bad = required ? CheckStatus::fail : CheckStatus::warn;
  const std::string need = required ? "--sanitize needs it" : "needed for --sanitize/--memcheck";
  const char* env = std::getenv("KJUDGE_COMPUTE_SANITIZER");
  const fs::path path = locate_compute_sanitizer(machine.nvcc_path, given);
  c.advice =
      "install the CUDA toolkit's compute-sanitizer (Debian/Ubuntu: cuda-sanitizer-<version>), "
      "or name it with --sanitizer PATH or KJUDGE_COMPUTE_SANITIZER";
  if (path.empty()) {
    c.status = bad;
    if (!given.empty())
      c.detail = given.string() + " is no executable file; " + need;
    else if (env && *env)
      c.detail = std::string("KJUDGE_COMPUTE_SANITIZER=") + env + " is no executable file; " + need;
    else
      c.detail = "not found beside nvcc (" +
                 (machine.nvcc_path.empty() ? std::string("no nvcc") : machine.nvcc_path) + "); " +
                 need;
    return c;
  }
  ProcessSpec spec;
  spec.argv = {path.string(), "--version"};
  spec.cwd = "/";
  spec.timeout_s = 30;
  const ProcessResult r = run_process(spec);
  if (!r.ok()) {
    c.status = bad;
    c.detail = path.string() + " does not run (" +
               (r.timed_out ? std::string("no answer in 30 s") : first_output_line(r.output)) +
               "); " + need;
    return c;
  }
  std::string version;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);)
    if (line.find("Version") != std::string::npos) version = line;
  c.detail = path.string() + (version.empty() ? "" : " (" + version + ")");
  c.advice.clear();
  return c;
}

}  // namespace kjudge

// The static pass over a KernelBench solution.
// Declared, and explained, in kernelbench/checks/static_check.h.
#include "kernelbench/checks/static_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/enum_names.h"
#include "eval/static_flags.h"

namespace kjudge::kernelbench {
namespace {

// Where a rule looks: the Python code (comments gone, string contents blanked), the string
// literals (CUDA and C++ sources, names), or the whole text (both at once, as KernelBench reads).
enum class Where { code, literals, text };

struct Rule {
  const char* check;
  Severity severity;
  Where where;
  const char* pattern;  // ECMAScript
  const char* detail;
  bool assignment = false;  // matches an assignment: an annotation's `: T = v` is none
};

// Whether the match at `at` follows a `:` (an annotation: `out: torch.Tensor = ...`).
bool annotated(const std::string& code, std::size_t at) {
  while (at > 0 && (code[at - 1] == ' ' || code[at - 1] == '\t')) --at;
  return at > 0 && code[at - 1] == ':';
}

// The rules, in report order. Patterns are read against code with string contents blanked, so a
// quote never appears inside them in `code` rules.
const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      // KernelBench's strict checks (code_bypass, timing_event_patch, thread_injection,
      // lazy_eval), read in the code only.
      {"try_except", Severity::hack, Where::code, R"(\btry[ \t]*:|\bexcept\b)",
       "try/except: a kernel that falls back to PyTorch when it fails is judged on the fallback "
       "(KernelBench's code_bypass)"},
      {"timing_patch", Severity::hack, Where::code,
       R"(\b(torch\.cuda\.(Event|synchronize|current_stream|default_stream|Stream)(\.\w+)*|time\.(perf_counter|time|monotonic|process_time)(_ns)?)[ \t]*=[^=])",
       "rebinds a timing function the judge measures with (KernelBench's timing_event_patch)",
       true},
      {"threads", Severity::hack, Where::code,
       R"(\b(import|from)[ \t]+(threading|_thread|multiprocessing|concurrent)\b|\b(threading|_thread)\.|\bmultiprocessing\.|\b(Thread|Process)PoolExecutor\b|\bos\.fork\b)",
       "threads or processes: work done beside the timed call (KernelBench's thread_injection)"},
      {"threads", Severity::hack, Where::literals,
       R"(\bstd::(thread|async|jthread)\b|\bpthread_create\b)",
       "a host thread in the extension: work done beside the timed call"},
      {"lazy_tensor", Severity::hack, Where::code,
       R"(\b_make_subclass\b|\bclass[ \t]+\w+[ \t]*\([^)\n]*\bTensor\b|\bTensor\.__new__\b|\b__torch_(function|dispatch)__\b|\bTorch(Dispatch|Function)Mode\b|\b_push_mode\b|\benable_python_dispatcher\b)",
       "a tensor subclass or a dispatch mode: an output that computes when read, not when timed "
       "(KernelBench's lazy_eval)"},
      // Beyond KernelBench.
      {"inherits_reference", Severity::hack, Where::code,
       R"(\bclass[ \t]+ModelNew[ \t]*\([ \t]*Model[ \t]*\))",
       "ModelNew inherits the reference Model: what it does not override is the reference "
       "itself"},
      {"runner_reach", Severity::hack, Where::code,
       R"(\bkjudge\w*|\bgc\.|\bimport[ \t]+gc\b|\bsys\.(_getframe|modules|settrace|setprofile|_current_frames)\b|\binspect\.(currentframe|stack|getouterframes|getmembers|trace)\b|\b(f_back|f_locals|f_globals|tb_frame|gi_frame|cr_frame|__globals__|__closure__|__code__|__builtins__)\b|\bimport[ \t]+builtins\b|\bbuiltins\.|\bos\.(write|writev|pwrite|fdopen|dup2?|_exit|kill|killpg|lseek|ftruncate|sendfile)\b|\bset_per_process_memory_fraction\b|\bsignal\.|\b(import|from)[ \t]+_?signal\b)",
       "reaches into the judge's runner (its frames, modules, descriptors or limits): the process "
       "the verdict comes from"},
      {"runner_reach", Severity::hack, Where::literals, R"(^/proc(/|$)|^/dev/fd\b)",
       "reads the process's descriptors or memory through /proc"},
      {"torch_patch", Severity::hack, Where::code,
       R"(\b(torch(\.(nn|functional|Tensor|cuda|ops|linalg|fft|special|_C|nn\.functional|nn\.Module|nn\.modules(\.\w+)*))?|F|nn(\.\w+)?)\.(?!backends\b|_dynamo\b|_inductor\b)[A-Za-z_]\w*(\.\w+)*[ \t]*=[^=]|\bsetattr[ \t]*\([ \t]*(torch|F|nn)\b)",
       "rebinds a function of torch, which the reference runs too (a reference slowed or "
       "changed is a speedup or a match bought)",
       true},
      {"torch_patch", Severity::hack, Where::text,
       R"(\bLibrary[ \t]*\([ \t]*['"]aten['"]|\b(impl|register_kernel|register_fake)[ \t]*\([ \t]*['"]aten::)",
       "overrides an ATen kernel, which the reference runs too"},
      // KernelBench's warnings (pytorch_wrap, torch_computation_ops, stream_injection,
      // precision_downgrade).
      {"streams", Severity::warning, Where::code,
       R"(\bcuda\.Stream[ \t]*\(|\bwith[ \t]+torch\.cuda\.stream\b|\.wait_stream[ \t]*\(|\.record_stream[ \t]*\(|\bExternalStream\b)",
       "other CUDA streams: work the events on the timed stream do not see unless joined "
       "(KernelBench's stream_injection; the run times every stream)"},
      {"streams", Severity::warning, Where::literals,
       R"(\bcudaStreamCreate\w*|\bcudaStreamPerThread\b|\bcudaLaunchHostFunc\b|\bgetStreamFromPool\b)",
       "other CUDA streams in the extension (the run times every stream)"},
      {"precision_downgrade", Severity::warning, Where::text,
       R"(__float2half(_rn)?[ \t]*\(|__float2bfloat16\w*[ \t]*\(|\([ \t]*__half[ \t]*\)[ \t]*[\w\->.]+|static_cast[ \t]*<[ \t]*(__half|half|__nv_bfloat16)[ \t]*>[ \t]*\(|tl\.astype[ \t]*\([^,\n]+,[ \t]*tl\.(float16|bfloat16)[ \t]*\)|\.to\([ \t]*tl\.(float16|bfloat16)\b|NumericConverter[ \t]*<[ \t]*half_t[ \t]*,[ \t]*float[ \t]*>|LinearCombination[ \t]*<[ \t]*half_t|\.half[ \t]*\(|\.bfloat16[ \t]*\(|\.to[ \t]*\([ \t]*(dtype[ \t]*=[ \t]*)?torch\.(float16|half|bfloat16)\b|\ballow_tf32[ \t]*=[ \t]*True\b|\bset_float32_matmul_precision\b|\ballow_(fp16|bf16)_reduced_precision_reduction[ \t]*=[ \t]*True\b)",
       "computes in lower precision than the reference's float32 (KernelBench's "
       "precision_downgrade)"},
      {"shape_guard", Severity::warning, Where::code,
       R"(\b(if|elif|while)\b[^:\n]*(\.shape\b|\.size[ \t]*\(|\.numel[ \t]*\(|\.dim[ \t]*\(|\blen[ \t]*\()[^:\n]*(==|!=|<=|>=|<|>|\bin\b)[ \t]*[(\[]?[ \t]*\d|\b(if|elif|while)\b[^:\n]*\d[ \t]*(==|!=|<=|>=|<|>)[^:\n]*(\.shape\b|\.size[ \t]*\(|\.numel[ \t]*\())",
       "a branch on a tensor's shape against a constant: a kernel for the shapes it guesses, "
       "something else (a fallback, or less work) for the rest"},
  };
  return r;
}

int line_at(const std::string& text, std::size_t pos) {
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

// Non-computing names of torch, torch.nn and torch.nn.functional: tensor creation, types,
// containers, settings. A ModelNew needs them to exist at all.
const std::set<std::string>& structural() {
  static const std::set<std::string> s = {"empty",
                                          "empty_like",
                                          "empty_strided",
                                          "zeros",
                                          "zeros_like",
                                          "ones",
                                          "ones_like",
                                          "full",
                                          "full_like",
                                          "rand",
                                          "randn",
                                          "randint",
                                          "rand_like",
                                          "randn_like",
                                          "randint_like",
                                          "randperm",
                                          "arange",
                                          "linspace",
                                          "logspace",
                                          "tensor",
                                          "as_tensor",
                                          "as_strided",
                                          "from_numpy",
                                          "Tensor",
                                          "Size",
                                          "device",
                                          "dtype",
                                          "finfo",
                                          "iinfo",
                                          "float32",
                                          "float16",
                                          "bfloat16",
                                          "float64",
                                          "float",
                                          "half",
                                          "double",
                                          "int8",
                                          "int16",
                                          "int32",
                                          "int64",
                                          "long",
                                          "int",
                                          "bool",
                                          "uint8",
                                          "no_grad",
                                          "inference_mode",
                                          "enable_grad",
                                          "set_grad_enabled",
                                          "manual_seed",
                                          "seed",
                                          "cuda",
                                          "is_tensor",
                                          "is_floating_point",
                                          "numel",
                                          "Module",
                                          "Parameter",
                                          "ParameterList",
                                          "ParameterDict",
                                          "ModuleList",
                                          "ModuleDict",
                                          "Sequential",
                                          "Identity",
                                          "init",
                                          "utils",
                                          "library",
                                          "ops",
                                          "jit",
                                          "backends",
                                          "compile",
                                          "get_default_dtype",
                                          "set_default_dtype",
                                          "broadcast_shapes",
                                          "result_type",
                                          "promote_types",
                                          "contiguous_format",
                                          "channels_last",
                                          "strided",
                                          "preserve_format",
                                          "testing",
                                          "autograd",
                                          "nn",
                                          "functional",
                                          "Generator",
                                          "version",
                                          "__version__",
                                          "_C",
                                          "empty_cache",
                                          "cat",
                                          "stack",
                                          "split",
                                          "chunk",
                                          "reshape",
                                          "view",
                                          "flatten",
                                          "unsqueeze",
                                          "squeeze",
                                          "permute",
                                          "transpose",
                                          "narrow",
                                          "select",
                                          "t",
                                          "contiguous",
                                          "clone",
                                          "detach",
                                          "is_grad_enabled",
                                          "get_device",
                                          "uniform_",
                                          "normal_",
                                          "kaiming_uniform_",
                                          "kaiming_normal_",
                                          "xavier_uniform_",
                                          "xavier_normal_",
                                          "zeros_",
                                          "ones_",
                                          "constant_",
                                          "_calculate_fan_in_and_fan_out",
                                          "calculate_gain"};
  return s;
}

std::vector<Finding> run_rules(const std::string& text, const StrippedSource& stripped) {
  std::vector<Finding> out;
  std::set<std::string> seen;  // (check) already reported
  for (const Rule& rule : rules()) {
    if (seen.count(rule.check)) continue;
    const std::regex re(rule.pattern);
    int line = 0;
    std::string excerpt;
    if (rule.where == Where::literals) {
      for (const StringLiteral& lit : stripped.literals) {
        std::smatch m;
        if (std::regex_search(lit.text, m, re)) {
          line = lit.line + line_at(lit.text, static_cast<std::size_t>(m.position())) - 1;
          excerpt = m.str();
          break;
        }
      }
    } else {
      const std::string& hay = rule.where == Where::code ? stripped.code : text;
      for (auto it = std::sregex_iterator(hay.begin(), hay.end(), re); it != std::sregex_iterator();
           ++it) {
        const std::size_t at = static_cast<std::size_t>(it->position());
        // `x: torch.Tensor = y` annotates a variable, it rebinds nothing of torch's.
        if (rule.assignment && annotated(hay, at)) continue;
        line = line_at(hay, at);
        excerpt = it->str();
        break;
      }
    }
    if (line == 0) continue;
    std::string shown = excerpt.substr(0, 60);
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\t' || shown.back() == '='))
      shown.pop_back();
    out.push_back(
        {rule.check, rule.severity, line, fmt::format("{} (`{}`)", rule.detail, shown), "static"});
    seen.insert(rule.check);
  }
  return out;
}

// Whether the source holds a kernel of its own: CUDA compiled by torch's extension loader, or a
// Triton, CuTe or TileLang kernel (KernelBench's backend checks, any backend).
bool has_custom_kernel(const std::string& text) {
  static const std::regex cuda(R"(\b(load_inline|cpp_extension|load)[ \t]*\()");
  static const std::regex global(R"(__global__)");
  static const std::regex triton(R"(@[ \t]*triton\.(jit|autotune)\b)");
  static const std::regex other(
      R"(@[ \t]*(T\.prim_func|cute\.kernel|cute\.jit)\b|\bcutlass::|\bcute::)");
  return (std::regex_search(text, cuda) && std::regex_search(text, global)) ||
         std::regex_search(text, triton) || std::regex_search(text, other);
}

}  // namespace

std::string_view severity_name(Severity s) { return s == Severity::hack ? "hack" : "warning"; }

nlohmann::ordered_json finding_json(const Finding& f) {
  return {{"check", f.check},
          {"severity", severity_name(f.severity)},
          {"source", f.source},
          {"line", f.line},
          {"detail", f.detail}};
}

std::vector<Finding> findings_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_array()) throw std::runtime_error("findings: not an array");
  std::vector<Finding> out;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("check") || !e["check"].is_string() ||
        !e.contains("severity") || !e["severity"].is_string())
      throw std::runtime_error("findings: an entry without check or severity");
    Finding f;
    f.check = e["check"].get<std::string>();
    const std::string sev = e["severity"].get<std::string>();
    if (sev != "hack" && sev != "warning")
      throw std::runtime_error("findings: severity '" + sev + "' is neither hack nor warning");
    f.severity = sev == "hack" ? Severity::hack : Severity::warning;
    f.source = e.value("source", "static");
    f.line = e.value("line", 0);
    f.detail = e.value("detail", "");
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> torch_operators(const std::string& source) {
  static const std::regex call(
      R"(\b(torch\.nn\.functional|torch\.nn|torch\.linalg|torch\.fft|torch\.special|torch|F|nn)\.([A-Za-z_]\w*)[ \t]*\()");
  const std::string code = strip_python(source).code;
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator();
       ++it) {
    const std::string op = (*it)[2].str();
    if (structural().count(op)) continue;
    std::string ns = (*it)[1].str();
    if (ns == "torch.nn.functional") ns = "F";
    if (ns == "torch.nn") ns = "nn";
    names.insert(ns + "." + op);
  }
  return {names.begin(), names.end()};
}

bool defines_model_new(const std::string& solution) {
  static const std::regex re(
      R"(\bclass[ \t]+ModelNew\b|\bModelNew[ \t]*=[^=]|\bimport\b[^\n]*\bModelNew\b|\bdef[ \t]+ModelNew\b)");
  return std::regex_search(strip_python(solution).code, re);
}

std::vector<Finding> static_findings(const std::string& solution, const std::string& reference) {
  const StrippedSource stripped = strip_python(solution);
  std::vector<Finding> out = run_rules(solution, stripped);
  // The reference's own operators called by ModelNew (KernelBench's torch_computation_ops and
  // pytorch_wrap, narrowed to what the reference computes with): the operator the problem asks
  // to replace, called instead of replaced.
  const std::vector<std::string> mine = torch_operators(solution);
  const std::vector<std::string> theirs = torch_operators(reference);
  std::vector<std::string> same, other;
  for (const std::string& op : mine)
    (std::binary_search(theirs.begin(), theirs.end(), op) ? same : other).push_back(op);
  auto listed = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > 8) s += fmt::format(" and {} more", v.size() - 8);
    return s;
  };
  if (!same.empty())
    out.push_back({"reference_op", Severity::warning, 0,
                   "calls the reference's own PyTorch operators: " + listed(same), "static"});
  if (!other.empty())
    out.push_back(
        {"torch_ops", Severity::warning, 0,
         "calls PyTorch compute operators (KernelBench's torch_computation_ops): " + listed(other),
         "static"});
  if (!has_custom_kernel(solution))
    out.push_back({"no_kernel", Severity::warning, 0,
                   "no kernel of its own (no CUDA __global__ built with load_inline, no "
                   "@triton.jit): ModelNew runs PyTorch",
                   "static"});
  return out;
}

}  // namespace kjudge::kernelbench

#include "eval/static_flags.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string>
#include <tuple>

#include "eval/source_kinds.h"

namespace kjudge {

namespace {

// ---- Stripping -------------------------------------------------------------------------------

int line_at(const std::string& text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

bool c_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Is the ' at `i` a C++14 digit separator (1'000'000)? It is when the token it sits in started
// with a digit; a character literal's prefix (u8'x', L'x') starts with a letter.
bool digit_separator(const std::string& s, std::size_t i) {
  if (i == 0 || !c_ident_char(s[i - 1]) || i + 1 >= s.size() || !c_ident_char(s[i + 1]))
    return false;
  std::size_t b = i;
  while (b > 0 && (c_ident_char(s[b - 1]) || s[b - 1] == '\'' || s[b - 1] == '.')) --b;
  return std::isdigit(static_cast<unsigned char>(s[b])) != 0;
}

// Appends a literal's text to `out` blanked: newlines stay so that line numbers still match.
void blank(std::string& out, const std::string& text) {
  for (char c : text) out += c == '\n' ? '\n' : ' ';
}

}  // namespace

StrippedSource strip_c_like(const std::string& s) {
  StrippedSource r;
  std::string& out = r.code;
  out.reserve(s.size());
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      out += ' ';
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      std::size_t end = s.find("*/", i + 2);
      end = end == std::string::npos ? n : end + 2;
      out += ' ';
      for (std::size_t k = i; k < end; ++k)
        if (s[k] == '\n') out += '\n';
      i = end;
      continue;
    }
    if (c == '"') {
      const int line = line_at(s, i);
      // R"delim( ... )delim": no escapes inside.
      if (i > 0 && s[i - 1] == 'R' &&
          (i < 2 || !c_ident_char(s[i - 2]) || s[i - 2] == '8' || s[i - 2] == 'u' ||
           s[i - 2] == 'U' || s[i - 2] == 'L')) {
        std::size_t open = s.find('(', i + 1);
        if (open != std::string::npos) {
          const std::string close = ")" + s.substr(i + 1, open - i - 1) + "\"";
          std::size_t end = s.find(close, open + 1);
          if (end == std::string::npos) end = n;
          const std::string body = s.substr(open + 1, end - open - 1);
          r.literals.push_back({line, body});
          out += '"';
          blank(out, s.substr(i + 1, std::min(end + close.size(), n) - i - 2));
          out += '"';
          i = std::min(end + close.size(), n);
          continue;
        }
      }
      std::string body;
      std::size_t k = i + 1;
      while (k < n && s[k] != '"' && s[k] != '\n') {
        if (s[k] == '\\' && k + 1 < n) {  // kept as written: "\n" reads as \n in a reason
          body += s.substr(k, 2);
          k += 2;
          continue;
        }
        body += s[k++];
      }
      r.literals.push_back({line, body});
      out += '"';
      blank(out, s.substr(i + 1, std::min(k, n) - i - 1));
      if (k < n && s[k] == '"') out += '"';
      i = k < n && s[k] == '"' ? k + 1 : k;
      continue;
    }
    if (c == '\'' && !digit_separator(s, i)) {
      std::size_t k = i + 1;
      while (k < n && s[k] != '\'' && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
      k = std::min(k, n);
      out += '\'';
      blank(out, s.substr(i + 1, k - i - 1));
      if (k < n && s[k] == '\'') out += '\'';
      i = k < n && s[k] == '\'' ? k + 1 : k;
      continue;
    }
    out += c;
    ++i;
  }
  return r;
}

namespace {

// Python's reading of its strings, for strip_python. A plain string's contents are blanked. An
// f-string's (and a Python 3.14 template string's, `t"..."`) replacement fields are code that
// Python runs, so they are kept as code: `f"{exit(0)}"` reads as `f"{exit(0)}"` with only the
// literal text around the field blanked. Within a field, a string of any quote (Python 3.12
// lets a field reuse its f-string's own quote), a nested f-string and a comment are read as
// they are anywhere else; its format spec (`:>8.3f`) is literal text but for the fields nested
// in it (`{x:{width}}`), and its `!r` conversion and the `=` of `{x=}` are blanked. `{{` and
// `}}` in the literal text are braces, not fields; so is `\N{...}` in a string that is not raw.
// The reading follows CPython 3.12's tokenizer (Parser/lexer); a file that an older Python
// reads otherwise is one it refuses to compile.
class PythonStripper {
 public:
  PythonStripper(const std::string& s, StrippedSource& r) : s_(s), n_(s.size()), r_(r) {
    r_.code.reserve(n_);
  }

  // Code from s[i] to the end of the text or, in a replacement field (`field`), to the field's
  // format spec (`:`) or its end (`}`) at its own bracket depth; returns where it stopped.
  std::size_t code(std::size_t i, bool field) {
    int depth = 0;
    while (i < n_) {
      const char c = s_[i];
      if (c == '#') {
        while (i < n_ && s_[i] != '\n') ++i;
        out(' ');
        continue;
      }
      if (c == '"' || c == '\'') {
        i = string(i);
        continue;
      }
      if (field && depth <= 0) {
        if (c == '}' || c == ':') return i;
        // The `!r` of a conversion (not `!=`), and the `=` of `{x=}` (not `==`, `<=`, `>=`,
        // `!=`): neither is code, and the second would read as an assignment.
        const bool next_eq = i + 1 < n_ && s_[i + 1] == '=';
        const bool prev_op = i > 0 && std::string("=!<>").find(s_[i - 1]) != std::string::npos;
        if ((c == '!' && !next_eq) || (c == '=' && !next_eq && !prev_op)) {
          out(' ');
          ++i;
          continue;
        }
      }
      if (field)
        depth += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
      out(c);
      ++i;
    }
    return i;
  }

 private:
  // A string literal whose opening quote is s[i], with the prefix before it (`f`, `rb`, ...);
  // returns where the code after it begins.
  std::size_t string(std::size_t i) {
    const char q = s_[i];
    const bool triple = i + 2 < n_ && s_[i + 1] == q && s_[i + 2] == q;
    const std::string quote(triple ? 3 : 1, q);
    std::size_t p = i;
    while (p > 0 && prefix_char(s_[p - 1])) --p;
    std::string prefix = s_.substr(p, i - p);
    for (char& ch : prefix) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    // Only a whole word that is a prefix makes one: `if"x"` is `if` and a string.
    static const std::set<std::string> kFormatted = {"f", "fr", "rf", "t", "tr", "rt"};
    const bool formatted = kFormatted.count(prefix) > 0;
    const bool raw = prefix.find('r') != std::string::npos;
    const std::size_t slot = r_.literals.size();
    r_.literals.push_back({line_of(i), ""});
    out(quote);
    std::size_t k = i + quote.size();
    k = formatted ? middle(k, quote, raw, false) : plain(k, quote);
    r_.literals[slot].text = s_.substr(i + quote.size(), k - i - quote.size());
    if (k < n_ && s_.compare(k, quote.size(), quote) == 0) {
      out(quote);
      k += quote.size();
    }
    return k;
  }

  // A plain string's contents from s[k]: blanked up to its closing quote.
  std::size_t plain(std::size_t k, const std::string& quote) {
    while (k < n_ && !closes(k, quote)) {
      const std::size_t step = s_[k] == '\\' && k + 1 < n_ ? 2 : 1;
      blank(r_.code, s_.substr(k, step));
      k += step;
    }
    return k;
  }

  // An f-string's literal text from s[k], or its format spec (`spec`), which ends at the
  // field's `}` too: blanked, its replacement fields read as code.
  std::size_t middle(std::size_t k, const std::string& quote, bool raw, bool spec) {
    while (k < n_ && !closes(k, quote)) {
      const char c = s_[k];
      if (c == '\\' && k + 1 < n_) {
        // `\{` is a backslash before a field, in a raw string or not.
        if (s_[k + 1] == '{' || s_[k + 1] == '}') {
          out(' ');
          ++k;
          continue;
        }
        std::size_t e = k + 2;
        if (!raw && s_[k + 1] == 'N' && e < n_ && s_[e] == '{') {
          while (e < n_ && s_[e] != '}' && !closes(e, quote)) ++e;
          if (e < n_ && s_[e] == '}') ++e;
        }
        blank(r_.code, s_.substr(k, e - k));
        k = e;
        continue;
      }
      if (c == '}' && spec) return k;
      // `{{` and `}}` are braces; in a format spec `{` always opens a field.
      if ((c == '{' || c == '}') && !spec && k + 1 < n_ && s_[k + 1] == c) {
        out("  ");
        k += 2;
        continue;
      }
      if (c == '{') {
        k = replacement_field(k, quote, raw);
        continue;
      }
      blank(r_.code, std::string(1, c));
      ++k;
    }
    return k;
  }

  // The replacement field that s[k] (`{`) opens: its expression kept as code, its format spec
  // read for fields of its own.
  std::size_t replacement_field(std::size_t k, const std::string& quote, bool raw) {
    // Fields nested deeper than Python allows (150 in 3.12): a file it will not compile, whose
    // rest is kept as code rather than read by a recursion as deep as its nesting.
    if (fields_ >= kMaxFields) {
      out(s_.substr(k));
      return n_;
    }
    ++fields_;
    out('{');
    k = code(k + 1, true);
    if (k < n_ && s_[k] == ':') {
      out(' ');
      k = middle(k + 1, quote, raw, true);
    }
    if (k < n_ && s_[k] == '}') {
      out('}');
      ++k;
    }
    --fields_;
    return k;
  }

  // Whether s[k] ends the string that `quote` opened: its closing quote or, for one quote, the
  // end of the line.
  bool closes(std::size_t k, const std::string& quote) const {
    return s_.compare(k, quote.size(), quote) == 0 || (quote.size() == 1 && s_[k] == '\n');
  }

  static bool prefix_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_' || u >= 0x80;
  }

  // The line of s[i], counted on from the last string's (strings are met in order).
  int line_of(std::size_t i) {
    line_ += static_cast<int>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(counted_),
                                         s_.begin() + static_cast<std::ptrdiff_t>(i), '\n'));
    counted_ = i;
    return line_;
  }

  void out(char c) { r_.code += c; }
  void out(const std::string& t) { r_.code += t; }

  static constexpr int kMaxFields = 200;

  const std::string& s_;
  const std::size_t n_;
  StrippedSource& r_;
  int fields_ = 0;  // replacement fields open around the reading
  std::size_t counted_ = 0;
  int line_ = 1;
};

}  // namespace

StrippedSource strip_python(const std::string& s) {
  StrippedSource r;
  PythonStripper(s, r).code(0, false);
  return r;
}

namespace {

// ---- Rules -----------------------------------------------------------------------------------

enum Lang : unsigned { kC = 1, kPy = 2 };
enum Paths : unsigned { kCE = 1, kTask = 2, kTriton = 4, kAll = 7 };
enum class Where { code, literal };

unsigned path_bit(TimedPath p) {
  switch (p) {
    case TimedPath::computeeval:
      return kCE;
    case TimedPath::task:
      return kTask;
    case TimedPath::triton:
      return kTriton;
  }
  return kAll;
}

struct Rule {
  const char* code;
  unsigned langs;
  unsigned paths;
  Where where;
  // Substrings one of which must occur for the pattern to match ('|'-separated): most files
  // hold none, and std::regex is slow.
  const char* needles;
  const char* pattern;
  // Not flagged when the problem's own text names the matched construct: the problem asked
  // for it (ComputeEval CUDA/186 asks for access-policy windows, a quarter of 2025-3 for
  // streams).
  bool asked_exempt;
  const char* reason;
};

// The rules, each with why it is shaped so (docs/cheats.md has the table and the measured
// counts on the baselines).
const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      // Streams: the task harness times CUDA events on the default stream; a submission's own
      // stream is where work hides from them. ComputeEval is not flagged: kjudge's CUPTI
      // profiler times every stream, and 97 of 405 2025-3 baselines create streams as asked.
      {"stream_creation", kC, kTask | kTriton, Where::code,
       "StreamCreate|StreamPerThread|getStreamFromPool",
       R"(\b(cudaStreamCreate\w*|cuStreamCreate\w*|cudaStreamPerThread|(at|c10)::cuda::getStreamFromPool)\b)",
       true,
       "creates or uses a stream of its own: work queued there runs outside the events the "
       "harness times on the default stream"},
      {"stream_creation", kPy, kTask | kTriton, Where::code, "Stream(", R"(\bcuda\.Stream\s*\()",
       true, "creates its own CUDA stream: work queued there runs outside the timed stream"},
      // Threads: work launched from another host thread can outlive the timed call (and the
      // ComputeEval timed NVTX region, which is one thread's).
      {"thread", kC, kAll, Where::code, "thread|async",
       R"(\bstd::j?thread\b|\bpthread_create\b|\bstd::async\b|\bboost::thread\b)", true,
       "starts a host thread: its GPU work can run outside the timed region"},
      {"thread", kPy, kAll, Where::code, "Thread|multiprocessing|concurrent|Pool|fork",
       R"(\bthreading\.Thread\b|\bThread\s*\(|\bmultiprocessing\b|\bconcurrent\.futures\b|\b(Thread|Process)PoolExecutor\b|\bos\.fork\b)",
       true, "starts a thread or process: its GPU work can run outside the timed region"},
      // Timers: the judge owns the clock. A solution that times itself can tell warm-up from
      // timed calls. (ComputeEval: exempt where the prompt asks about performance, see
      // timing_words(): there the profiler's numbers cannot be changed by the solution's own.)
      {"timer", kC, kAll, Where::code, "Elapsed|clock|chrono|gettimeofday|timespec_get|rdtsc",
       R"(\b(cudaEventElapsedTime|cuEventElapsedTime|clock_gettime|gettimeofday|timespec_get|__rdtsc)\b|\bstd::chrono\b|\bchrono::\w*clock\b|\bclock\s*\(\s*\))",
       true, "reads a clock: a solution that times itself can tell warm-up from timed calls"},
      {"timer", kPy, kAll, Where::code, "time|Event|do_bench",
       R"(\btime\.(perf_counter|perf_counter_ns|time|time_ns|monotonic|monotonic_ns|process_time)\b|\belapsed_time\s*\(|\bcuda\.Event\s*\(|\bdo_bench\b|\btimeit\b)",
       true, "reads a clock: a solution that times itself can tell warm-up from timed calls"},
      // Patched timers: defining (or #defining) a timing or synchronising function replaces the
      // harness's own, in the same program.
      {"timer_patch", kC, kAll, Where::code,
       "Elapsed|EventRecord|EventSynchronize|Synchronize|clock_gettime|gettimeofday",
       R"(#\s*define\s+(cudaEventElapsedTime|cudaEventRecord|cudaEventSynchronize|cudaDeviceSynchronize|cudaStreamSynchronize|cuEventElapsedTime|clock_gettime|gettimeofday)\b|\b(cudaEventElapsedTime|cudaEventRecord|cudaEventSynchronize|cudaDeviceSynchronize|cudaStreamSynchronize|cuEventElapsedTime|cuEventRecord|clock_gettime|gettimeofday)\s*\([^;{}()]*(\([^;{}()]*\)[^;{}()]*)*\)\s*(noexcept\s*)?\{)",
       false,
       "defines a timing or synchronising function of the runtime: the harness would call it"},
      {"timer_patch", kPy, kAll, Where::code, "=",
       R"(\b(torch\.cuda\.(Event|synchronize|Stream|current_stream)|time\.\w+|triton\.testing\.\w+)\s*=[^=]|\bsetattr\s*\(\s*(torch|time|triton)\b)",
       false, "replaces a timing or synchronising function the harness calls"},
      // dlsym and friends: looking up or interposing the runtime's functions.
      {"dlsym", kC, kAll, Where::code, "dl|RTLD_NEXT|GetProcAddress|GetDriverEntryPoint",
       R"(\b(dlsym|dlvsym|dlopen|dlmopen)\s*\(|\bRTLD_NEXT\b|\bcuGetProcAddress\w*|\bcudaGetDriverEntryPoint\w*)",
       true, "looks up functions at run time: the way to interpose the runtime's timers"},
      {"dlsym", kPy, kAll, Where::code, "ctypes|cffi",
       R"(\bctypes\.(CDLL|cdll|PyDLL|pydll|pythonapi|memmove|cast|addressof)\b|\bcffi\b)", true,
       "loads native code or reaches raw memory through ctypes"},
      {"preload", kC | kPy, kAll, Where::literal, "LD_|INJECTION",
       R"(\b(LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|CUDA_INJECTION64_PATH|NVTX_INJECTION64_PATH)\b)",
       false, "names a loader or injection variable: the way to load code into the judge's run"},
      {"preload", kC | kPy, kAll, Where::code, "LD_|INJECTION",
       R"(\b(LD_PRELOAD|LD_AUDIT|CUDA_INJECTION64_PATH|NVTX_INJECTION64_PATH)\b)", false,
       "names a loader or injection variable: the way to load code into the judge's run"},
      // Code that runs before main or after it: before the harness takes its channel, or after
      // the timed calls.
      {"constructor", kC, kAll, Where::code, "__attribute__|pragma|gnu::",
       R"(__attribute__\s*\(\s*\(\s*(constructor|destructor|ifunc)\b|\[\[\s*gnu::(constructor|destructor|ifunc)\b|#\s*pragma\s+(init|fini)\b)",
       false, "runs code before main or after it, outside every timed call"},
      {"constructor", kC, kAll, Where::literal,
       ".preinit_array|.init_array|.fini_array|.ctors|.dtors",
       R"(^\.(preinit_array|init_array|fini_array|ctors|dtors)\b)", false,
       "places code in the loader's start-up or exit tables"},
      {"code_patch", kC, kAll, Where::code, "protect|ptrace|process_vm|mremap",
       R"(\b(mprotect|pkey_mprotect|ptrace|process_vm_readv|process_vm_writev|mremap)\s*\()", false,
       "changes memory protection or reads another process's memory: patching code"},
      {"code_patch", kPy, kAll, Where::code, "settrace|setprofile|gc.|_getframe|inspect.",
       R"(\bsys\.(settrace|setprofile|_getframe)\b|\bgc\.(get_objects|get_referrers|get_referents)\b|\binspect\.(stack|currentframe)\b)",
       false, "walks the interpreter's objects or frames: the way to find the expected outputs"},
      // The runner's RuntimeWatch reads threading's tables to see threads left running beside
      // the timed calls; code that edits them hides a thread from it.
      {"code_patch", kPy, kAll, Where::code, "threading._",
       R"(\bthreading\._(active|limbo|dangling|shutdown_locks)\b)", false,
       "edits the threading module's own tables: hides a thread from the runner"},
      // The Triton runner runs in the operator's process (its entry as __main__, its code as the
      // package kjudge_triton, importable by name once loaded): code that reaches it can rebind
      // its timer, its check or its report (RuntimeWatch then names what it replaced).
      {"code_patch", kPy, kAll, Where::code, "__main__|sys.modules|kjudge_triton",
       R"(\bimport\s+__main__\b|\bfrom\s+__main__\s+import\b|\bsys\.modules\b|\bkjudge_triton\b)",
       false,
       "reaches the running program's own modules (__main__, sys.modules, the runner's "
       "kjudge_triton): the runner's timer and report"},
      // Ending the process from the solution's own code: a ComputeEval test program that
      // exits 0 before its checks would pass (the main guard fails it at run time,
      // run/main_return.h); the Triton runner's report would never be written. Error exits
      // (exit(1), exit(EXIT_FAILURE)) are what 700-odd baselines' error macros do: not flagged.
      {"early_exit", kC, kAll, Where::code, "exit|SYS_|__NR_",
       R"(\b(std::)?(exit|quick_exit)\s*\(\s*(0|EXIT_SUCCESS)\s*\)|\b(std::)?(_exit|_Exit)\s*\(|\b(SYS|__NR)_exit(_group)?\b)",
       false,
       "ends the process from its own code with success (exit(0), _exit, the exit system call): "
       "a test program would stop before its checks"},
      {"early_exit", kPy, kAll, Where::code, "_exit|exit(",
       R"(\bos\._exit\s*\(|\bsys\.exit\s*\(\s*(0\s*)?\))", false,
       "ends the process from its own code: the runner's checks and report would never come"},
      // Files of the machine: /proc shows the judge's memory (/proc/self/mem, maps), its
      // command line and environment; /sys the GPU; /dev/shm outlives the process (the cache
      // the 2026 GPU MODE eigh exploit kept between calls).
      {"proc_read", kC | kPy, kAll, Where::literal, "/proc|/sys", R"((^|[^\w.])/(proc|sys)(/|$))",
       false, "names a /proc or /sys path: the judge's memory, command line or environment"},
      {"shm", kC | kPy, kAll, Where::literal, "/dev/shm", R"(/dev/shm\b)", false,
       "names /dev/shm: files there outlive the call and the process (a result cache)"},
      {"shm", kC, kAll, Where::code, "shm", R"(\b(shm_open|shmget|shmat)\s*\()", false,
       "opens shared memory: it outlives the call and the process (a result cache)"},
      {"shm", kPy, kAll, Where::code, "shared_memory|SharedMemory|mmap",
       R"(\bshared_memory\b|\bSharedMemory\b|\bmmap\.mmap\b)", false,
       "opens shared memory: it outlives the call and the process (a result cache)"},
      {"environment", kC, kAll, Where::code, "env|environ",
       R"(\b(getenv|secure_getenv|setenv|putenv|unsetenv|clearenv)\s*\(|\b(__)?environ\b)", true,
       "reads or changes the environment: the judge passes its channel and devices there"},
      {"environment", kPy, kAll, Where::code, "environ|getenv|putenv|unsetenv",
       R"(\bos\.(environ|getenv|putenv|unsetenv)\b)", true,
       "reads or changes the environment: the judge passes its channel and devices there"},
      {"subprocess", kC, kAll, Where::code, "system|popen|exec|spawn|fork",
       R"(\b(system|popen|execl|execlp|execle|execv|execvp|execvpe|execve|fexecve|posix_spawnp?|fork|vfork)\s*\()",
       true, "runs another program: work (or a result) from outside the timed call"},
      {"subprocess", kPy, kAll, Where::code, "subprocess|os.",
       R"(\bsubprocess\b|\bos\.(system|popen|fork|exec\w*|spawn\w*|posix_spawn\w*)\b)", true,
       "runs another program: work (or a result) from outside the timed call"},
      // Seeds: a generator seeded with a constant can regenerate inputs whose seeds are public.
      // Only literal seeds (a seed passed in as the problem asks is the problem's own); Python's
      // manual_seed and random.seed always.
      {"seed", kC, kAll, Where::code,
       "srand|seed|Seed|mt19937|engine|minstd|ranlux|knuth|curand_init",
       R"(\bsrand(om)?\s*\(\s*\d+|\b(mt19937(_64)?|default_random_engine|minstd_rand0?|ranlux\w+|knuth_b)\s+\w+\s*[({]\s*\d+|\.seed\s*\(\s*\d+|\bcurandSetPseudoRandomGeneratorSeed\s*\(\s*[^,;]+,\s*\d+|\bcurand_init\s*\(\s*\d+)",
       false, "seeds a random generator with a constant: the way to regenerate public inputs"},
      {"seed", kPy, kAll, Where::code, "seed|default_rng|RandomState",
       R"(\bmanual_seed(_all)?\s*\(|\b(random|np\.random|numpy\.random)\.seed\s*\(|\bdefault_rng\s*\(\s*\d+|\bRandomState\s*\(\s*\d+)",
       false, "seeds a random generator: the way to regenerate public inputs"},
      // Task submissions that call the harness's own generators or the reference: regenerating
      // (or simply computing) the expected output instead of the kernel.
      {"input_regeneration", kC, kTask, Where::code,
       "fill_|uniform01|_seed|generate_input|ref_kernel",
       R"(\b(fill_uniform|fill_normal|fill_int|uniform01|repetition_seed|combine_seed|generate_input|ref_kernel)\s*[(<])",
       false, "calls the task's input generator or reference: regenerating the expected output"},
      // Persisting L2: inputs set aside in L2 survive the harness's flush (pygpubench#49).
      {"l2_persist", kC | kPy, kAll, Where::code, "ersist|PERSIST|olicyWindow|OLICY_WINDOW",
       R"(\b(cudaLimitPersistingL2CacheSize|CU_LIMIT_PERSISTING_L2_CACHE_SIZE|cudaAccessPropertyPersisting|CU_ACCESS_PROPERTY_PERSISTING|cudaStreamAttributeAccessPolicyWindow|cudaLaunchAttributeAccessPolicyWindow|cudaKernelNodeAttributeAccessPolicyWindow|CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW|CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW|accessPolicyWindow|cudaAccessPolicyWindow|CUaccessPolicyWindow)\b)",
       true,
       "sets aside persisting L2 or an access-policy window: inputs kept in L2 survive the flush"},
      // The result channel: markers of kjudge's records, ComputeEval's custom time line, GPU
      // MODE's POPCORN_FD; raw descriptor tricks.
      {"result_forge", kC | kPy, kAll, Where::literal, "COMPUTE_EVAL_TIME_MS|KJUDGE_|POPCORN|KJ1",
       R"(COMPUTE_EVAL_TIME_MS|KJUDGE_\w*|POPCORN_\w*|^KJ1\s)", false,
       "writes a marker of the judge's result channel or time line: a forged result"},
      {"result_forge", kC, kAll, Where::code, "fdopen|dup", R"(\b(fdopen|dup2|dup3)\s*\()", false,
       "takes over a file descriptor by number: the judge's result channel is one"},
      {"result_forge", kPy, kAll, Where::code, "os.", R"(\bos\.(fdopen|write|dup2)\b)", false,
       "writes to a file descriptor by number: the judge's result channel is one"},
      // NVTX ranges: ComputeEval's region timing and the harness's profile mode select work by
      // range; a solution that pushes or pops ranges can move the timed region.
      {"timing_region", kC, kCE | kTask, Where::code, "nvtx",
       R"(\bnvtx(Range(Push|Pop|Start|End)\w*|DomainRange\w*)\b|\bnvtx3::scoped_range\b)", true,
       "opens or closes NVTX ranges: the judge times by range"},
      {"host_callback", kC, kAll, Where::code, "HostFunc|AddCallback",
       R"(\b(cudaLaunchHostFunc|cudaStreamAddCallback|cuLaunchHostFunc|cuStreamAddCallback)\b)",
       true, "queues host work that runs later, outside the call that queued it"},
      // Caching results between calls: by pointer (a map keyed by an address), in a static
      // map, or (Python) by id(), data_ptr() or the version counter.
      {"result_cache", kC, kAll, Where::code, "map",
       R"(\b(unordered_)?(multi)?map\s*<\s*(const\s+)?[\w:]+\s*(const\s*)?\*|\bstatic\s+(std::)?(unordered_)?(multi)?(map|set)\s*<)",
       true, "keeps a map keyed by address, or a static map, across calls: a result cache"},
      {"result_cache", kPy, kAll, Where::code, "cache|_version|id(|data_ptr",
       R"(\blru_cache\b|\bfunctools\.cache\b|@cache\b|\._version\b|\bid\s*\(\s*\w+\s*\)|\bdata_ptr\s*\(\s*\)\s*(\]|\bin\b|,\s*\w+\.data_ptr))",
       false, "keys something by object identity, address or version: a result cache"},
      // A kernel task's call copies nothing back to the host; content caching and computing on
      // the host need that copy.
      {"host_readback", kC, kTask, Where::code, "DeviceToHost|Default|to_host",
       R"(\bcudaMemcpyDeviceToHost\b|\bcudaMemcpyDefault\b|\.to_host\s*\()", true,
       "copies device data to the host inside the call: content caching and host computing "
       "need it"},
      {"host_readback", kPy, kTriton, Where::code, "cpu|numpy|tolist",
       R"(\.(cpu|numpy|tolist)\s*\(\s*\))", true,
       "copies device data to the host inside the call: content caching and host computing "
       "need it"},
  };
  return r;
}

// The rules' patterns, compiled once (a function-local static: thread-safe, and evaluator
// threads scan solutions at once).
const std::vector<std::regex>& compiled() {
  static const std::vector<std::regex> res = [] {
    std::vector<std::regex> v;
    for (const Rule& r : rules()) v.emplace_back(r.pattern);
    return v;
  }();
  return res;
}

bool is_python(const std::string& path) {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0;
}

bool any_needle(const std::string& text, const char* needles) {
  std::string all = needles;
  std::size_t start = 0;
  while (start <= all.size()) {
    std::size_t bar = all.find('|', start);
    const std::string n = all.substr(start, bar == std::string::npos ? bar : bar - start);
    if (!n.empty() && text.find(n) != std::string::npos) return true;
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return false;
}

// The identifier a match names, for the "the problem asked for it" check.
std::string token_of(const std::string& match) {
  std::size_t b = 0;
  while (b < match.size() && !c_ident_char(match[b]) && match[b] != ':') ++b;
  std::size_t e = b;
  while (e < match.size() && (c_ident_char(match[e]) || match[e] == ':' || match[e] == '.')) ++e;
  return match.substr(b, e - b);
}

// ComputeEval prompts that ask about performance (cusparse/6: "compare the performance of
// standard calls versus graph execution") ask the solution to time itself; the profiler's time
// cannot be changed by it there.
bool timing_words(const std::string& text) {
  static const std::regex re(R"(\b(performance|timing|elapsed|benchmark\w*|profil\w*|latency)\b)",
                             std::regex::ECMAScript | std::regex::icase);
  return std::regex_search(text, re);
}

std::string last_number(const std::string& s) {
  std::size_t e = s.find_last_of("0123456789");
  if (e == std::string::npos) return {};
  std::size_t b = e;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(b, e - b + 1);
}

std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string(R"(\^$.|?*+()[]{})").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

struct Collector {
  std::vector<StaticFlag> flags;
  std::set<std::tuple<std::string, std::string, int>> seen;
  void add(const std::string& code, const std::string& file, int line, std::string reason) {
    if (seen.emplace(code, file, line).second) flags.push_back({code, file, line, reason});
  }
};

std::string excerpt(const std::string& m) {
  std::string s;
  for (char c : m) s += (c == '\n' || c == '\t') ? ' ' : c;
  while (s.find("  ") != std::string::npos) s.replace(s.find("  "), 2, " ");
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

void scan_file(const SourceFile& f, const StaticContext& ctx, Collector& out) {
  const bool py = is_python(f.path);
  if (!py && !is_c_like(f.path)) return;
  const StrippedSource src = py ? strip_python(f.content) : strip_c_like(f.content);
  const unsigned lang = py ? kPy : kC;
  const unsigned path = path_bit(ctx.path);
  // Line starts of the stripped code, for offsets → lines and for a literal's own line.
  std::vector<std::size_t> starts = {0};
  for (std::size_t i = 0; i < src.code.size(); ++i)
    if (src.code[i] == '\n') starts.push_back(i + 1);
  auto line_of = [&](std::size_t pos) {
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), pos) - starts.begin());
  };
  auto code_line = [&](int line) {
    const std::size_t b = starts[static_cast<std::size_t>(line - 1)];
    const std::size_t e = src.code.find('\n', b);
    return src.code.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  static const std::regex include_re(R"(^\s*#\s*include\b)");
  // Literals on #include lines are header names, not strings the program uses.
  std::vector<const StringLiteral*> literals;
  for (const auto& l : src.literals)
    if (!std::regex_search(code_line(l.line), include_re)) literals.push_back(&l);

  const bool ce_timing_asked = ctx.path == TimedPath::computeeval && timing_words(ctx.problem_text);
  for (const Rule& r : rules()) {
    if (!(r.langs & lang) || !(r.paths & path)) continue;
    if (std::string(r.code) == "timer" && ce_timing_asked) continue;
    const std::regex* re = &compiled()[static_cast<std::size_t>(&r - rules().data())];
    auto flag = [&](int line, const std::string& m) {
      if (r.asked_exempt && !ctx.problem_text.empty()) {
        const std::string tok = token_of(m);
        if (!tok.empty() && ctx.problem_text.find(tok) != std::string::npos) return;
      }
      std::string reason = std::string(r.reason) + " (`" + excerpt(m) + "`)";
      if (std::string(r.code) == "seed") {
        const std::string num = last_number(m);
        if (!num.empty() && ctx.public_seeds.count(num))
          reason += "; the public tests use seed " + num;
      }
      out.add(r.code, f.path, line, reason);
    };
    if (r.where == Where::code) {
      if (!any_needle(src.code, r.needles)) continue;
      for (auto it = std::sregex_iterator(src.code.begin(), src.code.end(), *re);
           it != std::sregex_iterator(); ++it)
        flag(line_of(static_cast<std::size_t>(it->position())), it->str());
    } else {
      for (const StringLiteral* l : literals) {
        if (!any_needle(l->text, r.needles)) continue;
        std::smatch m;
        if (std::regex_search(l->text, m, *re)) flag(l->line, "\"" + l->text + "\"");
      }
    }
  }

  // A literal that names a range the judge times by.
  for (const StringLiteral* l : literals)
    for (const auto& range : ctx.timed_ranges)
      if (!range.empty() && l->text == range)
        out.add("timing_region", f.path, l->line,
                "names the NVTX range the judge times (\"" + range + "\")");

  // task.yml `forbidden`: a dotted or ::-qualified name matches itself and what is under it; a
  // plain word matches every identifier that starts with it (cublas: cublasSgemm,
  // CUBLAS_OP_N, cublas_v2.h) and every string that holds it (dlopen("libcublas.so")).
  for (const auto& name : ctx.forbidden) {
    if (name.empty()) continue;
    const bool qualified =
        name.find('.') != std::string::npos || name.find("::") != std::string::npos;
    const std::regex re(
        qualified ? "\\b" + regex_escape(name) + "\\b" : "\\b" + regex_escape(name) + "\\w*",
        qualified ? std::regex::ECMAScript : std::regex::ECMAScript | std::regex::icase);
    const std::string reason = "calls what the task forbids (" + name + ")";
    for (auto it = std::sregex_iterator(src.code.begin(), src.code.end(), re);
         it != std::sregex_iterator(); ++it)
      out.add("forbidden", f.path, line_of(static_cast<std::size_t>(it->position())),
              reason + " (`" + excerpt(it->str()) + "`)");
    if (!qualified) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
      for (const StringLiteral* l : literals) {
        std::string t = l->text;
        std::transform(t.begin(), t.end(), t.begin(), ::tolower);
        if (t.find(lower) != std::string::npos)
          out.add("forbidden", f.path, l->line, reason + " (\"" + excerpt(l->text) + "\")");
      }
    }
  }
}

}  // namespace

void collect_seeds(const std::string& text, std::set<std::string>& seeds) {
  static const std::regex re(
      R"(\bsrand\s*\(\s*(\d+)|\b(mt19937(_64)?|default_random_engine|minstd_rand0?)\s+\w+\s*[({]\s*(\d+)|\.seed\s*\(\s*(\d+)|manual_seed\s*\(\s*(\d+)|curandSetPseudoRandomGeneratorSeed\s*\(\s*[^,;]+,\s*(\d+))");
  const std::string code = strip_c_like(text).code;
  if (code.find("seed") == std::string::npos && code.find("mt19937") == std::string::npos &&
      code.find("srand") == std::string::npos && code.find("engine") == std::string::npos &&
      code.find("minstd") == std::string::npos)
    return;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), re); it != std::sregex_iterator();
       ++it) {
    const std::string n = last_number(it->str());
    if (!n.empty()) seeds.insert(n);
  }
}

std::vector<StaticFlag> static_flags(const std::vector<SourceFile>& files,
                                     const StaticContext& ctx) {
  Collector c;
  for (const auto& f : files) scan_file(f, ctx, c);
  std::stable_sort(c.flags.begin(), c.flags.end(), [&](const StaticFlag& a, const StaticFlag& b) {
    if (a.file != b.file) {
      auto pos = [&](const std::string& p) {
        for (std::size_t i = 0; i < files.size(); ++i)
          if (files[i].path == p) return i;
        return files.size();
      };
      return pos(a.file) < pos(b.file);
    }
    return a.line < b.line;
  });
  return c.flags;
}

StaticContext computeeval_context(const Problem& p) {
  StaticContext ctx;
  ctx.path = TimedPath::computeeval;  // cuda_python too: the same profiler times it
  ctx.problem_text = p.prompt;
  for (const auto& f : p.context_files) ctx.problem_text += "\n" + f.content;
  for (const auto& f : p.test_files) collect_seeds(f.content, ctx.public_seeds);
  if (p.timing_mode.type == "region") ctx.timed_ranges = p.timing_mode.include;
  return ctx;
}

StaticContext task_context(const TaskSpec& t) {
  StaticContext ctx;
  ctx.path = TimedPath::task;
  ctx.forbidden = t.forbidden;
  ctx.problem_text = t.description;
  for (const auto* cases : {&t.tests, &t.benchmarks})
    for (const auto& c : *cases)
      if (const std::string* s = c.find("seed")) ctx.public_seeds.insert(*s);
  // The harness's profile mode selects the submission's kernels by this range.
  ctx.timed_ranges = {"custom_kernel"};
  return ctx;
}

nlohmann::json to_json(const StaticFlag& f) {
  nlohmann::json j = {{"check", f.code}, {"detail", f.reason}, {"source", "static"}};
  // A flag read back from a plain string (older records) has no place to point at.
  if (!f.file.empty()) {
    j["file"] = f.file;
    j["line"] = f.line;
  }
  return j;
}

nlohmann::json flags_json(const std::vector<StaticFlag>& flags) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : flags) a.push_back(to_json(f));
  return a;
}

}  // namespace kjudge

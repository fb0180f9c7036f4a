// kjudge man: kjudge(1) in roff, made from the command tree of the binary that prints it (the
// Debian package and `cmake --install` install it as share/man/man1/kjudge.1).
#include <fmt/format.h>

#include <map>
#include <string>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "core/exit_codes.h"

namespace kjudge {

namespace {

// Text as roff shows it: backslashes and hyphens escaped, no line starting with a control
// character, one paragraph per line.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      // UTF-8 (×, µ, …) as groff's \[uXXXX], which needs no input encoding.
      const int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0;
      unsigned cp = extra == 3 ? byte & 0x07 : extra == 2 ? byte & 0x0F : byte & 0x1F;
      for (int k = 1; k <= extra && i + 1 < text.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[++i]) & 0x3F);
      out += extra ? fmt::format("\\[u{:04X}]", cp) : "?";
      line_start = false;
      continue;
    }
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = false;
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else if (c == '\n') {
      out += '\n';
      line_start = true;
    } else
      out += c;
  }
  return out;
}

std::string page(const std::map<std::string, CommandNode>& tree) {
  std::string out =
      fmt::format(".TH KJUDGE 1 \"\" \"kjudge {}\" \"User Commands\"\n", KJUDGE_VERSION);
  std::string summary = tree.at("").description;  // "kjudge: judges GPU kernel code (...)"
  if (summary.starts_with("kjudge: ")) summary = summary.substr(8);
  out += ".SH NAME\nkjudge \\- " + roff(summary) + "\n";
  out +=
      ".SH SYNOPSIS\n.B kjudge\n[\\fB\\-\\-config\\fR \\fIFILE\\fR] \\fICOMMAND\\fR "
      "[\\fISUBCOMMAND\\fR] [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n";
  out += ".SH DESCRIPTION\n" +
         roff(
             "kjudge builds and runs GPU kernel solutions in a sandbox against hidden tests, "
             "times them against a baseline and scores them: NVIDIA ComputeEval datapacks, "
             "GPU MODE task folders and TritonBench operators, from the command line, as an "
             "HTTP service, or over a Slurm cluster. Every command takes --help. Options may "
             "also come from a YAML file (--config FILE) whose nested maps name the "
             "subcommand; the command line wins.") +
         "\n";
  out += ".SH COMMANDS\n";
  for (const auto& [path, node] : tree) {
    if (path.empty()) continue;
    std::string synopsis = "kjudge " + path;
    for (const CommandWord& p : node.positionals) synopsis += " " + p.name;
    out += ".SS \"" + roff(synopsis) + "\"\n" + roff(node.description) + "\n";
    if (!node.commands.empty()) {
      std::string subs;
      for (const CommandWord& c : node.commands) subs += (subs.empty() ? "" : ", ") + c.name;
      out += ".br\nSubcommands: " + roff(subs) + ".\n";
    }
    for (const CommandWord& p : node.positionals)
      out += ".TP\n\\fI" + roff(p.name) + "\\fR\n" + roff(p.help) + "\n";
    for (const CommandWord& o : node.options) {
      if (o.name == "--help" || o.name == "-h") continue;
      out += ".TP\n\\fB" + roff(o.name) + "\\fR" +
             (o.value.empty() ? "" : " \\fI" + roff(o.value) + "\\fR") + "\n" + roff(o.help) + "\n";
    }
  }
  out += ".SH EXIT STATUS\n";
  for (const auto& [code, what] : std::vector<std::pair<int, const char*>>{
           {exit_code::ok, "success: every solution passed, or the command did what it was asked"},
           {exit_code::findings,
            "the command finished and found what it looks for (a failing solution or baseline, a "
            "bad hash, unreadable input lines)"},
           {exit_code::usage, "bad arguments or unreadable input; nothing was run"},
           {exit_code::environment, "the machine cannot do the job (see kjudge doctor)"},
           {exit_code::judge_error, "some solutions could not be judged (faults of the machine)"},
           {exit_code::interrupted, "interrupted; --resume finishes the run"}})
    out += fmt::format(".TP\n{}\n{}\n", code, roff(what));
  out += ".SH ENVIRONMENT\n";
  for (const auto& [var, what] : std::vector<std::pair<const char*, const char*>>{
           {"KJUDGE_TOKEN", "the API token of kjudge submit and kjudge leaderboards"},
           {"KJUDGE_DATASETS", "where --release finds RELEASE-problems.tar.gz"},
           {"KJUDGE_CACHE_DIR", "the build cache (default ~/.cache/kjudge)"},
           {"KJUDGE_LIBS", "the extra libraries folder (scripts/install-libs; none turns it off)"},
           {"KJUDGE_PYTHON_ENV", "the Python environment of cuda_python problems"},
           {"KJUDGE_PROFILER", "the CUPTI profiler library preloaded into timed programs"},
           {"KJUDGE_MAIN_GUARD", "the main guard preloaded into test programs"},
           {"KJUDGE_TRITON_RUNNER", "the Python runner of kjudge triton eval"}})
    out += fmt::format(".TP\n.B {}\n{}\n", var, roff(what));
  out += ".SH SEE ALSO\n" +
         roff(
             "The README and docs/ (installed in /usr/share/doc/kjudge): docs/computeeval.md, "
             "docs/tasks.md, docs/triton.md, docs/service.md, docs/formats.md.") +
         "\n";
  return out;
}

}  // namespace

void add_manpage_command(CLI::App& app, int& rc) {
  CLI::App* c = app.add_subcommand("man", "Print kjudge(1), the manual page, in roff");
  c->callback([&app, &rc] {
    fmt::print("{}", page(command_tree(app)));
    rc = exit_code::ok;
  });
}

}  // namespace kjudge

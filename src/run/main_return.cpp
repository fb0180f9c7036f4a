#include "run/main_return.h"

#include <elf.h>

#include <charconv>
#include <fstream>
#include <stdexcept>

#include "run/beside_binary.h"

namespace kjudge {

namespace fs = std::filesystem;

fs::path locate_main_guard() {
  fs::path lib = locate_beside_binary("KJUDGE_MAIN_GUARD", "libkjudge_main_guard.so");
  // "none", or a path that names no file: preloading it would fail every run.
  std::error_code ec;
  return !lib.empty() && fs::is_regular_file(lib, ec) ? lib : fs::path();
}

namespace {

// "" when `file` is an ELF64 program with an interpreter (PT_INTERP); else what it is instead.
std::string dynamic_elf_problem(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) ||
      std::string(reinterpret_cast<const char*>(eh.e_ident), SELFMAG) != ELFMAG)
    return "not an ELF program";
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
    return "not an ELF64 program";
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "its program headers are cut";
    if (ph.p_type == PT_INTERP) return "";
  }
  return "statically linked";
}

}  // namespace

std::string main_guard_unfit(const fs::path& workspace, const std::string& argv0) {
  if (argv0.find('/') == std::string::npos) return "the program is looked up on PATH";
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(workspace / argv0, ec);
  const fs::path root = fs::weakly_canonical(workspace, ec);
  if (ec) return "the program's path cannot be resolved";
  const std::string f = file.string(), r = root.string() + "/";
  if (f.compare(0, r.size(), r) != 0) return "the program is outside the workspace";
  if (!fs::is_regular_file(file, ec)) return "the program is not a file in the workspace";
  return dynamic_elf_problem(file);
}

std::string preload_ignored(const fs::path& workspace, const std::string& argv0) {
  const std::string why = main_guard_unfit(workspace, argv0);
  return why == "statically linked" || why == "not an ELF64 program" ||
                 why == "its program headers are cut"
             ? why
             : "";
}

std::optional<int> parse_main_return(const std::string& text, const std::string& nonce) {
  if (text.empty()) return std::nullopt;
  const std::string head = "kjudge-main " + nonce + " returned ";
  if (text.compare(0, head.size(), head) != 0 || text.back() != '\n')
    throw std::runtime_error("the main-return record is not the guard's");
  const std::string rest = text.substr(head.size(), text.size() - head.size() - 1);
  int code = 0;
  auto [end, err] = std::from_chars(rest.data(), rest.data() + rest.size(), code);
  if (err != std::errc() || end != rest.data() + rest.size() || rest.empty())
    throw std::runtime_error("the main-return record's code is not a number");
  return code;
}

std::optional<std::string> main_return_problem(const std::string& text, const std::string& nonce,
                                               int exit_code) {
  if (exit_code != 0) return std::nullopt;
  std::optional<int> code;
  try {
    code = parse_main_return(text, nonce);
  } catch (const std::exception& e) {
    return std::string("the program exited with code 0, but ") + e.what() +
           " (something in the process wrote to the judge's channel)";
  }
  if (!code)
    return "the program exited with code 0 before its main() returned: something called exit() "
           "(or _exit, quick_exit, the exit system call) ahead of the test's own checks";
  if ((*code & 0xFF) != 0)
    return "main() returned " + std::to_string(*code) +
           ", yet the process exited with code 0: an exit handler or destructor changed the "
           "exit status";
  return std::nullopt;
}

MainGuard::MainGuard(fs::path library) : library_(std::move(library)), channel_("kjudge-main") {
  // The nonce travels in the descriptor, never in the environment: bwrap's command line and
  // /proc/<pid>/environ are readable inside the sandbox. The guard takes it and empties the file
  // before any code of the program runs.
  channel_.write_nonce();
}

std::vector<std::string> MainGuard::env() const {
  return {"KJUDGE_MAIN_FD=" + std::to_string(channel_.fd())};
}

std::optional<std::string> MainGuard::problem(int exit_code) const {
  std::string text = channel_.read_all();
  // The nonce still there alone: the guard never took its channel (it did not load), so the run
  // says nothing about main; as with an empty channel, only a zero exit is questioned.
  if (exit_code == 0 && text == channel_.nonce() + "\n")
    return "the program exited with code 0, but the main guard never took its channel (it was "
           "not loaded into the program)";
  return main_return_problem(text, channel_.nonce(), exit_code);
}

}  // namespace kjudge

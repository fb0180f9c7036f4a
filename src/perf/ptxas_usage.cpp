#include "perf/ptxas_usage.h"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

namespace kjudge {

namespace {

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_usage(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::vector<KernelResources> out;
  std::map<std::string, std::size_t> index;  // mangled name → entry in out
  std::string current;                       // the function the last header named
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      current = m[1];
      KernelResources k;
      k.name = demangle(current);
      k.arch = m[2];
      index[current] = out.size();
      out.push_back(k);
    } else if (std::regex_search(line, m, props)) {
      current = m[1];
    } else if (!current.empty() && index.count(current)) {
      KernelResources& k = out[index[current]];
      if (std::regex_search(line, m, frame)) {
        k.stack_bytes = std::stoll(m[1]);
        k.spill_store_bytes = std::stoll(m[2]);
        k.spill_load_bytes = std::stoll(m[3]);
      }
      if (std::regex_search(line, m, used)) k.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers)) k.barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem)) k.shared_bytes = std::stoll(m[1]);
    }
  }
  return out;
}

nlohmann::json to_json(const KernelResources& k) {
  return {{"kernel", k.name},
          {"arch", k.arch},
          {"registers", k.registers},
          {"barriers", k.barriers},
          {"stack_bytes", k.stack_bytes},
          {"spill_store_bytes", k.spill_store_bytes},
          {"spill_load_bytes", k.spill_load_bytes},
          {"shared_bytes", k.shared_bytes}};
}

}  // namespace kjudge

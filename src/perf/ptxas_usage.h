#pragma once
// The resources ptxas reports per kernel with -Xptxas=-v (registers, spills, shared memory),
// shown after every task build: spills and register pressure explain many slow kernels.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge {

struct KernelResources {
  std::string name;  // demangled where possible
  std::string arch;  // "sm_90a"
  int registers = 0;
  int barriers = 0;
  std::int64_t stack_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  std::int64_t shared_bytes = 0;  // static shared memory ("smem")
};

// Parses nvcc -Xptxas=-v output: every "Compiling entry function" with the properties and
// usage lines that follow it. Lines it does not know are skipped.
std::vector<KernelResources> parse_ptxas_usage(const std::string& log);
nlohmann::json to_json(const KernelResources& k);

}  // namespace kjudge

#pragma once
// Loading a TritonBench data folder (the files of thunlp/TritonBench's data/, as copied to
// shared/datasets/tritonbench): statistics, instructions and operator files, joined into one
// TritonOperator per operator. Any inconsistency is an InputError naming file, line or entry,
// and field: a benchmark that silently drops operators would change every score.
#include <filesystem>
#include <optional>
#include <vector>

#include "triton/data/operator.h"

namespace kjudge::triton {

struct TritonBench {
  std::vector<TritonOperator> operators;  // G first, then T, each in the dataset's order

  // By name or file ("add_example", "add_example.py", "torch.div", "div.py"), within `channel`
  // when given. Null when absent.
  const TritonOperator* find(std::string_view key,
                             std::optional<TritonChannel> channel = std::nullopt) const;
};

// The file names inside the folder, as upstream names them.
namespace tritonbench_files {
inline constexpr const char* kGStatistics = "TritonBench_G_v1.json";
inline constexpr const char* kGSimple = "TritonBench_G_simp_alpac_v1.json";
inline constexpr const char* kGComplex = "TritonBench_G_comp_alpac_v1.json";
inline constexpr const char* kTStatistics = "TritonBench_T_v1.jsonl";
inline constexpr const char* kTSimple = "TritonBench_T_simp_alpac_v1.json";
inline constexpr const char* kTComplex = "TritonBench_T_comp_alpac_v1.json";
inline constexpr const char* kOperatorFiles = "TritonBench_operator_files.jsonl";
}  // namespace tritonbench_files

TritonBench load_tritonbench(const std::filesystem::path& dir);

}  // namespace kjudge::triton

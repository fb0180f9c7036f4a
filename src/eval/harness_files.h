#pragma once
// The task harness (harness/ in the source tree), built into the kjudge binary; task builds
// write these files next to the task's own (task/build.h).
#include <string>
#include <vector>

namespace kjudge {

struct HarnessFile {
  std::string name;  // relative path, e.g. "kjudge_harness.cu", "kjudge/tensor.cuh"
  std::string text;
};

const std::vector<HarnessFile>& harness_files();

}  // namespace kjudge

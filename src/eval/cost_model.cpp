#include "eval/cost_model.h"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"

namespace kjudge {

CostModel::CostModel(std::filesystem::path history_file) : file_(std::move(history_file)) {
  try {
    std::ifstream in(file_);
    if (!in) return;
    auto j = nlohmann::json::parse(in);
    for (auto& [task, v] : j.items()) {
      Seen s;
      s.build_s = v.value("build_s", -1.0);
      s.test_s = v.value("test_s", -1.0);
      seen_[task] = s;
    }
  } catch (const std::exception&) {
    seen_.clear();  // a damaged history only costs a worse order
  }
}

double CostModel::guess_build_s(const Problem& p) {
  // Measured on the H100 machine: a plain nvcc build takes a few seconds; one that pulls in
  // CUB/Thrust/libcu++ headers several times that; library links add a little.
  double s = 4.0;
  auto mentions = [&p](const char* needle) {
    auto in = [needle](const std::vector<SourceFile>& files) {
      for (const auto& f : files)
        if (f.content.find(needle) != std::string::npos) return true;
      return false;
    };
    return in(p.context_files) || in(p.test_files) ||
           (p.baseline_solution && in(p.baseline_solution->files));
  };
  if (mentions("<cub/") || mentions("<thrust/") || mentions("<cuda/") ||
      mentions("<cooperative_groups"))
    s += 12.0;
  if (p.build_command) {
    const std::string& b = *p.build_command;
    for (const char* lib :
         {"-lcublas", "-lcudnn", "-lcusolver", "-lcusparse", "-lcufft", "-lcurand"})
      if (b.find(lib) != std::string::npos) s += 1.5;
    if (b.find("-rdc") != std::string::npos) s += 3.0;
  } else {
    s = 0.1;
  }
  return s;
}

double CostModel::expected_build_s(const Problem& p) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = seen_.find(p.task_id);
  if (it != seen_.end() && it->second.build_s >= 0) return it->second.build_s;
  return guess_build_s(p);
}

double CostModel::expected_test_s(const Problem& p) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = seen_.find(p.task_id);
  if (it != seen_.end() && it->second.test_s >= 0) return it->second.test_s;
  return 1.0;
}

void CostModel::observe(const std::string& task_id, double build_s, double test_s) {
  std::lock_guard<std::mutex> lock(mu_);
  Seen& s = seen_[task_id];
  if (build_s >= 0) s.build_s = build_s;
  if (test_s >= 0) s.test_s = test_s;
}

void CostModel::save() const {
  try {
    nlohmann::json j = nlohmann::json::object();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [task, s] : seen_) j[task] = {{"build_s", s.build_s}, {"test_s", s.test_s}};
    }
    std::filesystem::create_directories(file_.parent_path());
    // Shards on several nodes save the same shared file: the temp name is this process's alone.
    write_file_atomically(file_, j.dump(1));
  } catch (const std::exception&) {
  }
}

}  // namespace kjudge

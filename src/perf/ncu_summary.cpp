#include "perf/ncu_summary.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace kjudge {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

double NcuKernel::value(const std::string& metric, double fallback) const {
  auto it = metrics.find(metric);
  return it != metrics.end() && it->second.numeric ? it->second.value : fallback;
}

std::vector<NcuKernel> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  // ncu prints its own "==PROF==" lines and the program's output around the table: the table
  // starts at the header row.
  while (std::getline(in, line)) {
    if (line.rfind("\"ID\",", 0) == 0) {
      header = split_csv_line(line);
      break;
    }
  }
  if (header.empty()) throw std::runtime_error("no Nsight Compute CSV table in the output");
  auto col = [&](const std::string& name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int c_id = col("ID"), c_name = col("Kernel Name"), c_block = col("Block Size"),
            c_grid = col("Grid Size"), c_metric = col("Metric Name"), c_unit = col("Metric Unit"),
            c_value = col("Metric Value");
  if (c_id < 0 || c_name < 0 || c_metric < 0 || c_value < 0)
    throw std::runtime_error(
        "the Nsight Compute table lacks ID, Kernel Name, Metric Name or "
        "Metric Value columns");
  std::vector<NcuKernel> out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;
    std::vector<std::string> f = split_csv_line(line);
    // Metric rows stop after the value; the rule columns (Rule Name, Estimated Speedup, ...)
    // are filled only on the rule rows, which name no metric.
    const int needed = std::max({c_id, c_name, c_block, c_grid, c_metric, c_unit, c_value});
    if (static_cast<int>(f.size()) <= needed || f[c_metric].empty()) continue;
    if (out.empty() || out.back().id != f[c_id]) {
      NcuKernel k;
      k.id = f[c_id];
      k.name = f[c_name];
      if (c_block >= 0) k.block = f[c_block];
      if (c_grid >= 0) k.grid = f[c_grid];
      out.push_back(k);
    }
    NcuMetric m;
    m.unit = c_unit >= 0 ? f[c_unit] : "";
    m.text = f[c_value];
    std::string digits;
    for (char c : m.text)
      if (c != ',') digits += c;
    char* end = nullptr;
    m.value = std::strtod(digits.c_str(), &end);
    m.numeric = !digits.empty() && *end == '\0';
    out.back().metrics[f[c_metric]] = m;
  }
  return out;
}

nlohmann::json summarize_ncu(const std::vector<NcuKernel>& kernels) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : kernels) {
    nlohmann::json j = {{"kernel", k.name}, {"block", k.block}, {"grid", k.grid}};
    auto put = [&](const char* key, const std::string& metric) {
      auto it = k.metrics.find(metric);
      if (it == k.metrics.end()) return;
      if (it->second.numeric)
        j[key] = it->second.value;
      else
        j[key] = it->second.text;
      if (!it->second.unit.empty()) j[std::string(key) + "_unit"] = it->second.unit;
    };
    put("duration", "Duration");
    put("compute_throughput_pct", "Compute (SM) Throughput");
    put("memory_throughput_pct", "Memory Throughput");
    put("dram_throughput_pct", "DRAM Throughput");
    put("achieved_occupancy_pct", "Achieved Occupancy");
    put("theoretical_occupancy_pct", "Theoretical Occupancy");
    put("registers_per_thread", "Registers Per Thread");
    put("static_shared_bytes", "Static Shared Memory Per Block");
    put("dynamic_shared_bytes", "Dynamic Shared Memory Per Block");
    put("waves_per_sm", "Waves Per SM");
    out.push_back(j);
  }
  return out;
}

}  // namespace kjudge

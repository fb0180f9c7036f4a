#pragma once
// Nsight Compute's answer for one profiled call of custom_kernel, summarised per kernel:
// duration, compute and memory throughput (% of peak), occupancy (achieved and theoretical),
// registers per thread, shared memory, launch shape. Read from
// `ncu --csv --page details --print-units base` output, by column name (ncu versions add
// columns).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge {

struct NcuMetric {
  std::string unit;
  std::string text;  // as ncu printed it
  double value = 0;  // parsed, thousands separators dropped; 0 when not a number
  bool numeric = false;
};

struct NcuKernel {
  std::string id, name, block, grid;
  std::map<std::string, NcuMetric> metrics;  // by "Metric Name"

  // The metric's value, or `fallback` when ncu did not report it.
  double value(const std::string& metric, double fallback = -1) const;
};

// Throws std::runtime_error when the text holds no ncu CSV table.
std::vector<NcuKernel> parse_ncu_csv(const std::string& text);

// The summary kjudge shows: the metrics named above, per kernel.
nlohmann::json summarize_ncu(const std::vector<NcuKernel>& kernels);

// Splits one CSV line (quotes, doubled quotes inside them).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace kjudge

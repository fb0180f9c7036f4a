#pragma once
// Lets `--config FILE.yaml` set any option, CLI11 applying the command line on top. A nested
// map names the subcommand: `evaluate: {workers: 8, k: [1, 3]}`; a key may use '-' or '_'.
#include <CLI/CLI.hpp>

namespace kjudge {

class YamlConfig : public CLI::Config {
 public:
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;
};

}  // namespace kjudge

#pragma once
// Lets `--config FILE.yaml` set any option, CLI11 applying the command line on top. A nested
// map names the subcommand: `evaluate: {workers: 8, k: [1, 3]}`; a key may use '-' or '_'.
#include <CLI/CLI.hpp>
#include <string>

namespace kjudge {

class YamlConfig : public CLI::Config {
 public:
  // CLI11 hands the formatter a stream, not the file's name; errors name `file`.
  explicit YamlConfig(std::string file) : file_(std::move(file)) {}

  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;

 private:
  std::string file_;
};

// The value of --config on this command line ("" when absent), found before CLI11 parses so
// that the file can be checked (a regular file, bounded) before CLI11 opens it: opening a FIFO
// would block.
std::string config_file_in(int argc, char** argv);

}  // namespace kjudge

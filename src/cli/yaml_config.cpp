#include "cli/yaml_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>

namespace kjudge {
namespace {

std::string option_name(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

void flatten(const YAML::Node& node, std::vector<std::string>& parents,
             std::vector<CLI::ConfigItem>& out) {
  for (const auto& kv : node) {
    std::string key = option_name(kv.first.as<std::string>());
    const YAML::Node& v = kv.second;
    if (v.IsMap()) {
      parents.push_back(key);
      flatten(v, parents, out);
      parents.pop_back();
      continue;
    }
    CLI::ConfigItem item;
    item.parents = parents;
    item.name = key;
    if (v.IsSequence()) {
      for (const auto& e : v) item.inputs.push_back(e.as<std::string>());
    } else if (v.IsNull()) {
      continue;
    } else {
      item.inputs.push_back(v.as<std::string>());
    }
    out.push_back(std::move(item));
  }
}

}  // namespace

std::string YamlConfig::to_config(const CLI::App* app, bool default_also, bool, std::string) const {
  // Writing configs is not offered; the TOML writer would produce something CLI11 can read back.
  CLI::ConfigTOML toml;
  return toml.to_config(app, default_also, false, "");
}

std::vector<CLI::ConfigItem> YamlConfig::from_config(std::istream& input) const {
  std::stringstream ss;
  ss << input.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(ss.str());
  } catch (const YAML::Exception& e) {
    throw CLI::ConversionError("config", "line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  std::vector<CLI::ConfigItem> items;
  if (root.IsNull()) return items;
  if (!root.IsMap()) throw CLI::ConversionError("config", "the top level must be a map of options");
  std::vector<std::string> parents;
  try {
    flatten(root, parents, items);
  } catch (const YAML::Exception& e) {
    throw CLI::ConversionError("config", "line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return items;
}

}  // namespace kjudge

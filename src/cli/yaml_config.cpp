#include "cli/yaml_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "core/input_error.h"
#include "core/yaml_load.h"

namespace kjudge {
namespace {

std::string option_name(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

void flatten(const std::string& file, const YAML::Node& node, std::vector<std::string>& parents,
             std::vector<CLI::ConfigItem>& out) {
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) throw InputError(file, line_of(kv.first), "", "keys must be names");
    std::string key = option_name(kv.first.Scalar());
    const YAML::Node& v = kv.second;
    if (v.IsMap()) {
      parents.push_back(key);
      flatten(file, v, parents, out);
      parents.pop_back();
      continue;
    }
    CLI::ConfigItem item;
    item.parents = parents;
    item.name = key;
    if (v.IsSequence()) {
      for (const auto& e : v) {
        if (!e.IsScalar())
          throw InputError(file, line_of(e), item.fullname(), "list items must be single values");
        item.inputs.push_back(e.Scalar());
      }
    } else if (v.IsNull()) {
      continue;
    } else {
      item.inputs.push_back(v.Scalar());
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
  const YamlBounds bounds;
  // One byte past the bound is enough to know the file is too large.
  std::string text;
  std::istreambuf_iterator<char> it(input), end;
  for (; it != end && text.size() <= bounds.max_bytes; ++it) text += *it;
  const YAML::Node root = load_yaml_text(text, file_, bounds);
  std::vector<CLI::ConfigItem> items;
  if (root.IsNull())
    throw InputError(file_, 0, "", "the config file is empty (a map of options was expected)");
  if (!root.IsMap())
    throw InputError(file_, line_of(root), "", "the top level must be a map of options");
  std::vector<std::string> parents;
  flatten(file_, root, parents, items);
  return items;
}

std::string config_file_in(int argc, char** argv) {
  std::string file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--config" && i + 1 < argc)
      file = argv[++i];
    else if (arg.starts_with("--config="))
      file = std::string(arg.substr(9));
  }
  return file;
}

}  // namespace kjudge

#pragma once
// The one way the judge reads YAML a user wrote (problem-spec.yaml, solution.yaml, task.yml,
// --config files). yaml-cpp keeps an alias as a reference to its anchor, so a 1 KiB file of
// nested aliases is a tree of billions of nodes to whoever walks it; the loader walks it first,
// counting every node as often as aliases repeat it, and refuses it past a bound. Every failure
// is an InputError naming the file and, where yaml-cpp knows it, the line.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <filesystem>
#include <string>

namespace kjudge {

struct YamlBounds {
  std::size_t max_bytes = std::size_t{4} << 20;  // a long prompt is tens of KiB
  std::size_t max_nodes = 100000;                // aliases expanded; real specs have < 1000
};

YAML::Node load_yaml_file(const std::filesystem::path& file, const YamlBounds& bounds = {});

// `name` is what errors call the text (the file it came from).
YAML::Node load_yaml_text(const std::string& text, const std::string& name,
                          const YamlBounds& bounds = {});

}  // namespace kjudge

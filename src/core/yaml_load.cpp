#include "core/yaml_load.h"

#include "core/input_error.h"
#include "core/read_file.h"

namespace kjudge {
namespace {

int line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }

class NodeCounter {
 public:
  NodeCounter(const std::string& name, std::size_t max_nodes)
      : name_(name), max_nodes_(max_nodes) {}

  // Visits the tree as a reader converting it would, so the count is what that reader pays.
  void visit(const YAML::Node& node) {
    if (++count_ > max_nodes_)
      throw InputError(name_, line_of(node.Mark()), "",
                       "the document has more than " + std::to_string(max_nodes_) +
                           " nodes once its aliases are expanded; refused (an alias bomb?)");
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) visit(item);
    } else if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        visit(it->first);
        visit(it->second);
      }
    }
  }

 private:
  const std::string& name_;
  std::size_t max_nodes_;
  std::size_t count_ = 0;
};

}  // namespace

YAML::Node load_yaml_text(const std::string& text, const std::string& name,
                          const YamlBounds& bounds) {
  if (text.size() > bounds.max_bytes)
    throw InputError(name, 0, "",
                     "YAML file is larger than " + std::to_string(bounds.max_bytes) + " bytes");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(name, line_of(e.mark), "", "invalid YAML: " + e.msg);
  }
  NodeCounter(name, bounds.max_nodes).visit(root);
  return root;
}

YAML::Node load_yaml_file(const std::filesystem::path& file, const YamlBounds& bounds) {
  return load_yaml_text(read_input_file(file, bounds.max_bytes), file.string(), bounds);
}

}  // namespace kjudge

#pragma once
// One test or benchmark case as the harness receives it: the task.yml argument map, one line
// `name: value; name: value` (the judge writes the seed already combined with any secret).
// Plain C++: the judge's tests parse the same lines.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

namespace kj {

class Spec {
 public:
  static Spec parse(const std::string& line) {
    Spec s;
    s.text_ = line;
    std::size_t i = 0;
    while (i < line.size()) {
      std::size_t end = line.find(';', i);
      if (end == std::string::npos) end = line.size();
      std::string item = line.substr(i, end - i);
      i = end + 1;
      std::size_t colon = item.find(':');
      if (item.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (colon == std::string::npos) throw std::runtime_error("case item without ':': " + item);
      s.args_[trim(item.substr(0, colon))] = trim(item.substr(colon + 1));
    }
    return s;
  }

  bool has(const std::string& name) const { return args_.count(name) != 0; }
  const std::string& get_str(const std::string& name) const {
    auto it = args_.find(name);
    if (it == args_.end()) throw std::runtime_error("the case has no argument '" + name + "'");
    return it->second;
  }
  std::int64_t get_int(const std::string& name) const {
    const std::string& v = get_str(name);
    char* end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0')
      throw std::runtime_error("argument '" + name + "' is not an integer: " + v);
    return x;
  }
  // The case's seed (0 when it has none).
  std::uint64_t seed() const {
    if (!has("seed")) return 0;
    const std::string& v = get_str("seed");
    char* end = nullptr;
    unsigned long long x = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') throw std::runtime_error("seed is not an integer: " + v);
    return x;
  }
  void set_seed(std::uint64_t seed) { args_["seed"] = std::to_string(seed); }
  const std::map<std::string, std::string>& args() const { return args_; }
  // The case as the task wrote it (before any repetition changed the seed).
  const std::string& text() const { return text_; }

 private:
  static std::string trim(const std::string& s) {
    std::size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    std::size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
  }
  std::map<std::string, std::string> args_;
  std::string text_;
};

}  // namespace kj

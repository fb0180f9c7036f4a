// Finding the API key (environment, then a .env file) and keeping it out of messages.
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

#include "core/text.h"
#include "gen/chat.h"

namespace kjudge {
namespace {

std::vector<std::string> key_names(const std::string& provider) {
  if (provider == "openai") return {"OPENAI_API_KEY", "NEMO_API_KEY"};
  if (provider == "anthropic") return {"ANTHROPIC_API_KEY"};
  throw std::invalid_argument("unknown chat provider '" + provider + "'");
}

// The value of one dotenv line's right-hand side: single-quoted (literal), double-quoted (a
// backslash escapes the next character) or bare, where " #" starts a comment.
std::string dotenv_value(const std::string& raw) {
  std::string v = trim(raw);
  if (!v.empty() && (v[0] == '"' || v[0] == '\'')) {
    char quote = v[0];
    std::string out;
    for (size_t i = 1; i < v.size() && v[i] != quote; ++i) {
      if (quote == '"' && v[i] == '\\' && i + 1 < v.size()) ++i;
      out += v[i];
    }
    return out;
  }
  if (size_t hash = v.find(" #"); hash != std::string::npos) v = trim(v.substr(0, hash));
  return v;
}

// Every NAME=value the file sets; the last line for a name wins, as when a shell sources it.
std::map<std::string, std::string> read_dotenv(const std::filesystem::path& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("export ", 0) == 0) t = trim(t.substr(7));
    size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    out[trim(t.substr(0, eq))] = dotenv_value(t.substr(eq + 1));
  }
  return out;
}

}  // namespace

std::optional<std::string> find_api_key(const std::string& provider,
                                        const std::filesystem::path& dotenv) {
  std::vector<std::string> names = key_names(provider);
  for (const std::string& name : names)
    if (const char* v = std::getenv(name.c_str()); v && *v) return std::string(v);
  std::error_code ec;
  if (dotenv.empty() || !std::filesystem::is_regular_file(dotenv, ec)) return std::nullopt;
  std::map<std::string, std::string> file = read_dotenv(dotenv);
  for (const std::string& name : names)
    if (auto it = file.find(name); it != file.end() && !it->second.empty()) return it->second;
  return std::nullopt;
}

std::string redact_key(const std::string& key) {
  // Short keys would be mostly given away by any visible part.
  if (key.size() < 16) return key.empty() ? "" : "…";
  size_t dash = key.find('-');
  std::string prefix = dash != std::string::npos && dash < 8 ? key.substr(0, dash + 1) : "";
  return prefix + "…" + key.substr(key.size() - 4);
}

}  // namespace kjudge

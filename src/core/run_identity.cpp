// The one run fingerprint and --resume check (core/run_identity.h).
#include "core/run_identity.h"

#include <algorithm>

#include "core/input_error.h"
#include "core/sha256.h"

namespace kjudge {

ItemFingerprint& ItemFingerprint::add(std::string_view key, std::string_view content) {
  std::string item(key);
  item += separator_;
  item += content;
  items_.push_back(std::move(item));
  return *this;
}

std::string ItemFingerprint::hex() const {
  std::vector<std::string> sorted = items_;
  std::sort(sorted.begin(), sorted.end());
  Sha256 all;
  for (const auto& i : sorted) all.update(i).update("\n");
  return all.hex();
}

std::vector<IdentityDifference> identity_differences(const nlohmann::ordered_json& was,
                                                     const nlohmann::ordered_json& now,
                                                     std::span<const IdentityField> fields) {
  using oj = nlohmann::ordered_json;
  std::vector<IdentityDifference> out;
  auto compare = [&](const std::string& key) {
    const auto a = was.find(key);
    const auto b = now.find(key);
    const oj va = a == was.end() ? oj() : *a;
    const oj vb = b == now.end() ? oj() : *b;
    if (va == vb) return;
    const IdentityField* f = nullptr;
    for (const auto& x : fields)
      if (key == x.field) f = &x;
    if (f && f->hash)
      out.push_back({key, f->option});
    else
      out.push_back({key, std::string(f ? f->option : key.c_str()) + " (was " + va.dump() +
                              ", now " + vb.dump() + ")"});
  };
  if (now.is_object())
    for (auto it = now.begin(); it != now.end(); ++it) compare(it.key());
  if (was.is_object())
    for (auto it = was.begin(); it != was.end(); ++it)
      if (!now.contains(it.key())) compare(it.key());
  return out;
}

nlohmann::ordered_json identity_part(const nlohmann::ordered_json& was,
                                     const nlohmann::ordered_json& now) {
  nlohmann::ordered_json part = nlohmann::ordered_json::object();
  if (!was.is_object()) return part;
  for (auto it = now.begin(); it != now.end(); ++it)
    if (was.contains(it.key())) part[it.key()] = was[it.key()];
  return part;
}

void check_run_identity(const std::filesystem::path& run_file, const std::filesystem::path& run_dir,
                        const nlohmann::ordered_json& was, const nlohmann::ordered_json& now,
                        std::span<const IdentityField> fields, const std::string& error_field) {
  const std::vector<IdentityDifference> diffs = identity_differences(was, now, fields);
  if (diffs.empty()) return;
  std::string text;
  for (const auto& d : diffs) text += (text.empty() ? "" : "; ") + d.text;
  throw InputError(run_file.string(), 0, error_field.empty() ? diffs.front().field : error_field,
                   "--resume: " + run_dir.string() + " holds another run: " + text +
                       " differ from the run being resumed. Resume it with the options it was "
                       "started with, or choose another --out");
}

}  // namespace kjudge

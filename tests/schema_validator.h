#pragma once
// A JSON Schema validator for the tests, covering the part of JSON Schema 2020-12 that
// docs/schemas/ uses: type, enum, required, properties, additionalProperties, items, allOf and
// local $ref. A schema keyword it does not check fails the test rather than passing unchecked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace kjudge::testing {

using nlohmann::json;

class SchemaValidator {
 public:
  explicit SchemaValidator(json root) : root_(std::move(root)) {}

  // Every violation, as "path: what".
  std::vector<std::string> errors(const json& value) const {
    std::vector<std::string> out;
    check(root_, value, "$", out);
    return out;
  }

 private:
  static bool has_type(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    ADD_FAILURE() << "the validator does not know type " << t;
    return false;
  }

  const json& resolve(const std::string& ref) const {
    if (ref.rfind("#/", 0) != 0) ADD_FAILURE() << "only local $ref are supported: " << ref;
    return root_.at(json::json_pointer(ref.substr(1)));
  }

  void check(const json& s, const json& v, const std::string& path,
             std::vector<std::string>& out) const {
    for (auto& [key, val] : s.items())
      if (!kKnown.count(key)) ADD_FAILURE() << "schema keyword '" << key << "' is not validated";
    if (s.contains("$ref")) check(resolve(s["$ref"]), v, path, out);
    if (s.contains("allOf"))
      for (const auto& sub : s["allOf"]) check(sub, v, path, out);
    if (s.contains("type")) {
      std::vector<std::string> types = s["type"].is_array()
                                           ? s["type"].get<std::vector<std::string>>()
                                           : std::vector<std::string>{s["type"]};
      bool ok = false;
      for (const auto& t : types) ok = ok || has_type(v, t);
      if (!ok) {
        out.push_back(path + ": is " + std::string(v.type_name()) + ", not " + s["type"].dump());
        return;
      }
    }
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s["enum"]) found = found || e == v;
      if (!found) out.push_back(path + ": " + v.dump() + " not in " + s["enum"].dump());
    }
    if (v.is_object()) {
      for (const auto& r : s.value("required", json::array()))
        if (!v.contains(r.get<std::string>())) out.push_back(path + ": lacks " + r.dump());
      for (auto& [key, item] : v.items()) {
        if (s.contains("properties") && s["properties"].contains(key))
          check(s["properties"][key], item, path + "." + key, out);
        else if (s.contains("additionalProperties") && s["additionalProperties"].is_object())
          check(s["additionalProperties"], item, path + "." + key, out);
        else if (s.contains("additionalProperties") && s["additionalProperties"] == false)
          out.push_back(path + ": unexpected key " + key);
      }
    }
    if (v.is_array() && s.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i)
        check(s["items"], v[i], path + "[" + std::to_string(i) + "]", out);
  }

  inline static const std::set<std::string> kKnown = {"$schema",
                                                      "$id",
                                                      "title",
                                                      "$defs",
                                                      "$ref",
                                                      "allOf",
                                                      "type",
                                                      "enum",
                                                      "required",
                                                      "properties",
                                                      "additionalProperties",
                                                      "items"};
  json root_;
};

}  // namespace kjudge::testing

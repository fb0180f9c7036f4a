#pragma once
// Text into HTML: everything a model or a person wrote (prompts, solutions, logs, task names)
// goes through html_escape before it reaches a page; data for scripts goes through
// script_json, so that no string can end the <script> element it sits in.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/html_escape.h"

namespace kjudge::report {

using kjudge::html_escape;

// JSON for inside <script>: "<", ">" and "&" written as \u escapes.
std::string script_json(const nlohmann::json& j);

// At most `limit` bytes of `text`: its head and its tail, the cut marked with what was left out.
// Cuts fall on UTF-8 character boundaries.
std::string head_tail(std::string_view text, std::size_t limit);

}  // namespace kjudge::report

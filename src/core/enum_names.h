#pragma once
// The enumerator a name stands for, given the function that names each one: for enums whose
// enumerators count up from 0 and whose naming function answers "?" for the first value past
// them (triton_verdict_name, triton_run_status_name).
#include <optional>
#include <string_view>

namespace kjudge {

template <typename Enum, typename NameOf>
std::optional<Enum> enum_from_name(std::string_view name, NameOf name_of) {
  for (int i = 0;; ++i) {
    const auto e = static_cast<Enum>(i);
    const std::string_view n = name_of(e);
    if (n == "?") return std::nullopt;
    if (n == name) return e;
  }
}

}  // namespace kjudge

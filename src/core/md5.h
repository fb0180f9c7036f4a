#pragma once
// MD5 exists here only because ComputeEval identifies each problem of a pack by the MD5 of its
// JSONL line; nothing in the judge relies on it for security.
#include <string>
#include <string_view>

namespace kjudge {

// Lower-case hex digest (32 characters).
std::string md5_hex(std::string_view data);

}  // namespace kjudge

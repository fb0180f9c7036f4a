#pragma once
// What a run is, so that `--resume` never mixes two runs in one journal (issue 33: one run
// fingerprint, one resume check). Every resumable run (validate|evaluate|run, generate, triton
// eval) records an identity of named fields in its run file; on --resume the identity of the
// command is compared with the recorded one, and a difference is refused naming each differing
// field by the option it comes from, with both values (or, for a hash, the option alone).
// ItemFingerprint is the one hash of a set of jobs: order-independent over (key, content) items.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge {

// A hash of a set of (key, content) items that does not depend on their order: each item is the
// line "key<separator>content", the lines are sorted and hashed (SHA-256, hex) one after another,
// each followed by a newline. The separator is part of the value, so runs recorded by earlier
// versions keep their fingerprint (":" for validate|evaluate jobs, "\n" for Triton jobs).
class ItemFingerprint {
 public:
  explicit ItemFingerprint(std::string separator = "\n") : separator_(std::move(separator)) {}
  ItemFingerprint& add(std::string_view key, std::string_view content);
  std::size_t size() const { return items_.size(); }
  std::string hex() const;

 private:
  std::string separator_;
  std::vector<std::string> items_;
};

// How a field of an identity is named to the user.
struct IdentityField {
  const char* field;   // the key in the identity
  const char* option;  // the option (or input) it comes from
  bool hash = false;   // a hash: name the option only, its values say nothing
};

// The differing fields of `was` (recorded) and `now`, `now`'s order first, then fields only `was`
// has; each rendered "OPTION (was X, now Y)" ("OPTION" alone for a hash; the field's own name
// where `fields` lacks it). Empty when they are the same.
struct IdentityDifference {
  std::string field;
  std::string text;
};
std::vector<IdentityDifference> identity_differences(const nlohmann::ordered_json& was,
                                                     const nlohmann::ordered_json& now,
                                                     std::span<const IdentityField> fields);

// `was` with only the fields `now` has: for run files that record other things beside the
// identity (start times, options a resumed run may change).
nlohmann::ordered_json identity_part(const nlohmann::ordered_json& was,
                                     const nlohmann::ordered_json& now);

// The one --resume refusal: throws InputError(run_file, 0, FIELD, "--resume: RUN_DIR holds
// another run: DIFFERENCES differ from the run being resumed. Resume it with the options it was
// started with, or choose another --out") when `was` and `now` differ. FIELD is `error_field`, or,
// when that is empty, the differing field (the first of them).
void check_run_identity(const std::filesystem::path& run_file, const std::filesystem::path& run_dir,
                        const nlohmann::ordered_json& was, const nlohmann::ordered_json& now,
                        std::span<const IdentityField> fields, const std::string& error_field = "");

}  // namespace kjudge

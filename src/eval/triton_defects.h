#pragma once
// TritonBench operators whose own test is broken: a reference that cannot agree with itself
// because of its test (a race the test sets up, memory it never initializes, writes past its
// tensors), not because of floating point. The table (triton_defect_table.cpp) says, per
// operator, what is wrong and what the judge does about it; `kjudge triton eval` applies it
// unless --keep-defective (docs/triton.md, "Operators whose own tests are broken").
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/triton_operator.h"
#include "eval/tensor_file.h"

namespace kjudge {

enum class TritonDefectAction {
  // The operator is not run at all: each candidate's verdict is `excluded`, counted in no
  // accuracy (docs/triton.md).
  exclude,
  // These entries of the test's result are not compared, in the reference's self-check nor
  // against any candidate.
  skip_entries,
  // In test-mode runs (reference and candidate alike) the runner makes torch.empty and its
  // family return zero-filled tensors, installed before the operator and test code run.
  zero_fill,
};

std::string_view triton_defect_action_name(TritonDefectAction a);

struct TritonDefect {
  TritonChannel channel = TritonChannel::G;
  std::string op;  // the operator's name (the file's stem for G)
  TritonDefectAction action = TritonDefectAction::exclude;
  std::vector<std::string> entries;  // skip_entries: names of the test's result ("test_case_6")
  std::string reason;                // what is wrong, in a few words, with lines of the file
};

// The compiled-in table (triton_defect_table.cpp).
const std::vector<TritonDefect>& triton_defects();

// The row of `table` for `op`, or null.
const TritonDefect* find_triton_defect(const std::vector<TritonDefect>& table,
                                       const TritonOperator& op);

// Whether the result entry `name` falls under one of `entries`: the name itself, or a leaf
// inside it ("test_case_3.x", "test_case_3[0]", "test_case_3#2").
bool triton_entry_skipped(const std::vector<std::string>& entries, const std::string& name);

// Removes the entries a skip_entries row names from `outputs`; returns how many were removed.
std::size_t remove_skipped_entries(const std::vector<std::string>& entries, OutputSet& outputs);

// {operator, action, entries, reason}; `operator` is "G/name".
nlohmann::ordered_json triton_defect_json(const TritonDefect& d);

// [{entry, reason}] of a skip_entries row (empty for the others).
nlohmann::ordered_json triton_skipped_entries_json(const TritonDefect& d);

}  // namespace kjudge

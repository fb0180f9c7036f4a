#pragma once
// TritonBench operators whose own test is broken: a reference that cannot agree with itself
// because of its test (a race the test sets up, memory it never initializes, writes past its
// tensors), not because of floating point. The table (triton/judge/defect_table.cpp) says, per
// operator, what is wrong and what the judge does about it; `kjudge triton eval` applies it
// unless --keep-defective (docs/triton.md, "Operators whose own tests are broken").
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triton/data/operator.h"
#include "triton/outputs/tensor_file.h"

namespace kjudge::triton {

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
  // In test-mode runs (reference and candidate alike) the runner keeps, of each call of the
  // entry `entry`, only the arguments at the positions `args` (after the call), under a cap of
  // its own (TritonEntryArgs::max_bytes): an operator that writes its output into an argument
  // and whose calls are too large for the whole-call capture is judged on that argument.
  entry_args,
};

std::string_view triton_defect_action_name(TritonDefectAction a);

struct TritonDefect {
  TritonDefect() = default;
  // A row as the table writes it; only entry_args rows name an entry and its arguments.
  TritonDefect(TritonChannel in, std::string name, TritonDefectAction what,
               std::vector<std::string> skipped, std::string why, std::string fn = {},
               std::vector<int> kept = {}, std::vector<int> unjudged = {})
      : channel(in),
        op(std::move(name)),
        action(what),
        entries(std::move(skipped)),
        reason(std::move(why)),
        entry(std::move(fn)),
        args(std::move(kept)),
        sites(std::move(unjudged)) {}

  TritonChannel channel = TritonChannel::G;
  std::string op;  // the operator's name (the file's stem for G)
  TritonDefectAction action = TritonDefectAction::exclude;
  std::vector<std::string> entries;  // skip_entries: names of the test's result ("test_case_6")
  std::string reason;                // what is wrong, in a few words, with lines of the file
  // entry_args: the entry function as the runner names it ("matmul") and the positions of the
  // arguments of its calls to keep ({0}: args[0]).
  std::string entry;
  std::vector<int> args;
  // skip_entries: the call sites (0-based, the test's entry calls in order) whose timed calls
  // are not compared either: those behind the skipped entries, where the defect lies in what
  // the call reads (a timed call's fresh inputs move what lies past them). They are still timed.
  std::vector<int> sites;
};

// The compiled-in table (triton/judge/defect_table.cpp).
const std::vector<TritonDefect>& triton_defects();

// The row of `table` for `op`, or null.
const TritonDefect* find_triton_defect(const std::vector<TritonDefect>& table,
                                       const TritonOperator& op);

// Whether the result entry `name` falls under one of `entries`: the name itself, or a leaf
// inside it ("test_case_3.x", "test_case_3[0]", "test_case_3#2").
bool triton_entry_skipped(const std::vector<std::string>& entries, const std::string& name);

// Removes the entries a skip_entries row names from `outputs`; returns how many were removed.
std::size_t remove_skipped_entries(const std::vector<std::string>& entries, OutputSet& outputs);

// "args[3]", "args[0]": the names an entry_args row's kept arguments have in the entry calls.
std::vector<std::string> triton_kept_arg_names(const TritonDefect& d);

// "skip_entries test_case_3, test_case_4" / "exclude" / "entry_args matmul args[0]": a row in
// a few words.
std::string triton_defect_brief(const TritonDefect& d);

// {operator, action, entries, reason}, and for entry_args {entry, args}; `operator` is
// "G/name".
nlohmann::ordered_json triton_defect_json(const TritonDefect& d);

// [{entry, reason}] of a skip_entries row (empty for the others).
nlohmann::ordered_json triton_skipped_entries_json(const TritonDefect& d);

}  // namespace kjudge::triton

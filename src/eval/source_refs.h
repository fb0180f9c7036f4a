#pragma once
// Checks that a solution uses the APIs a problem demands (ComputeEval's `source_references`).
//
// ComputeEval's rule (FileSolution.verify_source_references + utils/parsing.py): each solution
// file whose language it can guess is parsed with tree-sitter, and an occurrence of a ref counts
// only where the exact bytes coincide with a whole syntax node that is not an error, an "extra"
// (comment) or a missing node. Context files are never searched.
//
// We reproduce that without tree-sitter: a small lexer per language family marks the bytes that
// are comments, string/char literals or #include paths, and an occurrence counts when
//   * it overlaps no comment and no include path, and cuts no string literal in two (a ref that
//     contains a whole literal, like `printf("x")`, may match; one inside a literal may not);
//   * it does not cut an identifier: when the ref begins (ends) with [A-Za-z0-9_], the byte
//     before (after) it is not one. So `cudaMalloc` is not found in `cudaMallocAsync`.
// Whitespace is never normalised: tree-sitter compares original bytes, so `cub :: DeviceReduce`
// does not contain `cub::DeviceReduce`, here or there.
//
// Where this differs from tree-sitter, and why we chose so. During development this rule was
// compared with ComputeEval's own (tree-sitter-language-pack 0.9.1) on every file of the 2025-1/2/3
// packs (baselines, context and tests: 1373 files, ~140k file/ref pairs): every difference fell
// in one of the classes below, and none involved a ref that a pack actually demands.
//   * Parts of qualified and member names. tree-sitter-cpp nests `a::b::c` to the right (a, then
//     b::c), so `cub::DeviceReduce` is no node inside `cub::DeviceReduce::Sum`, while
//     `DeviceReduce::Sum` is; member access (`a.b.c`, `a->b`) and Python attributes nest to the
//     left, so there `b.c` is no node; `thrust::cuda::par.on` holds no `par.on` node. We accept
//     every token-aligned part: each is a genuine use of the named entity, and which side a
//     grammar nests on says nothing about the API.
//   * Names followed by template arguments. `thrust::copy<int>(...)` parses as
//     scope `thrust` + template_function `copy<int>`, so ComputeEval finds no `thrust::copy`
//     there; nor `thrust::device_vector` in `thrust::device_vector<int>`. We find both: a ref
//     such as `thrust::device_vector` is almost always written with template arguments, and
//     failing it would punish the very use the problem asks for.
//   * Directive arguments. tree-sitter keeps a #define body (`#define F thrust::sort(a, b)`)
//     or a #pragma argument as one opaque preproc_arg token, so nothing inside it matches
//     unless the whole body equals the ref. We search them as code: a call made through a macro
//     is still a call.
//   * Literal contents equal to the ref. tree-sitter gives `"cudaMalloc"` a string_content child
//     (and `'x'` a character child), so a literal whose whole content is the ref counts there,
//     `#include "foo.h"` counting for `foo.h` too. Here no part of a literal counts: naming an
//     API in a string does not use it. Include paths are never searched; for `<cub/cub.cuh>`
//     that agrees with tree-sitter (one system_lib_string node, so `cub` never matches there),
//     and so does skipping the directive word (`#include` is one token, `include` no node).
//   * Refs that do not start or end on a token boundary in tree-sitter's sense (e.g. `.fetch_add`
//     or `Sum(`) may match here; ComputeEval needs a single node. No pack has such refs.
//   * An empty ref is never found (ComputeEval loops forever on one).
//   * Parse errors: tree-sitter rejects matches inside ERROR nodes, i.e. code its grammar cannot
//     parse, valid or not; we never parse, so all code is searched alike.
//   * File types: ComputeEval guesses any of ~150 languages from GitHub linguist's tables (a ref
//     inside a shell script or Makefile would count there). We search only C/C++/CUDA and
//     Python files, by extension; other files are not searched.
// Agreed, not different: the `{expr}` parts of a Python f-string are code to both, and so are
// #if conditions.
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.h"

namespace kjudge {

struct SourceRefCheck {
  bool passed = true;
  std::vector<std::string> missing_all;  // refs of `all` found in no solution file, in order
  bool any_missing = false;              // `any` is non-empty and none of its refs was found
};

SourceRefCheck check_source_references(const SourceReferences& refs,
                                       const std::vector<SourceFile>& solution_files);

// Whether `ref` occurs as code in a file at `path`; false for file types we do not search.
bool contains_reference(std::string_view path, std::string_view content, std::string_view ref);

}  // namespace kjudge

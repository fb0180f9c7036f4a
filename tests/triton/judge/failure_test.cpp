// The paper's failure classes from fixed runner reports: one example per table row, the
// ambiguous ones (Triton's CompilationError wrapping another exception, old Triton's ValueError
// for undefined names, KeyError), the judge's own timeouts and crashes, and the counts per
// difficulty.
#include "triton/judge/failure.h"

#include <gtest/gtest.h>

namespace kjudge::triton {
namespace {

FailureClass cls(const std::string& stage, const std::string& type, const std::string& message,
                 bool mismatch = false) {
  return classify_failure({stage, type, message, mismatch}).cls;
}

TEST(TritonFailure, PlainPythonExceptionsByTable) {
  EXPECT_EQ(cls("import", "SyntaxError", "invalid syntax (candidate.py, line 12)"),
            FailureClass::syntax);
  EXPECT_EQ(cls("import", "IndentationError", "unexpected indent"), FailureClass::syntax);
  EXPECT_EQ(cls("import", "TabError", "inconsistent use of tabs"), FailureClass::syntax);
  EXPECT_EQ(cls("call", "AttributeError", "module 'triton.language' has no attribute 'libdevice'"),
            FailureClass::attribute_type);
  EXPECT_EQ(cls("call", "TypeError", "add() got an unexpected keyword argument 'alpha'"),
            FailureClass::attribute_type);
  EXPECT_EQ(cls("call", "NameError", "name 'BLOCK' is not defined"), FailureClass::name_reference);
  EXPECT_EQ(cls("call", "UnboundLocalError", "local variable 'y' referenced before assignment"),
            FailureClass::name_reference);
  EXPECT_EQ(cls("import", "ImportError", "cannot import name 'matmul' from 'triton.ops'"),
            FailureClass::name_reference);
  EXPECT_EQ(cls("import", "ModuleNotFoundError", "No module named 'triton.ops'"),
            FailureClass::name_reference);
  EXPECT_EQ(cls("call", "KeyError", "'N'"), FailureClass::name_reference);
  EXPECT_EQ(cls("call", "RuntimeError", "CUDA error: an illegal memory access was encountered"),
            FailureClass::runtime_logic);
  EXPECT_EQ(cls("call", "AssertionError", ""), FailureClass::runtime_logic);
  EXPECT_EQ(cls("call", "ValueError", "arange's range must be a power of 2"),
            FailureClass::runtime_logic);
  EXPECT_EQ(cls("call", "IndexError", "tuple index out of range"), FailureClass::runtime_logic);
  EXPECT_EQ(cls("call", "torch.cuda.OutOfMemoryError", "CUDA out of memory"),
            FailureClass::runtime_logic);
  EXPECT_EQ(cls("call", "triton.runtime.errors.OutOfResources",
                "out of resource: shared memory, Required: 262144, Hardware limit: 232448"),
            FailureClass::runtime_logic);
}

TEST(TritonFailure, QualifiedAndReprSpellingsReadTheSame) {
  EXPECT_EQ(cls("call", "builtins.NameError", "x"), FailureClass::name_reference);
  EXPECT_EQ(cls("call", "<class 'TypeError'>", "x"), FailureClass::attribute_type);
  EXPECT_EQ(cls("call", "  SyntaxError  ", "x"), FailureClass::syntax);
  FailureClassification c = classify_failure({"call", "builtins.KeyError", "'N'", false});
  EXPECT_EQ(c.cause, "KeyError");
}

TEST(TritonFailure, UnknownClassesFallIntoTheCatchAllWithTheirName) {
  FailureClassification c =
      classify_failure({"call", "torch._dynamo.exc.Unsupported", "generator", false});
  EXPECT_EQ(c.cls, FailureClass::runtime_logic);
  EXPECT_EQ(c.cause, "Unsupported");
  EXPECT_NE(c.rule.find("catch-all"), std::string::npos) << c.rule;
}

// Triton 3.x: the code generator raises CompilationError(src, node, repr(e)), so the message is
// the source excerpt followed by the original exception's repr.
TEST(TritonFailure, CompilationErrorIsClassifiedByWhatItWraps) {
  const std::string type = "triton.compiler.errors.CompilationError";
  FailureClassification name = classify_failure(
      {"call", type,
       "at 10:16:\n    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
       "                ^\nNameError('BLOCK is not defined')",
       false});
  EXPECT_EQ(name.cls, FailureClass::name_reference);
  EXPECT_EQ(name.cause, "NameError");
  EXPECT_NE(name.rule.find("CompilationError wrapping NameError"), std::string::npos) << name.rule;

  EXPECT_EQ(cls("call", type,
                "at 3:11:\n    y = tl.libdevice.tanh(x)\n           ^\nAttributeError(\"module "
                "'triton.language' has no attribute 'libdevice'\")"),
            FailureClass::attribute_type);
  EXPECT_EQ(cls("call", type,
                "at 5:8:\n    acc += a * b\n        ^\nIncompatibleTypeErrorImpl('invalid "
                "operands of type pointer<fp32> and triton.language.float32')"),
            FailureClass::attribute_type);
  EXPECT_EQ(cls("call", type,
                "at 7:4:\n    tl.static_assert(BLOCK % 16 == 0)\n    ^\n"
                "AssertionError('BLOCK must be a multiple of 16')"),
            FailureClass::runtime_logic);
  // The excerpt may itself mention an exception class; the repr at the end decides.
  EXPECT_EQ(cls("call", type,
                "at 4:8:\n    raise TypeError(\"unreachable\")\n        ^\n"
                "NameError('foo is not defined')"),
            FailureClass::name_reference);
  // Nothing recognisable inside: the catch-all, not a guess.
  FailureClassification bare = classify_failure(
      {"call", type, "at 2:4:\n    return\n    ^\nCannot call @triton.jit'd outside", false});
  EXPECT_EQ(bare.cls, FailureClass::runtime_logic);
  EXPECT_EQ(bare.cause, "CompilationError");
}

TEST(TritonFailure, UnsupportedConstructIsSyntax) {
  EXPECT_EQ(cls("call", "triton.compiler.errors.UnsupportedLanguageConstruct",
                "at 6:8:\n        break\n        ^\nunsupported AST node type: Break"),
            FailureClass::syntax);
  // Also when it is the class named inside a CompilationError.
  EXPECT_EQ(cls("call", "CompilationError",
                "at 1:0:\nUnsupportedLanguageConstruct('unsupported AST node type: Lambda')"),
            FailureClass::syntax);
}

// Triton before 3.0 reported an undefined name in a kernel as ValueError("x is not defined").
TEST(TritonFailure, OldTritonValueErrorForUndefinedNamesIsANameError) {
  EXPECT_EQ(cls("call", "CompilationError",
                "at 4:12:\n    x = tl.load(X + offs)\n            ^\nValueError('offs is not "
                "defined')"),
            FailureClass::name_reference);
  EXPECT_EQ(cls("call", "ValueError", "BLOCK_SIZE is not defined"), FailureClass::name_reference);
  EXPECT_EQ(cls("call", "ValueError", "shapes are not compatible"), FailureClass::runtime_logic);
}

TEST(TritonFailure, TimeoutsAndCrashesAreRuntime) {
  for (const char* t : {"timeout", "Timeout", "TimeoutError", "subprocess.TimeoutExpired"}) {
    FailureClassification c = classify_failure({"call", t, "", false});
    EXPECT_EQ(c.cls, FailureClass::runtime_logic) << t;
    EXPECT_EQ(c.cause, "timeout") << t;
  }
  for (const char* t : {"crash", "signal", "signal 11", "SIGSEGV", "SIGKILL"}) {
    FailureClassification c = classify_failure({"call", t, "", false});
    EXPECT_EQ(c.cls, FailureClass::runtime_logic) << t;
    EXPECT_EQ(c.cause, "crash") << t;
  }
  EXPECT_EQ(classify_failure({"timeout", "", "", false}).cause, "timeout");
  EXPECT_EQ(classify_failure({"crash", "", "", false}).cause, "crash");
  // "SIGNAL_X" style names that are not signals are not crashes.
  EXPECT_EQ(classify_failure({"call", "SIGnature", "", false}).cause, "SIGnature");
}

TEST(TritonFailure, MismatchesAreTheirOwnClass) {
  EXPECT_EQ(cls("compare", "", "", true), FailureClass::result_mismatch);
  EXPECT_EQ(cls("compare", "", "shape_mismatch: [4] vs [4, 1]"), FailureClass::result_mismatch);
  EXPECT_EQ(cls("", "", "", true), FailureClass::result_mismatch);
  // An exception is what went wrong first, even with a mismatch flag.
  EXPECT_EQ(cls("compare", "TypeError", "expected a Tensor, got tuple", true),
            FailureClass::attribute_type);
}

TEST(TritonFailure, NoExceptionNoMismatchIsNone) {
  FailureClassification c = classify_failure({"call", "", "", false});
  EXPECT_EQ(c.cls, FailureClass::none);
  EXPECT_EQ(classify_failure({}).cls, FailureClass::none);
}

TEST(TritonFailure, UnnamedFailureIsReadFromItsTraceback) {
  const std::string tb =
      "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
      "    import candidate\n  File \"candidate.py\", line 7\n    def f(:\n          ^\n"
      "SyntaxError: invalid syntax\n";
  FailureClassification c = classify_failure({"import", "", tb, false});
  EXPECT_EQ(c.cls, FailureClass::syntax);
  EXPECT_EQ(c.cause, "SyntaxError");
  EXPECT_EQ(cls("call", "", "something went wrong"), FailureClass::runtime_logic);
}

TEST(TritonFailure, VerdictsOfTritonEval) {
  RunnerErrorReport name{"call", "NameError", "name 'x' is not defined", false};
  EXPECT_EQ(classify_triton_verdict("call_error", name)->cls, FailureClass::name_reference);
  EXPECT_EQ(classify_triton_verdict("pass", {})->cls, FailureClass::none);
  EXPECT_EQ(classify_triton_verdict("mismatch", {})->cls, FailureClass::result_mismatch);
  EXPECT_EQ(classify_triton_verdict("timed_mismatch", {})->cls, FailureClass::result_mismatch);
  EXPECT_EQ(classify_triton_verdict("timed_mismatch", {})->cause, "timed_mismatch");
  EXPECT_EQ(classify_triton_verdict("timeout", {})->cause, "timeout");
  EXPECT_EQ(classify_triton_verdict("crash", {})->cls, FailureClass::runtime_logic);
  EXPECT_EQ(classify_triton_verdict("refused", {})->cause, "refused");
  // Neither says anything about the candidate.
  EXPECT_FALSE(classify_triton_verdict("reference_failed", name));
  EXPECT_FALSE(classify_triton_verdict("judge_error", name));
  EXPECT_FALSE(classify_triton_verdict("reference_unstable", name));
  EXPECT_FALSE(classify_triton_verdict("no_output", name));
  EXPECT_FALSE(classify_triton_verdict("weird", name));
}

TEST(TritonFailure, NamesAndTitles) {
  EXPECT_EQ(failure_class_name(FailureClass::attribute_type), "attribute_type");
  EXPECT_EQ(failure_class_name(FailureClass::result_mismatch), "result_mismatch");
  EXPECT_EQ(failure_class_title(FailureClass::name_reference), "Name and reference");
  EXPECT_EQ(failure_class_title(FailureClass::runtime_logic), "Runtime and logic");
}

TEST(TritonFailure, CountsPerDifficulty) {
  FailureCounts counts = count_failures({{1, FailureClass::none},
                                         {1, FailureClass::syntax},
                                         {3, FailureClass::result_mismatch},
                                         {3, FailureClass::result_mismatch},
                                         {3, FailureClass::name_reference},
                                         {5, FailureClass::runtime_logic}});
  EXPECT_EQ(counts.count(1, FailureClass::syntax), 1);
  EXPECT_EQ(counts.count(1, FailureClass::none), 1);
  EXPECT_EQ(counts.count(3, FailureClass::result_mismatch), 2);
  EXPECT_EQ(counts.count(2, FailureClass::syntax), 0);
  EXPECT_EQ(counts.total[static_cast<int>(FailureClass::result_mismatch)], 2);
  nlohmann::json j = counts.to_json();
  EXPECT_EQ(j["total"]["runtime_logic"], 1);
  EXPECT_EQ(j["total"]["attribute_type"], 0) << "every class is present, zeros included";
  EXPECT_EQ(j["by_difficulty"]["3"]["name_reference"], 1);
  EXPECT_EQ(j["by_difficulty"]["5"]["runtime_logic"], 1);
  EXPECT_FALSE(j["by_difficulty"].contains("2"));
  int sum = 0;
  for (const auto& [k, v] : j["by_difficulty"]["3"].items()) sum += v.get<int>();
  EXPECT_EQ(sum, 3) << "a row sums to the runs at that difficulty";
}

}  // namespace
}  // namespace kjudge::triton

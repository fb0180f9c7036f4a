// ptxas -v output (as nvcc 13.0 printed it for examples/tasks/vectoradd) into per-kernel usage.
#include "perf/ptxas_usage.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

const char* kLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z8add_tailPKfS0_Pfll' for 'sm_90a'
ptxas info    : Function properties for _Z8add_tailPKfS0_Pfll
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 2.587 ms
ptxas info    : Compiling entry function '_Z5tiledPK6__halfS1_Pfiii' for 'sm_90a'
ptxas info    : Function properties for _Z5tiledPK6__halfS1_Pfiii
    24 bytes stack frame, 16 bytes spill stores, 20 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 8192 bytes smem, 396 bytes cmem[0]
ptxas info    : Compile time = 10.509 ms
)";

TEST(PtxasUsage, OneEntryPerKernel) {
  auto ks = parse_ptxas_usage(kLog);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "add_tail(float const*, float const*, float*, long, long)");
  EXPECT_EQ(ks[0].arch, "sm_90a");
  EXPECT_EQ(ks[0].registers, 12);
  EXPECT_EQ(ks[0].spill_store_bytes, 0);
  EXPECT_EQ(ks[1].registers, 255);
  EXPECT_EQ(ks[1].barriers, 1);
  EXPECT_EQ(ks[1].shared_bytes, 8192);
  EXPECT_EQ(ks[1].stack_bytes, 24);
  EXPECT_EQ(ks[1].spill_store_bytes, 16);
  EXPECT_EQ(ks[1].spill_load_bytes, 20);
  EXPECT_EQ(to_json(ks[1])["spill_load_bytes"], 20);
}

TEST(PtxasUsage, NothingFromOtherOutput) {
  EXPECT_TRUE(parse_ptxas_usage("").empty());
  EXPECT_TRUE(
      parse_ptxas_usage("submission.cu(3): error: identifier \"x\" is undefined\n").empty());
}

}  // namespace
}  // namespace kjudge

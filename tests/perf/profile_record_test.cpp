#include "perf/profile_record.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace kjudge {
namespace {

// CUPTI timestamps are nanoseconds on the host's clock, in the 1e18 range today.
constexpr std::uint64_t kT0 = 1718012345000000000ULL;
constexpr const char* kNonce = "8f3a1c9e5b7d2046";
constexpr const char* kAdd = "void add<float>(float const*, float*, int)";
constexpr const char* kScale = "void (anonymous namespace)::scale_kernel<__half, 4>(__half*, int)";

std::string k_line(std::uint64_t start, std::uint64_t end, std::uint64_t launch, int tid,
                   int stream, int corr, const std::string& name) {
  return "K " + std::to_string(start) + " " + std::to_string(end) + " " + std::to_string(launch) +
         " " + std::to_string(tid) + " 0 1 " + std::to_string(stream) + " " + std::to_string(corr) +
         " " + name + "\n";
}

// What the profiler writes for a region benchmark: inputs copied in, a memset, three warm-up
// launches, then an NVTX range "bench_region" in which the main thread and a side thread launch
// 100 kernels on streams 7 and 13, and the result copied out. Activity arrives per CUPTI buffer,
// so K and M lines are not in time order, and the range comes last (written when popped).
std::string region_record(const std::string& nonce = kNonce) {
  std::string t = "KJPROF 1 " + nonce + "\n";
  t += "APP " + std::to_string(kT0) + " " + std::to_string(kT0 + 950'000'000) + "\n";
  int corr = 100;
  t += "M " + std::to_string(kT0 + 200'000'000) + " " + std::to_string(kT0 + 200'410'000) + " " +
       std::to_string(kT0 + 199'990'000) + " 48213 HtoD 4194304 0 1 7 " + std::to_string(corr++) +
       "\n";
  t += "M " + std::to_string(kT0 + 200'500'000) + " " + std::to_string(kT0 + 200'502'000) + " " +
       std::to_string(kT0 + 200'495'000) + " 48213 memset 4194304 0 1 7 " + std::to_string(corr++) +
       "\n";
  for (int i = 0; i < 3; ++i) {
    std::uint64_t s = kT0 + 201'000'000 + i * 20'000;
    t += k_line(s, s + 12'000, s - 4'000, 48213, 7, corr++, kAdd);
  }
  const std::uint64_t r0 = kT0 + 300'000'000;
  for (int i = 0; i < 100; ++i) {
    std::uint64_t launch = r0 + 1'000 + i * 10'000;
    int tid = i % 2 == 0 ? 48213 : 48220;
    int stream = i % 2 == 0 ? 7 : 13;
    t += k_line(launch + 6'000, launch + 14'000, launch, tid, stream, corr++,
                i % 4 == 3 ? kScale : kAdd);
  }
  t += "M " + std::to_string(r0 + 1'100'000) + " " + std::to_string(r0 + 1'500'000) + " " +
       std::to_string(r0 + 1'050'000) + " 48213 DtoH 4194304 0 1 7 " + std::to_string(corr++) +
       "\n";
  t += "R " + std::to_string(r0) + " " + std::to_string(r0 + 1'020'000) + " 48213 bench_region\n";
  t += "END 107\n";
  return t;
}

ProfileError parse_error(const std::string& text, const std::string& nonce = kNonce) {
  try {
    parse_profile_record(text, nonce);
  } catch (const ProfileError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ProfileError for:\n" << text;
  return ProfileError(0, "");
}

void expect_error(const std::string& text, int line, const std::string& words) {
  ProfileError e = parse_error(text);
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_NE(std::string(e.what()).find(words), std::string::npos)
      << "message \"" << e.what() << "\" lacks \"" << words << "\"";
  EXPECT_NE(std::string(e.what()).find("line " + std::to_string(line)), std::string::npos)
      << e.what();
}

const std::string kHead = std::string("KJPROF 1 ") + kNonce + "\n";

TEST(ProfileRecord, ParsesARegionBenchmark) {
  ProfileRecord r = parse_profile_record(region_record(), kNonce);
  EXPECT_EQ(r.nonce, kNonce);
  EXPECT_EQ(r.app_start_ns, kT0);
  EXPECT_EQ(r.app_end_ns, kT0 + 950'000'000);
  ASSERT_EQ(r.kernels.size(), 103u);
  ASSERT_EQ(r.copies.size(), 3u);
  ASSERT_EQ(r.ranges.size(), 1u);
  EXPECT_EQ(r.dropped, 0u);

  const KernelRecord& warm = r.kernels[0];
  EXPECT_EQ(warm.name, kAdd);
  EXPECT_EQ(warm.start_ns, kT0 + 201'000'000);
  EXPECT_EQ(warm.end_ns, kT0 + 201'012'000);
  EXPECT_EQ(warm.launch_ns, kT0 + 200'996'000);
  EXPECT_EQ(warm.launch_tid, 48213u);
  EXPECT_EQ(warm.device, 0u);
  EXPECT_EQ(warm.context, 1u);
  EXPECT_EQ(warm.stream, 7u);
  EXPECT_EQ(warm.correlation, 102u);

  const KernelRecord& side = r.kernels[3 + 3];
  EXPECT_EQ(side.name, kScale) << "a name keeps its spaces, parentheses and template arguments";
  EXPECT_EQ(side.launch_tid, 48220u);
  EXPECT_EQ(side.stream, 13u);

  EXPECT_EQ(r.copies[0].kind, "HtoD");
  EXPECT_EQ(r.copies[0].bytes, 4194304u);
  EXPECT_EQ(r.copies[0].launch_tid, 48213u);
  EXPECT_EQ(r.copies[0].correlation, 100u);
  EXPECT_EQ(r.copies[1].kind, "memset");
  EXPECT_EQ(r.copies[2].kind, "DtoH");
  EXPECT_EQ(r.copies[2].end_ns - r.copies[2].start_ns, 400'000u);

  EXPECT_EQ(r.ranges[0].name, "bench_region");
  EXPECT_EQ(r.ranges[0].tid, 48213u);
  EXPECT_EQ(r.ranges[0].end_ns - r.ranges[0].start_ns, 1'020'000u);
}

TEST(ProfileRecord, AcceptsAnyNonceWhenNoneIsExpected) {
  ProfileRecord r = parse_profile_record(region_record("other"), "");
  EXPECT_EQ(r.nonce, "other");
}

TEST(ProfileRecord, OptionalPartsAndOddButValidLines) {
  std::string t = kHead +
                  "K 10 20 0 0 0 1 7 1 _Z6kernelPfi\n"  // launch unknown; a mangled name
                  "K 30 30 25 7 1 2 3 2 k  with  two  spaces \n"
                  "R 5 40 9 \n"                     // NVTX allows an empty message
                  "R 5 40 9 outer range: step 1\n"  // names may contain anything but newlines
                  "M 50 60 0 0 PtoP 1 0 1 7 3\n"
                  "M 61 62 0 0 other 0 0 1 7 4\n"
                  "DROPPED 17\n"
                  "END 6";  // no final newline: the file ends where the writer stopped
  ProfileRecord r = parse_profile_record(t, kNonce);
  EXPECT_EQ(r.app_start_ns, 0u) << "no APP line";
  EXPECT_EQ(r.app_end_ns, 0u);
  EXPECT_EQ(r.dropped, 17u);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].launch_ns, 0u);
  EXPECT_EQ(r.kernels[0].name, "_Z6kernelPfi");
  EXPECT_EQ(r.kernels[1].name, "k  with  two  spaces ");
  EXPECT_EQ(r.kernels[1].device, 1u);
  ASSERT_EQ(r.ranges.size(), 2u);
  EXPECT_EQ(r.ranges[0].name, "");
  EXPECT_EQ(r.ranges[1].name, "outer range: step 1");
  EXPECT_EQ(r.copies[0].kind, "PtoP");
  EXPECT_EQ(r.copies[1].kind, "other");
}

TEST(ProfileRecord, AnEmptyProgramStillHasARecord) {
  ProfileRecord r = parse_profile_record(kHead + "APP 100 200\nEND 0\n", kNonce);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_EQ(r.app_end_ns - r.app_start_ns, 100u);
}

TEST(ProfileRecord, RejectsBadHeaders) {
  expect_error("", 1, "empty record");
  expect_error("\n", 1, "bad header");
  expect_error("KJPROFX 1 abc\nEND 0\n", 1, "bad header");
  expect_error("APP 1 2\nEND 0\n", 1, "bad header");
  expect_error("KJPROF 2 " + std::string(kNonce) + "\nEND 0\n", 1, "version 2");
  expect_error("KJPROF 1\nEND 0\n", 1, "missing nonce");
  expect_error("KJPROF 1 " + std::string(kNonce) + " extra\nEND 0\n", 1, "after the last field");
}

TEST(ProfileRecord, RejectsAnotherRunsNonce) {
  expect_error(region_record("0000000000000000"), 1, "forged or foreign record");
  // A record forged by the program under test, appended after the real one, is a second header.
  expect_error(region_record() + region_record(), 111, "second header");
}

TEST(ProfileRecord, RejectsMalformedLines) {
  struct Case {
    std::string line;
    std::string words;
  };
  const Case cases[] = {
      {"K 10 20 0 0 0 1 7 1", "missing name"},
      {"K 10 20 0 0 0 1 7 1 ", "empty name"},
      {"K 10 20 0 0 0 1 7", "missing correlation"},
      {"K 10 2x 0 0 0 1 7 1 k", "bad end_ns \"2x\""},
      {"K -10 20 0 0 0 1 7 1 k", "bad start_ns"},
      {"K +10 20 0 0 0 1 7 1 k", "bad start_ns"},
      {"K 10  20 0 0 0 1 7 1 k", "empty end_ns"},
      {"K 10 20 0 4294967296 0 1 7 1 k", "bad launch_tid"},
      {"K 10 20 0 0 0 1 7 1.5 k", "bad correlation"},
      {"K 99999999999999999999 1 0 0 0 1 7 1 k", "bad start_ns"},
      {"M 10 20 0 0 HtoA 8 0 1 7 1", "unknown copy kind \"HtoA\""},
      {"M 10 20 0 0 HtoD 8 0 1 7", "missing correlation"},
      {"M 10 20 0 0 HtoD 8 0 1 7 1 extra", "after the last field"},
      {"R 10 20", "missing tid"},
      {"R 10 20 5", "missing name"},
      {"APP 10", "missing end_ns"},
      {"APP 10 20 30", "after the last field"},
      {"DROPPED", "missing count"},
      {"DROPPED many", "bad count"},
      {"X 1 2", "unknown record type \"X\""},
      {"k 10 20 0 0 0 1 7 1 k", "unknown record type"},
      {"", "missing record type"},
      {" K 10 20 0 0 0 1 7 1 k", "empty record type"},
      {"END", "missing count"},
      {"END 0 0", "after the last field"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    expect_error(kHead + "K 1 2 0 0 0 1 7 1 k\n" + c.line + "\nEND 2\n", 3, c.words);
  }
}

TEST(ProfileRecord, RejectsSpansThatEndBeforeTheyStart) {
  expect_error(kHead + "APP 20 10\nEND 0\n", 2, "ends before it starts");
  expect_error(kHead + "K 20 19 0 0 0 1 7 1 k\nEND 1\n", 2, "ends before it starts");
  expect_error(kHead + "M 20 19 0 0 DtoD 8 0 1 7 1\nEND 1\n", 2, "ends before it starts");
  expect_error(kHead + "R 20 19 1 r\nEND 1\n", 2, "ends before it starts");
}

TEST(ProfileRecord, RejectsRecordsCutShort) {
  std::string full = region_record();
  std::string no_end = full.substr(0, full.rfind("END"));
  expect_error(no_end, 109, "record cut short");
  // Cut anywhere in the kernel lines, mid-line or not: the last line is the one reported.
  for (std::size_t cut = full.size() / 3; cut < full.size() / 3 + 120; cut += 7) {
    std::string part = full.substr(0, cut);
    int last_line = static_cast<int>(std::count(part.begin(), part.end(), '\n')) +
                    (part.back() == '\n' ? 0 : 1);
    expect_error(part, last_line, "record cut short");
  }
  expect_error(kHead + "K 1 2 0 0 0 1 7 1 k\nK 3 4 0 0 0 1", 3,
               "record cut short in the middle of a line (missing stream)");
  // A writer that lost lines but still wrote END.
  std::string lost = kHead + "K 1 2 0 0 0 1 7 1 k\nR 0 5 1 r\nEND 3\n";
  expect_error(lost, 4, "record cut short");
  expect_error(kHead + "K 1 2 0 0 0 1 7 1 k\nEND 0\n", 3, "END counts 0 items but 1 precede it");
}

TEST(ProfileRecord, RejectsTextAfterEndAndRepeatedLines) {
  expect_error(kHead + "END 0\nK 1 2 0 0 0 1 7 1 k\n", 3, "text after END");
  expect_error(kHead + "END 0\n\n", 3, "text after END");
  expect_error(kHead + "END 0\nEND 0\n", 3, "text after END");
  expect_error(kHead + "APP 1 2\nAPP 1 2\nEND 0\n", 3, "second APP");
  expect_error(kHead + "DROPPED 1\nDROPPED 1\nEND 0\n", 3, "second DROPPED");
  expect_error(kHead + "K 1 2 0 0 0 1 7 1 k\n" + kHead + "END 1\n", 3, "second header");
}

}  // namespace
}  // namespace kjudge

// The private result channel (run/result_channel.h) and the seal the task harness puts on its
// report (harness/kjudge_harness.cu, write_report): once sealed, nothing that runs afterwards in
// the harness's process (a solution's static destructors, exit handlers or threads) can change
// the report; a solution that sealed the channel first, or holds a writable mapping of it, makes
// the harness's seal fail, and the harness then fails the run rather than leave a report the
// solution could still change. These are the kernel's semantics the harness relies on, on the
// judge's own memfd.
#include "run/result_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace kjudge {
namespace {

constexpr int kHarnessSeals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

TEST(ResultChannel, NonceIsFreshAndRoundTrips) {
  ResultChannel a("kjudge-test"), b("kjudge-test");
  EXPECT_EQ(a.nonce().size(), 32u);
  EXPECT_EQ(a.nonce().find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a.nonce(), b.nonce());
  a.write_nonce();
  EXPECT_EQ(a.read_all(), a.nonce() + "\n");
}

TEST(ResultChannel, AMovedChannelKeepsItsFileAndNonce) {
  ResultChannel a("kjudge-test");
  const int fd = a.fd();
  const std::string nonce = a.nonce();
  ASSERT_EQ(pwrite(fd, "x\n", 2, 0), 2);
  ResultChannel b(std::move(a));
  EXPECT_EQ(b.fd(), fd);
  EXPECT_EQ(b.nonce(), nonce);
  EXPECT_EQ(b.read_all(), "x\n");
  EXPECT_EQ(a.fd(), -1) << "the moved-from one owns nothing, and closes nothing";
  ResultChannel c("kjudge-test");
  const int old = c.fd();
  c = std::move(b);
  EXPECT_EQ(c.fd(), fd);
  EXPECT_EQ(fcntl(old, F_GETFD), -1) << "the channel it held before is closed";
  EXPECT_EQ(c.read_all(), "x\n");
}

TEST(ResultChannel, ASealedReportCannotBeChanged) {
  ResultChannel ch("kjudge-test");
  const std::string report = "KJ1 n check pass\nKJ1 n end 1\n";
  ASSERT_EQ(write(ch.fd(), report.data(), report.size()), static_cast<ssize_t>(report.size()));
  ASSERT_EQ(fcntl(ch.fd(), F_ADD_SEALS, kHarnessSeals), 0) << "the memfd must allow sealing";
  // What a solution's exit handler would try with the channel's descriptor.
  errno = 0;
  EXPECT_EQ(write(ch.fd(), "x", 1), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(ftruncate(ch.fd(), 0), 0);
  EXPECT_EQ(pwrite(ch.fd(), "KJ1 n check fail\n", 17, 0), -1);
  EXPECT_NE(fcntl(ch.fd(), F_ADD_SEALS, 0), 0) << "F_SEAL_SEAL: no seal can be taken back";
  EXPECT_EQ(ch.read_all(), report);
}

TEST(ResultChannel, ASolutionThatSealsFirstMakesTheHarnessSealFail) {
  ResultChannel ch("kjudge-test");
  ASSERT_EQ(fcntl(ch.fd(), F_ADD_SEALS, F_SEAL_SEAL), 0);
  EXPECT_NE(fcntl(ch.fd(), F_ADD_SEALS, kHarnessSeals), 0);
}

TEST(ResultChannel, AWritableMappingMakesTheHarnessSealFail) {
  ResultChannel ch("kjudge-test");
  ASSERT_EQ(ftruncate(ch.fd(), 4096), 0);
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ch.fd(), 0);
  ASSERT_NE(map, MAP_FAILED);
  errno = 0;
  EXPECT_NE(fcntl(ch.fd(), F_ADD_SEALS, kHarnessSeals), 0);
  EXPECT_EQ(errno, EBUSY);
  munmap(map, 4096);
  EXPECT_EQ(fcntl(ch.fd(), F_ADD_SEALS, kHarnessSeals), 0) << "without the mapping it seals";
}

}  // namespace
}  // namespace kjudge

#include "record_writer.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "run/preload_channel.h"

namespace kjudge::profiler {

namespace {

class Line {
 public:
  explicit Line(std::string& out) : out_(out) {}
  Line& word(std::string_view text) {
    out_ += text;
    out_ += ' ';
    return *this;
  }
  // By hand: no call a program's own definition could take (run/raw_syscall.h).
  Line& number(std::uint64_t value) {
    char digits[24];
    const std::size_t n =
        kjudge::raw::format_decimal(digits, static_cast<unsigned long long>(value));
    return word(std::string_view(digits, n));
  }
  // The rest of the line: may be empty, may hold spaces, never a line break.
  void rest(std::string_view text) {
    for (char c : text) out_ += (c == '\n' || c == '\r') ? ' ' : c;
    out_ += '\n';
  }
  void finish() { out_.back() = '\n'; }

 private:
  std::string& out_;
};

std::string demangle(const std::string& name) {
  int status = 0;
  char* readable = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || readable == nullptr) return name;  // extern "C" kernels are not mangled
  std::string out = readable;
  std::free(readable);
  return out;
}

std::string_view copy_kind(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHtoD:
      return "HtoD";
    case CopyKind::kDtoH:
      return "DtoH";
    case CopyKind::kDtoD:
      return "DtoD";
    case CopyKind::kHtoH:
      return "HtoH";
    case CopyKind::kPtoP:
      return "PtoP";
    case CopyKind::kMemset:
      return "memset";
    case CopyKind::kOther:
      break;
  }
  return "other";
}

// The call that launched a record, by correlation id; the earliest where both a runtime call
// and the driver call inside it carry the id.
class Launches {
 public:
  explicit Launches(std::vector<ApiRecord>& calls) : calls_(calls) {
    std::sort(calls_.begin(), calls_.end(), [](const ApiRecord& a, const ApiRecord& b) {
      return a.correlation != b.correlation ? a.correlation < b.correlation : a.start < b.start;
    });
  }
  const ApiRecord* find(std::uint32_t correlation) const {
    if (correlation == 0) return nullptr;
    auto it = std::lower_bound(
        calls_.begin(), calls_.end(), correlation,
        [](const ApiRecord& call, std::uint32_t id) { return call.correlation < id; });
    return it != calls_.end() && it->correlation == correlation ? &*it : nullptr;
  }
  const ApiRecord* find(std::uint32_t first, std::uint32_t second) const {
    const ApiRecord* a = find(first);
    const ApiRecord* b = find(second);
    if (a == nullptr) return b;
    if (b == nullptr) return a;
    return b->start < a->start ? b : a;
  }

 private:
  std::vector<ApiRecord>& calls_;
};

template <typename Record>
void sort_by_start(std::vector<Record>& records) {
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.start < b.start; });
}

}  // namespace

std::string format_record(std::string_view nonce, std::uint64_t app_start, std::uint64_t app_end,
                          Profile& profile) {
  sort_by_start(profile.kernels);
  sort_by_start(profile.copies);
  sort_by_start(profile.ranges);
  Launches launches(profile.api_calls);
  std::vector<std::string> names;
  names.reserve(profile.kernel_names.size());
  for (const auto& name : profile.kernel_names) names.push_back(demangle(name));

  std::string out;
  out.reserve(160 * (profile.kernels.size() + profile.copies.size() + profile.ranges.size()) + 128);
  Line(out).word("KJPROF").word("1").rest(nonce);
  Line(out).word("APP").number(app_start).number(app_end).finish();
  for (const auto& k : profile.kernels) {
    const ApiRecord* launch = launches.find(k.correlation);
    Line(out)
        .word("K")
        .number(k.start)
        .number(k.end)
        .number(launch != nullptr ? launch->start : 0)
        .number(launch != nullptr ? launch->tid : 0)
        .number(k.device)
        .number(k.context)
        .number(k.stream)
        .number(k.correlation)
        .rest(names[k.name]);
  }
  for (const auto& m : profile.copies) {
    const ApiRecord* launch = launches.find(m.correlation, m.runtime_correlation);
    Line(out)
        .word("M")
        .number(m.start)
        .number(m.end)
        .number(launch != nullptr ? launch->start : 0)
        .number(launch != nullptr ? launch->tid : 0)
        .word(copy_kind(m.kind))
        .number(m.bytes)
        .number(m.device)
        .number(m.context)
        .number(m.stream)
        .number(m.correlation != 0 ? m.correlation : m.runtime_correlation)
        .finish();
  }
  for (const auto& r : profile.ranges) {
    Line(out).word("R").number(r.start).number(r.end).number(r.tid).rest(r.name);
  }
  Line(out).word("DROPPED").number(profile.dropped).finish();
  Line(out)
      .word("END")
      .number(profile.kernels.size() + profile.copies.size() + profile.ranges.size())
      .finish();
  return out;
}

}  // namespace kjudge::profiler

#include "perf/profile_record.h"

#include <charconv>
#include <limits>
#include <string_view>

namespace kjudge {
namespace {

constexpr const char* kSecondHeader = "a second header: two records written into one file";

// The fields of one line, taken from the left one at a time.
class Fields {
 public:
  Fields(std::string_view line, int line_no) : rest_(line), line_no_(line_no) {}

  std::string_view word(const char* what) {
    if (rest_.empty()) fail(std::string("missing ") + what);
    std::size_t sp = rest_.find(' ');
    std::string_view w = rest_.substr(0, sp);
    if (w.empty()) fail(std::string("empty ") + what + " (fields are separated by one space)");
    rest_ = sp == std::string_view::npos ? std::string_view() : rest_.substr(sp + 1);
    at_end_ = sp == std::string_view::npos;
    return w;
  }

  std::uint64_t u64(const char* what) {
    return number(what, std::numeric_limits<std::uint64_t>::max());
  }
  std::uint32_t u32(const char* what) {
    return static_cast<std::uint32_t>(number(what, std::numeric_limits<std::uint32_t>::max()));
  }

  // The rest of the line, spaces and all. It must be introduced by a separator, so that a line
  // cut just after its last number is not read as having an empty name.
  std::string name(bool may_be_empty) {
    if (at_end_) fail("missing name");
    if (rest_.empty() && !may_be_empty) fail("empty name");
    std::string n(rest_);
    rest_ = {};
    at_end_ = true;
    return n;
  }

  void finish() {
    if (!at_end_) fail("unexpected text after the last field: \"" + std::string(rest_) + "\"");
  }

  [[noreturn]] void fail(const std::string& what) const { throw ProfileError(line_no_, what); }

 private:
  std::uint64_t number(const char* what, std::uint64_t max) {
    std::string_view w = word(what);
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size() || v > max) {
      fail(std::string("bad ") + what + " \"" + std::string(w) + "\"");
    }
    return v;
  }

  std::string_view rest_;
  int line_no_;
  bool at_end_ = false;
};

void check_span(const Fields& f, std::uint64_t start, std::uint64_t end) {
  if (end < start) {
    f.fail("ends before it starts (" + std::to_string(start) + " > " + std::to_string(end) + ")");
  }
}

bool known_copy_kind(std::string_view k) {
  for (std::string_view known : {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset", "other"}) {
    if (k == known) return true;
  }
  return false;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

void parse_header(std::string_view line, const std::string& expected_nonce, ProfileRecord& rec) {
  Fields f(line, 1);
  if (line.substr(0, 7) != "KJPROF ") {
    f.fail("bad header: not a kjudge profile record");
  }
  f.word("magic");
  std::string_view version = f.word("version");
  if (version != "1") {
    f.fail("bad header: record version " + std::string(version) + ", this judge reads version 1");
  }
  rec.nonce = std::string(f.word("nonce"));
  f.finish();
  if (!expected_nonce.empty() && rec.nonce != expected_nonce) {
    f.fail("nonce " + rec.nonce + " is not this run's (" + expected_nonce +
           "): forged or foreign record");
  }
}

KernelRecord parse_kernel(Fields& f) {
  KernelRecord k;
  k.start_ns = f.u64("start_ns");
  k.end_ns = f.u64("end_ns");
  k.launch_ns = f.u64("launch_ns");
  k.launch_tid = f.u32("launch_tid");
  k.device = f.u32("device");
  k.context = f.u32("context");
  k.stream = f.u32("stream");
  k.correlation = f.u32("correlation");
  k.name = f.name(false);
  check_span(f, k.start_ns, k.end_ns);
  return k;
}

CopyRecord parse_copy(Fields& f) {
  CopyRecord c;
  c.start_ns = f.u64("start_ns");
  c.end_ns = f.u64("end_ns");
  c.launch_ns = f.u64("launch_ns");
  c.launch_tid = f.u32("launch_tid");
  c.kind = std::string(f.word("kind"));
  if (!known_copy_kind(c.kind)) f.fail("unknown copy kind \"" + c.kind + "\"");
  c.bytes = f.u64("bytes");
  c.device = f.u32("device");
  c.context = f.u32("context");
  c.stream = f.u32("stream");
  c.correlation = f.u32("correlation");
  f.finish();
  check_span(f, c.start_ns, c.end_ns);
  return c;
}

RangeRecord parse_range(Fields& f) {
  RangeRecord r;
  r.start_ns = f.u64("start_ns");
  r.end_ns = f.u64("end_ns");
  r.tid = f.u32("tid");
  // NVTX accepts an empty message, and such a range is still a range.
  r.name = f.name(true);
  check_span(f, r.start_ns, r.end_ns);
  return r;
}

struct LineState {
  bool seen_app = false, seen_dropped = false, seen_end = false;
  std::uint64_t items = 0;  // K, M and R lines so far
};

void parse_line(std::string_view line, int line_no, LineState& st, ProfileRecord& rec) {
  Fields f(line, line_no);
  std::string_view tag = f.word("record type");
  if (tag == "K") {
    rec.kernels.push_back(parse_kernel(f));
    ++st.items;
  } else if (tag == "M") {
    rec.copies.push_back(parse_copy(f));
    ++st.items;
  } else if (tag == "R") {
    rec.ranges.push_back(parse_range(f));
    ++st.items;
  } else if (tag == "APP") {
    if (st.seen_app) f.fail("a second APP line");
    st.seen_app = true;
    rec.app_start_ns = f.u64("start_ns");
    rec.app_end_ns = f.u64("end_ns");
    f.finish();
    check_span(f, rec.app_start_ns, rec.app_end_ns);
  } else if (tag == "DROPPED") {
    if (st.seen_dropped) f.fail("a second DROPPED line");
    st.seen_dropped = true;
    rec.dropped = f.u64("count");
    f.finish();
  } else if (tag == "END") {
    std::uint64_t count = f.u64("count");
    f.finish();
    if (count != st.items) {
      f.fail("record cut short or altered: END counts " + std::to_string(count) + " items but " +
             std::to_string(st.items) + " precede it");
    }
    st.seen_end = true;
  } else if (tag == "KJPROF") {
    f.fail(kSecondHeader);
  } else {
    f.fail("unknown record type \"" + std::string(tag) + "\"");
  }
}

}  // namespace

ProfileError::ProfileError(int line, const std::string& what)
    : std::runtime_error("profile record line " + std::to_string(line) + ": " + what),
      line_(line),
      reason_(what) {}

ProfileRecord parse_profile_record(const std::string& text, const std::string& expected_nonce) {
  std::vector<std::string_view> lines = split_lines(text);
  if (lines.empty()) throw ProfileError(1, "empty record");

  ProfileRecord rec;
  parse_header(lines[0], expected_nonce, rec);

  LineState st;
  const bool unterminated = text.back() != '\n';
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    if (st.seen_end) {
      throw ProfileError(line_no,
                         lines[i].substr(0, 7) == "KJPROF " ? kSecondHeader : "text after END");
    }
    try {
      parse_line(lines[i], line_no, st, rec);
    } catch (const ProfileError& e) {
      // The writer was stopped mid-line (killed, disk full): say so rather than blame the field.
      if (i + 1 == lines.size() && unterminated) {
        throw ProfileError(line_no,
                           "record cut short in the middle of a line (" + e.reason() + ")");
      }
      throw;
    }
  }
  if (!st.seen_end) {
    throw ProfileError(static_cast<int>(lines.size()),
                       "record cut short: no END line (the profiler did not finish writing it)");
  }
  return rec;
}

bool cupti_undercounts(double excess_ns, double event_mean_ns) {
  return excess_ns > 2e3 && excess_ns > 0.1 * event_mean_ns;
}

}  // namespace kjudge

#include "perf/profiler_channel.h"

namespace kjudge {

namespace {
// The profiler's start line: the header of a record with no nonce (output_channel.h's
// kStartLine; the library links nothing of the judge's, so the text is spelled out twice).
constexpr const char* kStartLine = "KJPROF 1 -\n";
}  // namespace

ResultChannel open_profiler_channel(const char* name) {
  ResultChannel channel(name);
  channel.write_nonce();
  return channel;
}

std::vector<std::string> profiler_channel_env(const ResultChannel& channel, bool early_header) {
  std::vector<std::string> env = {"KJUDGE_PROFILE_FD=" + std::to_string(channel.fd())};
  if (early_header) env.push_back("KJUDGE_PROFILE_EARLY_HEADER=1");
  return env;
}

std::string profile_channel_text(const std::string& text, const std::string& nonce) {
  if (text == nonce + "\n") return "";
  if (text == kStartLine) return "KJPROF 1 " + nonce + "\n";
  return text;
}

std::string profile_channel_text(const ResultChannel& channel) {
  return profile_channel_text(channel.read_all(), channel.nonce());
}

}  // namespace kjudge

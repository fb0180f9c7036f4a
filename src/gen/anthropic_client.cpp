// Anthropic's Messages API.
#include <stdexcept>

#include "gen/chat_wire.h"

namespace kjudge {
namespace {

using nlohmann::json;

// The API insists on max_tokens; this fits a long kernel with room to spare.
constexpr int kDefaultMaxTokens = 8192;

std::vector<std::string> anthropic_headers(const std::string& api_key) {
  std::vector<std::string> out = {"anthropic-version: 2023-06-01"};
  if (!api_key.empty()) out.push_back("x-api-key: " + api_key);
  return out;
}

json anthropic_body(const ChatRequest& request) {
  json messages = json::array();
  std::string system;
  // The API takes no system role in messages, only one top-level system prompt.
  for (const ChatMessage& m : request.messages) {
    if (m.role == "system") {
      system += (system.empty() ? "" : "\n\n") + m.content;
    } else {
      messages.push_back({{"role", m.role}, {"content", m.content}});
    }
  }
  json out = {{"model", request.model},
              {"max_tokens", request.max_tokens.value_or(kDefaultMaxTokens)},
              {"messages", messages}};
  if (!system.empty()) out["system"] = system;
  if (request.temperature) out["temperature"] = *request.temperature;
  if (request.top_p) out["top_p"] = *request.top_p;
  return out;
}

std::string normalise_stop_reason(const std::string& reason) {
  if (reason == "end_turn" || reason == "stop_sequence") return "stop";
  if (reason == "max_tokens") return "length";
  return reason;
}

ChatResponse anthropic_parse(const json& answer) {
  const json& content = answer.at("content");
  if (!content.is_array()) throw std::runtime_error("content is not a list of blocks");
  ChatResponse out;
  // Thinking and tool blocks are not the answer.
  for (const json& block : content)
    if (block.is_object() && block.value("type", "") == "text")
      out.text += block.at("text").get<std::string>();
  if (auto it = answer.find("stop_reason"); it != answer.end() && it->is_string())
    out.finish_reason = normalise_stop_reason(it->get<std::string>());
  if (auto it = answer.find("usage"); it != answer.end() && it->is_object()) {
    out.usage.input_tokens = token_count(*it, "input_tokens");
    out.usage.output_tokens = token_count(*it, "output_tokens");
  }
  out.model = answer.value("model", "");
  return out;
}

}  // namespace

const WireFormat& anthropic_wire() {
  static const WireFormat wire{"https://api.anthropic.com/v1", "/messages", anthropic_headers,
                               anthropic_body, anthropic_parse};
  return wire;
}

}  // namespace kjudge

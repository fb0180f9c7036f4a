// OpenAI Chat Completions, as spoken by OpenAI and by vLLM, llama.cpp, NIM and the rest.
#include <stdexcept>

#include "gen/chat_wire.h"

namespace kjudge {
namespace {

using nlohmann::json;

std::vector<std::string> openai_headers(const std::string& api_key) {
  if (api_key.empty()) return {};
  return {"Authorization: Bearer " + api_key};
}

json openai_body(const ChatRequest& request) {
  json messages = json::array();
  for (const ChatMessage& m : request.messages)
    messages.push_back({{"role", m.role}, {"content", m.content}});
  json out = {{"model", request.model}, {"messages", messages}};
  if (request.temperature) out["temperature"] = *request.temperature;
  if (request.top_p) out["top_p"] = *request.top_p;
  // Not "max_completion_tokens": the compatible servers (vLLM, llama.cpp, NIM) know only this.
  if (request.max_tokens) out["max_tokens"] = *request.max_tokens;
  if (request.seed) out["seed"] = *request.seed;
  if (request.reasoning_effort) out["reasoning_effort"] = *request.reasoning_effort;
  return out;
}

// Content is a string, null (a reasoning model cut off before answering) or, on some
// compatible servers, a list of typed parts.
std::string content_text(const json& content) {
  if (content.is_null()) return "";
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) throw std::runtime_error("message.content is neither text nor parts");
  std::string text;
  for (const json& part : content)
    if (part.is_object() && part.value("type", "") == "text")
      text += part.at("text").get<std::string>();
  return text;
}

ChatResponse openai_parse(const json& answer) {
  const json& choices = answer.at("choices");
  if (!choices.is_array() || choices.empty()) throw std::runtime_error("no choices");
  const json& choice = choices.at(0);
  ChatResponse out;
  out.text = content_text(choice.at("message").value("content", json()));
  if (auto it = choice.find("finish_reason"); it != choice.end() && it->is_string())
    out.finish_reason = it->get<std::string>();
  if (auto it = answer.find("usage"); it != answer.end() && it->is_object()) {
    out.usage.input_tokens = token_count(*it, "prompt_tokens");
    out.usage.output_tokens = token_count(*it, "completion_tokens");
  }
  out.model = answer.value("model", "");
  return out;
}

}  // namespace

const WireFormat& openai_wire() {
  static const WireFormat wire{"https://api.openai.com/v1", "/chat/completions", openai_headers,
                               openai_body, openai_parse};
  return wire;
}

}  // namespace kjudge

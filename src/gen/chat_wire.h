#pragma once
// How each provider's API is spoken: where to post, which headers, the JSON body it wants and
// how to read the JSON it answers. The HTTP, retries and errors are chat_client.cpp's.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gen/chat.h"

namespace kjudge {

struct WireFormat {
  const char* default_base_url;
  const char* path;  // appended to the base URL
  std::vector<std::string> (*headers)(const std::string& api_key);
  nlohmann::json (*body)(const ChatRequest& request);
  // Throws (std::exception) when the JSON is not the API's answer: the client calls it malformed.
  ChatResponse (*parse)(const nlohmann::json& answer);
};

const WireFormat& openai_wire();
const WireFormat& anthropic_wire();

// A token count from a usage object; absent or null (some compatible servers) reads as 0.
inline long token_count(const nlohmann::json& usage, const char* key) {
  auto it = usage.find(key);
  return it != usage.end() && it->is_number() ? it->get<long>() : 0;
}

}  // namespace kjudge

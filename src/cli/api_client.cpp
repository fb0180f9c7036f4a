#include "cli/api_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.h"
#include "core/exit_codes.h"

namespace kjudge {

ApiClient::ApiClient(const ApiTarget& target, std::string who, double read_timeout_s)
    : who_(std::move(who)), client_(target.server) {
  std::string token = target.token;
  if (token.empty())
    if (const char* t = std::getenv("KJUDGE_TOKEN")) token = t;
  if (token.empty())
    throw Error(exit_code::usage,
                who_ + ": no API token: --token or $KJUDGE_TOKEN (from `kjudge users add`)");
  client_.set_read_timeout(static_cast<time_t>(read_timeout_s), 0);
  auth_ = {{"Authorization", "Bearer " + token}};
}

nlohmann::json ApiClient::answer(const httplib::Result& r, std::initializer_list<int> ok) const {
  if (!r)
    throw Error(exit_code::environment, fmt::format("{}: no answer from the server ({})", who_,
                                                    httplib::to_string(r.error())));
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (std::find(ok.begin(), ok.end(), r->status) != ok.end() && !j.is_discarded()) return j;
  const std::string why = j.is_object() ? j.value("error", r->body) : r->body;
  throw Error(r->status == 401 || r->status == 403 ? exit_code::usage : exit_code::findings,
              fmt::format("{}: HTTP {}: {}", who_, r->status, why));
}

nlohmann::json ApiClient::get(const std::string& path, std::initializer_list<int> ok) {
  return answer(client_.Get(path, auth_), ok);
}

nlohmann::json ApiClient::post(const std::string& path, const nlohmann::json& body,
                               std::initializer_list<int> ok) {
  return answer(client_.Post(path, auth_, body.dump(), "application/json"), ok);
}

nlohmann::json ApiClient::del(const std::string& path, std::initializer_list<int> ok) {
  return answer(client_.Delete(path, auth_), ok);
}

}  // namespace kjudge

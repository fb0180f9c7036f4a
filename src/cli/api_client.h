#pragma once
// The command-line clients of `kjudge serve` (submit, leaderboards): one way to find the token,
// call the API and turn a refused request into an error with an exit code that means something.
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

namespace kjudge {

struct ApiTarget {
  std::string server = "http://127.0.0.1:8080";
  std::string token;  // empty: $KJUDGE_TOKEN
};

class ApiClient {
 public:
  // `who` names the command in errors ("leaderboards"); throws Error(usage) without a token.
  ApiClient(const ApiTarget& target, std::string who, double read_timeout_s = 30);
  // The answer's JSON body when the status is one of `ok` (200 and 201 by default); otherwise
  // throws: no answer is the environment (3), a refused token usage (2), any other refusal
  // findings (1), each with the server's own words.
  nlohmann::json get(const std::string& path, std::initializer_list<int> ok = {200, 201});
  nlohmann::json post(const std::string& path, const nlohmann::json& body,
                      std::initializer_list<int> ok = {200, 201});
  nlohmann::json del(const std::string& path, std::initializer_list<int> ok = {200});

 private:
  nlohmann::json answer(const httplib::Result& r, std::initializer_list<int> ok) const;
  std::string who_;
  httplib::Client client_;
  httplib::Headers auth_;
};

}  // namespace kjudge

#pragma once
// A thin libcurl wrapper: one blocking POST on its own easy handle, so any number of threads
// can post at once. It only moves bytes; what a status or body means is the caller's business.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  double timeout_s = 600;  // whole request
  double stall_s = 120;    // no byte received for this long aborts it (also the connect limit)
};

struct HttpResponse {
  long status = 0;
  // The final response's headers only (not those of a 100 Continue or a redirect), names
  // lower-cased.
  std::map<std::string, std::string> headers;
  std::string body;
};

// A request that got no HTTP response (or lost it halfway), in libcurl's words.
class HttpTransportError : public std::runtime_error {
 public:
  HttpTransportError(bool timed_out, const std::string& message)
      : std::runtime_error(message), timed_out_(timed_out) {}
  bool timed_out() const { return timed_out_; }

 private:
  bool timed_out_;
};

// Throws HttpTransportError; any HTTP status, 4xx and 5xx included, is a response.
HttpResponse http_post(const HttpRequest& request);

}  // namespace kjudge

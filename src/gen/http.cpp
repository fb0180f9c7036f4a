#include "gen/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/text.h"

namespace kjudge {
namespace {

// A reply beyond this is no chat answer; stop before it eats the machine's memory.
constexpr size_t kMaxBodyBytes = 256u << 20;

void global_init() {
  // curl_global_init is not thread-safe itself, and must run before any thread makes a handle.
  static std::once_flag once;
  std::call_once(once, [] {
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK)
      throw HttpTransportError(false, std::string("curl_global_init: ") + curl_easy_strerror(rc));
  });
}

struct BodySink {
  std::string* body;
  bool too_large = false;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  size_t n = size * count;
  if (sink->body->size() + n > kMaxBodyBytes) {
    sink->too_large = true;
    return 0;  // libcurl aborts with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  size_t n = size * count;
  std::string line(data, n);
  // Each status line starts a new response (100 Continue, redirects): keep only the last one's.
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = trim(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  (*headers)[name] = trim(line.substr(colon + 1));
  return n;
}

// libcurl's own low-speed check averages over its last five seconds, so a stall shorter than
// that passes unnoticed; this watch aborts once no byte has moved either way for stall_s.
struct StallWatch {
  double stall_s;
  curl_off_t moved = -1;
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
  bool stalled = false;
};

int on_progress(void* user, curl_off_t, curl_off_t dlnow, curl_off_t, curl_off_t ulnow) {
  auto* watch = static_cast<StallWatch*>(user);
  auto now = std::chrono::steady_clock::now();
  if (dlnow + ulnow != watch->moved) {
    watch->moved = dlnow + ulnow;
    watch->since = now;
    return 0;
  }
  watch->stalled = std::chrono::duration<double>(now - watch->since).count() >= watch->stall_s;
  return watch->stalled ? 1 : 0;  // nonzero aborts with CURLE_ABORTED_BY_CALLBACK
}

long to_ms(double seconds) { return std::max(1L, std::lround(seconds * 1000)); }

}  // namespace

HttpResponse http_post(const HttpRequest& request) {
  global_init();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw HttpTransportError(false, "curl_easy_init failed");
  curl_slist* list = nullptr;
  for (const std::string& h : request.headers) list = curl_slist_append(list, h.c_str());
  // Without this libcurl waits a second for a 100 Continue before sending a large body.
  list = curl_slist_append(list, "Expect:");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(list,
                                                                          curl_slist_free_all);

  HttpResponse response;
  BodySink sink{&response.body};
  StallWatch watch{request.stall_s};
  char error[CURL_ERROR_SIZE] = {0};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  // Verbose output would print the Authorization header.
  curl_easy_setopt(h, CURLOPT_VERBOSE, 0L);
  // Signals are process-wide; timeouts by signal would race between threads.
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, to_ms(request.timeout_s));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   to_ms(std::min(request.timeout_s, request.stall_s)));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(std::ceil(request.stall_s))));
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &watch);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  // A peer that vanished without a FIN is otherwise only noticed by the timeouts.
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_USERAGENT, "kjudge/" KJUDGE_VERSION);

  CURLcode rc = curl_easy_perform(h);
  if (rc != CURLE_OK) {
    std::string message = curl_easy_strerror(rc);
    if (error[0]) message += std::string(": ") + error;
    if (sink.too_large)
      message = "response body over " + std::to_string(kMaxBodyBytes >> 20) + " MiB";
    if (watch.stalled) {
      std::ostringstream text;
      text << "no byte sent or received for " << request.stall_s << " s";
      message = text.str();
    }
    throw HttpTransportError(rc == CURLE_OPERATION_TIMEDOUT || watch.stalled, message);
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace kjudge

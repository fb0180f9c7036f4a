#include "board/web_security.h"

#include "core/text.h"

namespace kjudge::board {

namespace {}  // namespace

std::optional<std::string> cookie_value(const std::string& header, const std::string& name) {
  std::size_t a = 0;
  while (a <= header.size()) {
    std::size_t e = header.find(';', a);
    if (e == std::string::npos) e = header.size();
    const std::string pair = trim_blanks(header.substr(a, e - a));
    const std::size_t eq = pair.find('=');
    if (eq != std::string::npos && trim_blanks(pair.substr(0, eq)) == name)
      return trim_blanks(pair.substr(eq + 1));
    a = e + 1;
  }
  return std::nullopt;
}

std::string cross_site_reason(const HttpRequest& req) {
  const std::string site = req.header("sec-fetch-site");
  // "none": typed in or a bookmark; "same-origin": our own page's form.
  if (!site.empty() && site != "same-origin" && site != "none")
    return "the form was posted from another site (Sec-Fetch-Site: " + site + ")";
  const std::string origin = req.header("origin");
  if (origin.empty()) return "";
  const std::string host = req.header("host");
  if (origin != "http://" + host && origin != "https://" + host)
    return "the form was posted from another origin (" + origin + ")";
  return "";
}

std::vector<std::pair<std::string, std::string>> security_headers() {
  return {{"Content-Security-Policy",
           "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
           "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"},
          {"X-Content-Type-Options", "nosniff"},
          {"X-Frame-Options", "DENY"},
          {"Referrer-Policy", "same-origin"}};
}

}  // namespace kjudge::board

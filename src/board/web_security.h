#pragma once
// The web pages' defences (issue 32): the sign-in cookie read by its exact name, state-changing
// form posts refused when the browser says they come from another site, and the headers every
// response carries.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "board/http_server.h"

namespace kjudge::board {

// The value of cookie `name` in a Cookie header (`a=1; b=2`), matched by its whole name.
std::optional<std::string> cookie_value(const std::string& header, const std::string& name);

// Why a form post must be refused as cross-site, or "" when it may go on. A browser says where
// a request comes from in Sec-Fetch-Site and Origin; a request without either (curl, a script)
// is not a browser being tricked, so it passes.
std::string cross_site_reason(const HttpRequest& req);

// Content-Security-Policy (scripts and styles from this origin only: the pages have no inline
// script or style), nosniff, no framing, no Referer to other sites.
std::vector<std::pair<std::string, std::string>> security_headers();

}  // namespace kjudge::board

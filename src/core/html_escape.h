#pragma once
// Text into HTML, for every page kjudge writes (the service's web page, the run reports):
// whatever a model or a person wrote goes through html_escape before it reaches a page.
#include <string>
#include <string_view>

namespace kjudge {

// & < > " ' escaped; invalid UTF-8 replaced by U+FFFD, so a binary log cannot garble the page.
std::string html_escape(std::string_view text);

}  // namespace kjudge

#pragma once
// Text for HTML and XML (the HTML report, JUnit): & < > " ' as entities.
#include <string>
#include <string_view>

namespace assay::report {

std::string html_escape(std::string_view text);

}  // namespace assay::report

#pragma once
// Text for HTML and XML (the HTML report, JUnit): & < > " ' as entities; control characters
// other than tab and line ends, which XML 1.0 forbids, as U+FFFD.
#include <string>
#include <string_view>

namespace assay::report {

std::string html_escape(std::string_view text);

}  // namespace assay::report

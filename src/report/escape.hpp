#pragma once
// Text for HTML and XML (the HTML report, JUnit): & < > " ' as entities; control characters
// other than tab and line ends, which XML 1.0 forbids, as U+FFFD.
#include <string>
#include <string_view>

namespace assay::report {

std::string html_escape(std::string_view text);

// Markdown (a PR comment, a run's .md): text for a table cell or a list line, which must not
// break the table (pipes escaped, line ends as spaces) nor bring raw HTML (< > & as entities);
// and an inline code span showing `s` as it is, fenced past any run of backticks in it.
std::string markdown_text(std::string_view s);
std::string markdown_code(std::string_view s);

}  // namespace assay::report

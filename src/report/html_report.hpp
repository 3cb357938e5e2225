// `assay report`'s page: one self-contained HTML file (docs/report.md). The data model
// (report_data.hpp) goes into a <script type="application/json"> block; the charting library
// and the page's script (html_assets.hpp) are inlined after it and draw from it. Nothing is
// loaded from the network or from files beside the page.
#pragma once

#include <string>
#include <string_view>

#include "report/escape.hpp"  // html_escape
#include "report/html_assets.hpp"
#include "report/report_data.hpp"

namespace assay::report {

// JSON text safe inside <script type="application/json">: every '<' becomes \u003c (JSON
// allows it only inside strings, where the escape means the same), so that no string, such as
// a case id holding "</script>" or "<!--", can end the block or change how it is parsed.
std::string json_for_script_block(const nlohmann::json& data);

// Script text safe inside <script>: "</script" (any case) becomes "<\/script", which means the
// same inside a JavaScript string, template or regex literal.
std::string script_for_inline(std::string_view js);

// The page. Throws InternalError naming what is missing when `assets.missing` is not empty.
std::string render_html_report(const ReportInputs& in, const HtmlAssets& assets);

}  // namespace assay::report

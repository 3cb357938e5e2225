#include "report/html_report.hpp"

#include <cctype>

#include "core/error.hpp"

namespace assay::report {

std::string json_for_script_block(const nlohmann::json& data) {
  // error_handler replace: a byte sequence that is not UTF-8 (a stderr tail, a reason) becomes
  // U+FFFD instead of an exception; the page must still be written.
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (char c : text) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

std::string script_for_inline(std::string_view js) {
  static constexpr std::string_view tag = "</script";
  std::string out;
  out.reserve(js.size());
  for (std::size_t i = 0; i < js.size(); ++i) {
    bool match = i + tag.size() <= js.size();
    for (std::size_t k = 0; match && k < tag.size(); ++k)
      match = std::tolower(static_cast<unsigned char>(js[i + k])) == tag[k];
    if (match) {
      out += "<\\/";
      i += 1;  // the '/' is written above; the loop's ++i skips it
      continue;
    }
    out += js[i];
  }
  return out;
}


std::string render_html_report(const ReportInputs& in, const HtmlAssets& assets) {
  if (!assets.missing.empty()) throw InternalError("assay report: " + assets.missing);
  const nlohmann::json data = report_data(in);
  const std::string title = html_escape(data.value("title", std::string("assay report")));
  std::string page;
  page.reserve(assets.library_js.size() + assets.page_js.size() + 4096);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += "<meta name=\"generator\" content=\"assay report, " + html_escape(assets.library) + "\">\n";
  page += "<title>" + title + "</title>\n<style>\n" + assets.page_css + "\n</style>\n</head>\n";
  // The page script fills <main> from the data; <noscript> says why nothing shows without it.
  page += "<body>\n<header><h1>" + title + "</h1><p id=\"assay-meta\"></p></header>\n";
  page += "<noscript><p>This report draws its plots with JavaScript; enable it to see them.</p></noscript>\n";
  page += "<nav id=\"assay-nav\"></nav>\n<main id=\"assay-main\"></main>\n";
  page += "<script type=\"application/json\" id=\"assay-data\">" + json_for_script_block(data) + "</script>\n";
  page += "<script>\n" + script_for_inline(assets.library_js) + "\n</script>\n";
  page += "<script>\n" + script_for_inline(assets.page_js) + "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace assay::report

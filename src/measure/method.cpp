#include "measure/method.hpp"

#include "core/results.hpp"

namespace assay::measure {

namespace {
constexpr Mode kModes[] = {Mode::cold, Mode::hot, Mode::graph, Mode::host};
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::cold: return "cold";
    case Mode::hot: return "hot";
    case Mode::graph: return "graph";
    case Mode::host: return "host";
  }
  return "cold";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (Mode m : kModes)
    if (mode_name(m) == name) return m;
  return std::nullopt;
}

std::string_view l2_flush_name(L2Flush flush) { return flush == L2Flush::clean ? kL2FlushClean : kL2FlushMemset; }

std::optional<L2Flush> parse_l2_flush(std::string_view name) {
  for (L2Flush f : {L2Flush::memset, L2Flush::clean})
    if (l2_flush_name(f) == name) return f;
  return std::nullopt;
}

}  // namespace assay::measure

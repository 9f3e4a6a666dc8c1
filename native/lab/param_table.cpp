#include "lab/param_table.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace vigil::native {

namespace {

// The range a demo page's slider covers, in the page's own units (percent for probabilities).
std::string page_range_text(const ParamSpec& p) {
  const double scale = p.percent ? 100.0 : 1.0;
  return number_text(p.view_min * scale) + " to " + number_text(p.view_max * scale) +
         (p.percent ? " %" : "") + (p.log ? " (log)" : "");
}

std::string markdown_table(const ParamTable& table) {
  std::string out = "| Option | Default | Range | Meaning |\n|---|---|---|---|\n";
  for (const auto& o : table.options)
    out += "| `--" + o.name + "` | " + cli::markdown_cell(o.default_text) + " | " +
           cli::markdown_cell(o.param->range_text()) + " | " + cli::markdown_cell(o.param->help) +
           " |\n";
  return out;
}

std::string text_table(const ParamTable& table) {
  std::string out;
  for (const auto& o : table.options) {
    std::string left = "  --" + o.name;
    left.resize(std::max<std::size_t>(left.size() + 2, 24), ' ');
    out += left + std::string(o.param->help) + "\n" + std::string(24, ' ') + "range " +
           o.param->range_text() + ", default " + o.default_text + ", URL key " +
           std::string(o.param->url_key()) + ", page " + page_range_text(*o.param) + "\n";
  }
  return out;
}

nlohmann::json json_row(const std::string& command, const cli::Args::Spec& o) {
  const ParamSpec& p = *o.param;
  return {{"command", command},
          {"flag", o.name},
          {"default", o.default_text},
          {"default_value", p.def},
          {"min", p.min},
          {"max", p.max},
          {"min_open", p.min_open},
          {"max_open", p.max_open},
          {"integer", p.integer},
          {"unit", std::string(p.unit)},
          {"range", p.range_text()},
          {"help", std::string(p.help)},
          {"url_key", p.url_key()},
          {"url_alias", std::string(p.alias)},
          {"page_min", p.view_min},
          {"page_max", p.view_max},
          {"page_percent", p.percent},
          {"page_log", p.log}};
}

}  // namespace

std::vector<cli::Args::Spec> param_options_of(const std::vector<cli::Args::Spec>& specs) {
  std::vector<cli::Args::Spec> out;
  for (const auto& s : specs)
    if (s.param) out.push_back(s);
  return out;
}

std::string render_params(const std::vector<ParamTable>& tables, ParamFormat format) {
  if (format == ParamFormat::json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& t : tables)
      for (const auto& o : t.options) rows.push_back(json_row(t.command, o));
    return rows.dump(2) + "\n";
  }
  const bool headed = tables.size() > 1;
  std::string out;
  for (const auto& t : tables) {
    if (format == ParamFormat::markdown) {
      if (headed)
        out += (out.empty() ? "" : "\n") + std::string("#### `vigil lab ") + t.command + "`\n\n";
      out += markdown_table(t);
    } else {
      if (headed) out += (out.empty() ? "" : "\n") + std::string("vigil lab ") + t.command + "\n";
      out += text_table(t);
    }
  }
  return out;
}

}  // namespace vigil::native

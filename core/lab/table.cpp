#include <vigil/lab/table.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace vigil::lab {

namespace {

std::string format_number(double x, int precision) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, x);
  return buf;
}

std::string cell_text(const Cell& cell, const Column& column) {
  struct Visitor {
    const Column& column;
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(double x) const { return format_number(x, column.precision); }
    std::string operator()(std::int64_t x) const { return std::to_string(x); }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{column}, cell);
}

nlohmann::json cell_json(const Cell& cell) {
  struct Visitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    // JSON has no infinity; null marks "unbounded" (phi of a silence no model can explain).
    nlohmann::json operator()(double x) const {
      return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
    }
    nlohmann::json operator()(std::int64_t x) const { return x; }
    nlohmann::json operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, cell);
}

bool is_text(const Cell& cell) {
  return std::holds_alternative<std::string>(cell);
}

std::string render_text(const Table& table) {
  std::vector<std::size_t> width;
  for (const auto& c : table.columns) width.push_back(c.header.size());
  std::vector<std::vector<std::string>> texts;
  for (const auto& row : table.rows) {
    auto& out = texts.emplace_back();
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      out.push_back(i < row.size() ? cell_text(row[i], table.columns[i]) : "-");
      width[i] = std::max(width[i], out.back().size());
    }
  }
  // Text columns align left, numbers right, as in any printed table.
  std::vector<bool> left(table.columns.size(), false);
  for (const auto& row : table.rows)
    for (std::size_t i = 0; i < row.size() && i < left.size(); ++i)
      left[i] = left[i] || is_text(row[i]);

  std::string out;
  if (!table.title.empty()) out += table.title + "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(width[i] - cells[i].size(), ' ');
      if (i) s += "  ";
      s += left[i] ? cells[i] + pad : pad + cells[i];
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  std::vector<std::string> headers;
  for (const auto& c : table.columns) headers.push_back(c.header);
  line(headers);
  for (const auto& t : texts) line(t);
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string render_csv(const Table& table) {
  std::string out;
  for (std::size_t i = 0; i < table.columns.size(); ++i)
    out += (i ? "," : "") + csv_escape(table.columns[i].key);
  out += "\n";
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      const Cell empty{};
      const Cell& cell = i < row.size() ? row[i] : empty;
      out += (i ? "," : "") + (std::holds_alternative<std::monostate>(cell)
                                   ? std::string()
                                   : csv_escape(cell_text(cell, table.columns[i])));
    }
    out += "\n";
  }
  return out;
}

nlohmann::json table_json(const Table& table) {
  auto rows = nlohmann::json::array();
  for (const auto& row : table.rows) {
    nlohmann::json obj = nlohmann::json::object();
    for (std::size_t i = 0; i < table.columns.size() && i < row.size(); ++i)
      obj[table.columns[i].key] = cell_json(row[i]);
    rows.push_back(std::move(obj));
  }
  return rows;
}

// The series as one table: row i holds every series' i-th value.
Table series_table(const Report& report) {
  Table t;
  t.key = "series";
  t.columns.push_back({"index", "i", 0});
  std::size_t longest = 0;
  for (const auto& [name, values] : report.series) {
    t.columns.push_back({name, name, 2});
    longest = std::max(longest, values.size());
  }
  // Rows are sized up front and filled in place: growing a vector of Cells element by element
  // trips GCC 12's -Wmaybe-uninitialized on the variant's string member.
  t.rows.assign(longest, std::vector<Cell>(report.series.size() + 1));
  for (std::size_t i = 0; i < longest; ++i) {
    t.rows[i][0] = static_cast<std::int64_t>(i);
    for (std::size_t k = 0; k < report.series.size(); ++k)
      if (i < report.series[k].second.size()) t.rows[i][k + 1] = report.series[k].second[i];
  }
  return t;
}

}  // namespace

std::string render(const Report& report, Format format) {
  switch (format) {
    case Format::table: {
      std::string out;
      for (std::size_t i = 0; i < report.tables.size(); ++i) {
        if (i) out += "\n";
        out += render_text(report.tables[i]);
      }
      if (!report.series.empty()) {
        if (!out.empty()) out += "\n";
        out += render_text(series_table(report));
      }
      for (const auto& [name, value] : report.facts)
        out += name + ": " + format_number(value, 4) + "\n";
      for (const auto& [name, value] : report.flags)
        out += name + ": " + (value ? "true" : "false") + "\n";
      for (const auto& note : report.notes) out += note + "\n";
      return out;
    }
    case Format::csv: {
      std::string out;
      for (std::size_t i = 0; i < report.tables.size(); ++i) {
        if (i) out += "\n";
        if (report.tables.size() > 1) out += "# " + report.tables[i].key + "\n";
        out += render_csv(report.tables[i]);
      }
      if (!report.series.empty()) {
        Table t = series_table(report);
        // Full precision in CSV, as for facts.
        for (std::size_t i = 1; i < t.columns.size(); ++i) t.columns[i].precision = 6;
        if (!out.empty()) out += "\n# series\n";
        out += render_csv(t);
      }
      if (!report.facts.empty() || !report.flags.empty()) {
        if (!out.empty()) out += "\n";
        out += "fact,value\n";
        for (const auto& [name, value] : report.facts)
          out += name + "," + format_number(value, 6) + "\n";
        for (const auto& [name, value] : report.flags)
          out += name + "," + (value ? "true" : "false") + "\n";
      }
      return out;
    }
    case Format::json: {
      // One table and nothing else: a bare array of rows. Otherwise an object keyed by table.
      if (report.tables.size() == 1 && report.facts.empty() && report.series.empty() &&
          report.flags.empty())
        return table_json(report.tables.front()).dump(2) + "\n";
      auto number = [](double x) {
        return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
      };
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& t : report.tables) obj[t.key] = table_json(t);
      for (const auto& [name, value] : report.facts) obj[name] = number(value);
      for (const auto& [name, value] : report.flags) obj[name] = value;
      for (const auto& [name, values] : report.series) {
        auto array = nlohmann::json::array();
        for (double x : values) array.push_back(number(x));
        obj[name] = std::move(array);
      }
      return obj.dump(2) + "\n";
    }
  }
  return {};
}

}  // namespace vigil::lab

#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace vigil::lab {

// A cell: empty (rendered "-" / JSON null), a number, an integer or text.
using Cell = std::variant<std::monostate, double, std::int64_t, std::string>;

struct Column {
  std::string key;     // JSON/CSV name, e.g. "false_alarms_per_min"
  std::string header;  // table heading, e.g. "false alarms/min"
  int precision = 1;   // decimals for doubles in text and CSV
};

// One table of a lab report. Experiments return typed results; these are their printable form,
// shared by the CLI (text, CSV, JSON) and the browser.
struct Table {
  std::string key;    // JSON key when a report has several tables
  std::string title;  // printed above the text form
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
};

// A lab command's whole output: tables plus named scalar facts (e.g. the fitted window mean).
struct Report {
  std::vector<Table> tables;
  std::vector<std::pair<std::string, double>> facts;
  std::vector<std::string> notes;  // printed under the text form only
};

enum class Format { table, csv, json };

std::string render(const Report& report, Format format);

}  // namespace vigil::lab

// SPDX-License-Identifier: Apache-2.0
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
  // Named sequences, e.g. a value per round for plotting: JSON arrays under their names (and then
  // always the object form); in text and CSV one more table, an index column and a column per
  // series, shorter series left empty at the end.
  std::vector<std::pair<std::string, std::vector<double>>> series;
  // Named yes/no facts (e.g. "recovered"): JSON booleans (object form), true/false in text and CSV.
  std::vector<std::pair<std::string, bool>> flags;
  std::vector<std::string> notes;  // printed under the text form only
};

enum class Format { table, csv, json };

std::string render(const Report& report, Format format);

}  // namespace vigil::lab

#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"

namespace vigil::native {

// The model parameters of one `vigil lab` command: its options that come from a ParamSpec, with
// the default its --help shows ("required" where the command line insists on a value).
struct ParamTable {
  std::string command;
  std::vector<cli::Args::Spec> options;  // each with `param` set
};

enum class ParamFormat { text, markdown, json };

// The options of `specs` that stand for a model parameter.
std::vector<cli::Args::Spec> param_options_of(const std::vector<cli::Args::Spec>& specs);

// The tables as `vigil lab params` prints them. With more than one table, each is headed by its
// command; JSON is one array of every parameter, tagged with its command.
std::string render_params(const std::vector<ParamTable>& tables, ParamFormat format);

}  // namespace vigil::native

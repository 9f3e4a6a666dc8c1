#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace vigil::web {

// A few sentences saying what a demo shows now, from the numbers its panel reports (the same
// JSON as window.vigil.state()): who is suspect or dead, phi now, how far a rumour spread, the
// goodput. The page reads them to screen readers through an aria-live region and hands them to
// an embedding page; a reader who cannot see the canvas learns what it shows.
std::string summarize_demo(const nlohmann::json& state);

// The words a summary changes with when something happened (a member died, a rumour reached
// everyone),
// as opposed to figures that drift every frame: the page announces a change of these at once,
// and figures alone at a slower pace.
std::string summary_events(const nlohmann::json& state);

}  // namespace vigil::web

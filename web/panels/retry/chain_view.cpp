#include "panels/retry/chain_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "panels/retry/retry_ui.hpp"
#include "ui/plot.hpp"
#include "ui/widgets.hpp"

namespace vigil::web {

using namespace retry_ui;
namespace param = retry::chain_param;

// The chain reads `tries` whichever view is open, as it always has: a page that opens the server
// view with tries=k finds the chain at k attempts too.
ChainView::ChainView(const UrlParams& p, bool) {
  chain_.depth = url_param(p, param::depth, chain_.depth);
  chain_.tries = url_param(p, param::tries, chain_.tries);
  chain_.fail = url_param(p, param::fail, chain_.fail);
  reference_rows_ = lab::reference_chain_rows();
  recompute();
}

void ChainView::save(UrlParams& p, bool open) const {
  save_param(p, param::depth, chain_.depth);
  save_param(p, param::fail, chain_.fail);
  if (open) save_param(p, param::tries, chain_.tries);
}

void ChainView::recompute() {
  // The sliders keep N, k and p within Chain's limits.
  amp_ = retry::amplify(chain_).value();
  p_.clear();
  amplification_.clear();
  constexpr int kPoints = 200;
  for (int i = 0; i <= kPoints; ++i) {
    retry::Chain c = chain_;
    c.fail = static_cast<double>(i) / kPoints;
    p_.push_back(c.fail);
    amplification_.push_back(retry::amplify(c).value().amplification);
  }
}

std::vector<std::string> ChainView::cli() const {
  // Every option, as the command line asks for p each time.
  return {"lab",
          "retry",
          "chain",
          "--" + std::string(param::depth.flag),
          std::to_string(chain_.depth),
          "--" + std::string(param::tries.flag),
          std::to_string(chain_.tries),
          "--" + std::string(param::fail.flag),
          number_text(chain_.fail)};
}

void ChainView::draw_controls() {
  ImGui::TextWrapped(
      "A request passes through N services; each hop makes up to k attempts at the next one "
      "(the first call included). When the last service fails with probability p, every hop "
      "above it multiplies the calls: the last one sees E[C]^(N-1) calls per request, and "
      "k^(N-1) when it is down.");
  section("Chain");
  bool changed = false;
  changed |= param_slider(param::depth, &chain_.depth);
  changed |= param_slider(param::tries, &chain_.tries);
  changed |= param_slider(param::fail, &chain_.fail);
  if (changed) recompute();

  section("Result");
  ImGui::Text("calls per hop E[C]: %.4g", amp_.calls_per_request);
  ImGui::TextColored(to_vec4(plot::palette().blue), "amplification E[C]^(N-1): %.4gx",
                     amp_.amplification);
  ImGui::TextColored(to_vec4(plot::palette().red), "worst case k^(N-1): %.4gx", amp_.worst_case);
  ImGui::TextColored(to_vec4(plot::palette().green), "success (1 - p^k)^N: %.4g%%",
                     100.0 * amp_.success);
  hint("E[C] = (1 - p^k) / (1 - p)");
  cli_line(cli());
}

void ChainView::draw_plots() {
  const float font = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuterH;
  hint("Click a row of the reference table to load it.");
  // A phone leaves out E[C] and the worst case, which the results under the sliders give: eight
  // columns would cut their headings and numbers.
  const bool all_columns = !screen::narrow();
  if (ImGui::BeginTable("chain-table", all_columns ? 8 : 6, flags)) {
    for (const char* h : {"", "N", "k", "p", "E[C]", "amplification", "worst k^(N-1)", "success"})
      if (all_columns || (std::string_view(h) != "E[C]" && std::string_view(h) != "worst k^(N-1)"))
        ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    auto row = [&](const char* what, const retry::Chain& c, const retry::ChainAmplification& a,
                   bool current) {
      ImGui::TableNextRow();
      if (current)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1,
                               plot::colors::with_alpha(plot::palette().blue, 70));
      ImGui::TableNextColumn();
      const bool clicked = ImGui::Selectable(what, false, ImGuiSelectableFlags_SpanAllColumns);
      ImGui::TableNextColumn();
      ImGui::Text("%d", c.depth);
      ImGui::TableNextColumn();
      ImGui::Text("%d", c.tries);
      ImGui::TableNextColumn();
      ImGui::Text("%.3g", c.fail);
      if (all_columns) {
        ImGui::TableNextColumn();
        ImGui::Text("%.2f", a.calls_per_request);
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.2fx", a.amplification);
      if (all_columns) {
        ImGui::TableNextColumn();
        ImGui::Text("%.0fx", a.worst_case);
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.2f%%", 100.0 * a.success);
      return clicked;
    };
    row("now", chain_, amp_, true);
    for (std::size_t i = 0; i < reference_rows_.size(); ++i) {
      const auto& r = reference_rows_[i];
      const bool same = r.chain.depth == chain_.depth && r.chain.tries == chain_.tries &&
                        r.chain.fail == chain_.fail;
      ImGui::PushID(static_cast<int>(i));
      if (row("table", r.chain, r.result, same)) {
        chain_ = r.chain;
        recompute();
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  const double top = std::max(amp_.worst_case, 1.0) * 4.0;
  char title[96];
  if (screen::narrow())  // a phone's plot holds about 35 characters of title
    std::snprintf(title, sizeof title, "calls reaching service %d (log)", chain_.depth);
  else
    std::snprintf(title, sizeof title,
                  "calls reaching service %d per request, N = %d, k = %d (log)", chain_.depth,
                  chain_.depth, chain_.tries);
  plot::Options options;
  options.zoom = false;
  if (plot::begin("chain-plot", ImVec2(-1, std::max(font * 8.0f, ImGui::GetContentRegionAvail().y)),
                  {0, 1, "p, failure probability of the last service"}, {0.5, top, title, true},
                  options)) {
    plot::hline("worst case k^(N-1)", amp_.worst_case, plot::palette().red, 1.0f);
    plot::line("E[C]^(N-1)", p_, amplification_, plot::palette().blue, 2.5f);
    if (chain_.tries == 3) {
      legend_entry("reference table", plot::palette().yellow);
      if (plot::visible("reference table"))
        for (const auto& r : reference_rows_)
          if (r.chain.depth == chain_.depth)
            marker(r.chain.fail, r.result.amplification, plot::palette().yellow, false,
                   font * 0.35f);
    }
    if (plot::drag_vline("p", &chain_.fail, plot::colors::with_alpha(plot::palette().green, 200), 0,
                         1))
      recompute();
    marker(chain_.fail, amp_.amplification, plot::palette().green, true, font * 0.3f);
    char value[48];
    std::snprintf(value, sizeof value, "  p = %.3g: %.3gx", chain_.fail, amp_.amplification);
    plot::text(chain_.fail, amp_.amplification, plot::palette().green, value);
    plot::end();
  }
}

void ChainView::state(nlohmann::json& s) const {
  int match = -1;
  for (std::size_t i = 0; i < reference_rows_.size(); ++i)
    if (const auto& c = reference_rows_[i].chain;
        c.depth == chain_.depth && c.tries == chain_.tries && c.fail == chain_.fail)
      match = static_cast<int>(i);
  s["chain"] = {{"depth", chain_.depth},
                {"tries", chain_.tries},
                {"fail", chain_.fail},
                {"calls_per_request", amp_.calls_per_request},
                {"amplification", amp_.amplification},
                {"worst_case", amp_.worst_case},
                {"success", amp_.success},
                {"reference_row", match},
                {"reference_rows", reference_rows_.size()},
                {"cli", cli()}};
}

}  // namespace vigil::web

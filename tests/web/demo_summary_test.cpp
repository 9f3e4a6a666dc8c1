#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "app/demo_summary.hpp"

using nlohmann::json;
using vigil::web::summarize_demo;
using vigil::web::summary_events;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Three members; node-2 crashed; node-0 holds it dead, node-1 still suspects it.
json swim_state() {
  return {
      {"demo", "swim"},
      {"nodes", 3},
      {"up", {true, true, false}},
      {"views",
       {{"alive", "alive", "dead"}, {"alive", "alive", "suspect"}, {"alive", "alive", "alive"}}},
      {"partitioned", false},
      {"paused", false}};
}
}  // namespace

TEST_CASE("a SWIM summary names each member some running member does not hold alive") {
  const std::string s = summarize_demo(swim_state());
  CHECK(has(s, "3 members, 2 running."));
  CHECK(has(s, "node-2 (crashed) is dead to 1 of 2, suspect to 1."));
  CHECK_FALSE(has(s, "node-0 is"));  // the crashed member's own stale view does not count
}

TEST_CASE("a SWIM summary's events change when a member dies, not when nothing happens") {
  json healthy = swim_state();
  healthy["up"] = {true, true, true};
  healthy["views"] = {
      {"alive", "alive", "alive"}, {"alive", "alive", "alive"}, {"alive", "alive", "alive"}};
  CHECK(has(summarize_demo(healthy), "Every running member holds every other alive."));
  CHECK(summary_events(healthy) == summary_events(healthy));
  CHECK(summary_events(healthy) != summary_events(swim_state()));
}

TEST_CASE("a gossip summary gives the round and the informed share, grouped for reading") {
  const json s = {{"demo", "gossip"}, {"view", "spread"},  {"mode", "push"},
                  {"fanout", 1},      {"round", 7},        {"informed", 812},
                  {"n", 1000},        {"messages", 12345}, {"done", false}};
  CHECK(summarize_demo(s) ==
        "push gossip, fanout 1: round 7, 812 of 1,000 members informed (81 %), 12,345 messages.");
  json done = s;
  done["done"] = true;
  CHECK(summary_events(done) != summary_events(s));
}

TEST_CASE("a phi summary gives every detector's phi and says when the sender crashed") {
  json s = {{"demo", "phi"},
            {"silence", 1200},
            {"mean", 1000},
            {"std", 50},
            {"phi", 1.5},
            {"model", "normal"},
            {"live",
             {{"phi", {{"normal", 0.42}, {"exponential", 0.61}}},
              {"silence_ms", 120},
              {"received", 1234},
              {"crashed", false}}}};
  const std::string alive = summarize_demo(s);
  CHECK(has(alive, "Phi now: exponential 0.6, normal 0.4."));
  CHECK(has(alive, "Last heartbeat 120 ms ago; 1,234 heartbeats received."));
  CHECK_FALSE(has(alive, "crashed"));
  s["live"]["crashed"] = true;
  CHECK(has(summarize_demo(s), "The sender has crashed."));
  CHECK(summary_events(s) != summary_events(json{{"demo", "phi"}}));
}

TEST_CASE("a fleet summary gives each strategy's peak, calls and clients still waiting") {
  const json s = {
      {"demo", "retry"},
      {"view", "fleet"},
      {"fleet",
       {{"clients", 4000},
        {"capacity", 1000},
        {"strategies",
         {{"exponential", {{"peak_rps", 1510}, {"total_calls", 15940}, {"unfinished", 3960}}}}}}}};
  CHECK(summarize_demo(s) ==
        "4,000 clients against a server of 1,000 requests a second. exponential: peak 1,510 "
        "requests a second, 15,940 calls, 3,960 still waiting.");
}

TEST_CASE("the live summary says which agent sees whom in what state") {
  const json s = {{"demo", "live"},
                  {"agents",
                   {{{"name", "a"},
                     {"status", "connected"},
                     {"members", {{"a", "alive"}, {"b", "alive"}, {"c", "suspect"}}}}}}};
  CHECK(summarize_demo(s) == "a (connected) sees 2 alive: c suspect.");
  CHECK(summarize_demo(json{{"demo", "live"}, {"agents", json::array()}}) ==
        "No agent is connected.");
}

TEST_CASE("a summary of numbers the panel did not report is short, never a crash") {
  CHECK(summarize_demo(json::object()).empty());
  CHECK_NOTHROW(summarize_demo(json{{"demo", "swim"}, {"views", "not a matrix"}}));
  CHECK_NOTHROW(summarize_demo(json{{"demo", "gossip"}, {"view", "membership"}}));
  CHECK_NOTHROW(summarize_demo(json{{"demo", "retry"}, {"server", json::object()}}));
}

# Which folder of native/ links which (cmake/folder_layers.cmake), bottom-up. main.cpp, the
# program, dispatches to commands/ on top.
#   cli       argument parsing, durations, endpoints, paths, printable text: pure helpers
#   crypto    gossip encryption (AES-GCM keyrings, as memberlist), base64, key files
#   http      the libwebsockets host, static files, limits, origins, TLS files, HTTP GET
#   agent     the agent runtime: SWIM over UDP/TCP, its live view, metrics and traces
#   lab       the lab experiments' command bodies and parameter tables
#   commands  every subcommand's entry point (run_agent, run_lab, run_serve, run_help...)
set(VIGIL_NATIVE_LAYERS
  "cli:"
  "crypto:"
  "http:"
  "agent: cli crypto http"
  "lab: cli"
  "commands: cli crypto http agent lab")

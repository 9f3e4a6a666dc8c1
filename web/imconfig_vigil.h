// Dear ImGui build configuration for vigil (selected with IMGUI_USER_CONFIG).
#pragma once

// Plots with many points exceed 64k vertices per draw list and WebGL has no vertex offsets.
#define ImDrawIdx unsigned int

// The app never shows ImGui's demo or metrics windows and never reads or writes files (no .ini:
// io.IniFilename is null; the font is compiled in): leave that code out of the wasm.
#define IMGUI_DISABLE_DEMO_WINDOWS
#define IMGUI_DISABLE_METRICS_WINDOW
#define IMGUI_DISABLE_FILE_FUNCTIONS

// The browser tests read every widget's laid-out frame (ui/layout_report.cpp) through the
// test-engine hooks; ImGui calls them once per widget per frame.
#define IMGUI_ENABLE_TEST_ENGINE

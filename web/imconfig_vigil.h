// Dear ImGui build configuration for vigil (selected with IMGUI_USER_CONFIG).
#pragma once

// Plots with many points exceed 64k vertices per draw list and WebGL has no vertex offsets.
#define ImDrawIdx unsigned int

# Which folder of web/ links which (cmake/folder_layers.cmake), bottom-up. main.cpp, the
# program, runs app/ on top.
#   ui      what panels and scenes draw with: screen, URL parameters, layout report, caption,
#           shortcuts, pointer queue, font, style, plots, palette, widgets, the trace inbox
#   live    the WebSocket link to a running agent
#   scenes  the animated scene strips (phi, retry, SWIM)
#   panels  one panel per demo
#   app     the app: which panel shows, sharing, the page's summary
set(VIGIL_WEB_LAYERS
  "ui:"
  "live: ui"
  "scenes: ui"
  "panels: ui live scenes"
  "app: panels")

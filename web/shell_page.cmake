# Writes the app's HTML shell with the size of vigil.wasm filled in, so that the page can show
# real download progress even when the server compresses the file (its Content-Length is then
# the compressed size). Run with -DSHELL=<template> -DWASM=<vigil.wasm> -DOUT=<index.html>.
file(SIZE "${WASM}" VIGIL_WASM_BYTES)
configure_file("${SHELL}" "${OUT}" @ONLY)

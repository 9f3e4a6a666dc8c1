// Heartbeat traces into the phi demo, entirely in this page: a file the reader picks (the demo's
// "open a trace file" button calls window.vigilTrace.pick()) or drops anywhere on the page, or
// the file named by the trace= URL parameter, fetched from where the page is served (another
// origin must allow it with CORS). The bytes go straight into the app's memory; nothing is sent
// anywhere.
'use strict';

(() => {
  // The app refuses larger traces too (web/ui/phi_trace.hpp); checking here spares reading them.
  const kMaxBytes = 32 * 1024 * 1024;
  const mib = (n) => `${(n / 1048576).toFixed(1)} MB`;
  const encoder = new TextEncoder();
  const queue = [];  // hand-overs waiting for the runtime

  const ready = () => !!(window.vigil && window.vigil.state && window.vigil.state() !== null);

  // Writes the name and the text (or the reason it could not be read) into the app and wakes it.
  function deliver(name, bytes, ok, fromUrl) {
    if (!ready()) {
      queue.push(() => deliver(name, bytes, ok, fromUrl));
      return;
    }
    const nameBytes = encoder.encode(name);
    const ptr = Module._vigil_trace_buffer(nameBytes.length, bytes.length);
    if (!ptr) {
      const why = encoder.encode(`${mib(bytes.length)} is over the page's limit of ${mib(kMaxBytes)}`);
      deliver(name, why, false, fromUrl);
      return;
    }
    // Read HEAPU8 after the call: reserving may have grown (and so replaced) the memory.
    Module.HEAPU8.set(nameBytes, ptr);
    Module.HEAPU8.set(bytes, ptr + nameBytes.length);
    Module._vigil_trace_deliver(ok ? 1 : 0, fromUrl ? 1 : 0);
    window.vigil.wake();
  }
  const fail = (name, why, fromUrl) => deliver(name, encoder.encode(why), false, fromUrl);

  async function readFile(file) {
    if (file.size > kMaxBytes) {
      fail(file.name, `${mib(file.size)} is over the page's limit of ${mib(kMaxBytes)}`, false);
      return;
    }
    try {
      deliver(file.name, new Uint8Array(await file.arrayBuffer()), true, false);
    } catch (e) {
      fail(file.name, `cannot read the file (${e.message || e})`, false);
    }
  }

  // Streams the response and stops at the limit, whatever Content-Length claims.
  async function readUrl(given) {
    try {
      const response = await fetch(new URL(given, location.href), { credentials: 'same-origin' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.getReader();
      const chunks = [];
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > kMaxBytes) {
          reader.cancel();
          throw new Error(`over the page's limit of ${mib(kMaxBytes)}`);
        }
        chunks.push(value);
      }
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.byteLength;
      }
      deliver(given, bytes, true, true);
    } catch (e) {
      fail(given, `cannot fetch it (${e.message || e})`, true);
    }
  }

  function pick() {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = '.csv,.txt,.json,.log,text/plain,text/csv,application/json';
    input.addEventListener('change', () => {
      if (input.files && input.files[0]) readFile(input.files[0]);
    });
    input.click();
  }

  // Any file dropped on the page goes to the phi demo.
  const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    const file = e.dataTransfer.files[0];
    if (file) readFile(file);
  });

  window.addEventListener('vigil:ready', () => {
    for (const hand of queue.splice(0)) hand();
  });

  const wanted = new URLSearchParams(location.search).get('trace');
  if (wanted) readUrl(wanted);

  window.vigilTrace = { pick, load: readFile, fetch: readUrl };
})();

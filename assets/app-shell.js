// The page side of the vigil web app (index.html): loading the WebAssembly with a progress bar,
// deciding when frames are drawn, and talking to a page that embeds the app in an iframe.
//
// Frames are drawn on demand. The app draws while its demo animates (a simulation playing) and
// for a short while after any input; otherwise it sleeps until the next input. It never draws
// while it cannot be seen: a hidden tab, a frame scrolled out of view (IntersectionObserver on
// the canvas, which in an iframe measures against the top page's viewport), or a frame its host
// page declared hidden with {type: 'vigil:visibility', visible: false}. See docs/embedding.md.
//
// It also follows the page's theme (theme=light|dark|auto, or the host's {type: 'vigil:theme'}),
// grows the canvas to the content on a narrow screen and tells an embedding page the height it
// needs ({type: 'vigil:size'}), and hands touches to the app one change per frame, keeping only
// those that land on a control: a finger on a plot or on empty space scrolls the page.
'use strict';

(() => {
  const canvas = document.getElementById('canvas');
  const status = document.getElementById('status');
  const bar = document.getElementById('progress');
  const loader = document.getElementById('loader');
  const embedded = window.parent !== window;
  // Frames keep coming this long after an input, so that hover, press and release all land.
  const kSettleMs = 400;
  // The app's first frames, which lay it out (App::animating): drawn together, see tick().
  const kLayoutFrames = 3;
  const kMaxFramesPerTask = 4;
  // At most one URL update (history entry rewrite and message to the host) this often.
  const kParamsEveryMs = 500;

  // ------------------------------------------------------------------------------ keyboard
  // Emscripten's GLFW listens for keys on window and cancels Tab's default action, which would
  // trap the keyboard in the demo; when this page is embedded in another, it would also swallow
  // the host page's typing. These capture listeners run first (registered before the app loads):
  // - keys reach the app only while the canvas has focus;
  // - Tab and Shift+Tab never reach it, so the browser moves focus on, out of the demo;
  // - Space, `.`, `r` and `?` are the demo's shortcuts when it has a control for them now
  //   (and no text field has the keyboard); a key the demo has no use for keeps its meaning;
  // - arrow keys and Enter move between and press the app's controls, and do not scroll.
  const kNavKeys = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Enter']);
  const typing = () => ready && Module._vigil_typing() === 1;
  window.addEventListener('keydown', (e) => {
    if (document.activeElement !== canvas || e.key === 'Tab') {
      e.stopImmediatePropagation();
      return;
    }
    wake();
    if (e.ctrlKey || e.metaKey || e.altKey || !ready || typing()) return;
    if (e.key.length === 1 && Module._vigil_shortcut(e.key.charCodeAt(0)) === 1) {
      e.preventDefault();  // no page scroll on Space, no character for GLFW
      e.stopImmediatePropagation();
      return;
    }
    if (kNavKeys.has(e.key)) e.preventDefault();
  }, true);
  for (const type of ['keypress', 'keyup']) {
    window.addEventListener(type, (e) => {
      if (document.activeElement !== canvas || e.key === 'Tab') e.stopImmediatePropagation();
    }, true);
  }
  canvas.addEventListener('mousedown', () => canvas.focus());

  // ------------------------------------------------------------------------------ visibility
  const seen = {
    tab: document.visibilityState !== 'hidden',
    viewport: true,  // until the observer says otherwise
    host: true,      // until the embedding page says otherwise
  };
  const isVisible = () => seen.tab && seen.viewport && seen.host;

  // --------------------------------------------------------------------------- frame loop
  let ready = false;     // the wasm runtime is up and main() has run
  let pending = false;   // a requestAnimationFrame is outstanding
  let sleeping = true;   // no frame since the loop last stopped: the next one resumes
  let settleUntil = 0;
  let frames = 0;        // drawn by this page, for tests and the host

  function tick() {
    pending = false;
    if (!ready || !isVisible()) {
      sleeping = true;
      return;
    }
    // The app lays itself out over its first few frames, and a canvas that grew to its content
    // must be drawn again at its new size. Built in one task and only the last one drawn, such
    // frames cost the browser one composite of the canvas instead of one each: on a phone without
    // GPU compositing that is most of a frame's cost, and the page's first seconds are its busiest.
    let more = false;
    for (let i = 0; i < kMaxFramesPerTask; ++i) {
      more = Module._vigil_frame(sleeping ? 1 : 0);
      sleeping = false;
      ++frames;
      const resized = fitContent();
      if (!resized && !(more && frames < kLayoutFrames)) break;
    }
    Module._vigil_draw();  // only the last frame built: the browser shows no other
    syncParams();
    showText();
    if (more || performance.now() < settleUntil) schedule();
    else sleeping = true;
  }

  function schedule() {
    if (pending || !ready || !isVisible()) return;
    pending = true;
    requestAnimationFrame(tick);
  }

  // Something changed that the app must show, without input: one frame (and more while the demo
  // animates). Frames at load are the page's heaviest work on a slow phone: no more than needed.
  function redraw() {
    schedule();
  }

  // Input arrived: draw for a little while, so that hover, press and release all land.
  function wake() {
    settleUntil = Math.max(settleUntil, performance.now() + kSettleMs);
    schedule();
  }

  function setSeen(key, value) {
    if (seen[key] === value) return;
    seen[key] = value;
    if (isVisible()) redraw();
    else flushParams();  // the host may unload a frame it no longer shows: tell it where we are
  }

  for (const type of ['pointerdown', 'pointermove', 'pointerup', 'pointercancel', 'pointerleave',
                      'wheel', 'touchstart', 'touchmove', 'touchend', 'keydown', 'keyup', 'focus', 'blur'])
    canvas.addEventListener(type, wake, { passive: true });
  window.addEventListener('resize', wake);
  document.addEventListener('visibilitychange',
                            () => setSeen('tab', document.visibilityState !== 'hidden'));
  // Half the demo on screen (or a screenful of it) is "in view": scripted scenes wait for it, so
  // that they start while the reader looks rather than when a corner first peeks in.
  const kInViewRatio = 0.5;
  // Not in view until the observer has measured: its first report can come after the app is up
  // (a busy machine delays the rendering step that delivers it), and a scene must not start on a
  // guess.
  let inView = !('IntersectionObserver' in window);
  function setInView(value) {
    if (inView === value) return;
    inView = value;
    if (ready) Module._vigil_set_in_view(inView ? 1 : 0);
    redraw();
  }
  if ('IntersectionObserver' in window)
    new IntersectionObserver((entries) => {
      for (const e of entries) {
        setSeen('viewport', e.isIntersecting);
        const screenful = e.intersectionRect.height >= 0.5 * window.innerHeight && window.innerHeight > 0 &&
                          !embedded;
        setInView(e.isIntersecting && (e.intersectionRatio >= kInViewRatio || screenful));
      }
    }, { threshold: [0, 0.25, kInViewRatio, 0.75, 1] }).observe(canvas);

  // ------------------------------------------------------------------------ reduced motion
  // motion=reduce in the URL, or the reader's system setting (motion=full overrides it): scenes
  // and autoplaying demos wait for play, and datagrams jump instead of gliding.
  const motionParam = new URLSearchParams(location.search).get('motion');
  const reduceMotion = matchMedia('(prefers-reduced-motion: reduce)');
  const motionReduced = () => motionParam === 'reduce' || (motionParam !== 'full' && reduceMotion.matches);
  function applyMotion() {
    if (!ready) return;
    Module._vigil_set_reduced_motion(motionReduced() ? 1 : 0);
    redraw();
  }
  reduceMotion.addEventListener('change', applyMotion);

  // --------------------------------------------------------------------------------- theme
  const query = new URLSearchParams(location.search);
  const themeParam = ['light', 'dark'].includes(query.get('theme')) ? query.get('theme') : 'auto';
  const darkScheme = matchMedia('(prefers-color-scheme: dark)');
  let hostTheme = null;  // the embedding page's word, from vigil:theme, wins once given
  const isDark = () => (hostTheme ? hostTheme === 'dark'
                                  : themeParam === 'auto' ? darkScheme.matches : themeParam === 'dark');
  function applyTheme() {
    document.documentElement.dataset.theme = isDark() ? 'dark' : 'light';  // the page around the canvas
    if (!ready) return;
    Module._vigil_set_theme(isDark() ? 1 : 0);
    redraw();
  }
  darkScheme.addEventListener('change', applyTheme);
  applyTheme();

  // ------------------------------------------------------------------------- content height
  // Laid out in one column (a narrow canvas), the demo is as tall as its content: the canvas
  // grows to it and the page scrolls. An embedding page is told the height either way, so that
  // it can size the frame (embed.js does).
  let reportedHeight = 0;
  // True when the canvas changed height: the frame just drawn must be drawn again at the new size.
  function fitContent() {
    const height = Module._vigil_content_height();
    if (!(height > 0)) return false;
    if (embedded && height !== reportedHeight) {
      reportedHeight = height;
      post({ type: 'vigil:size', height });
    }
    const wanted = Module._vigil_narrow() ? `${Math.max(window.innerHeight, height)}px` : '';
    if (canvas.style.height === wanted) return false;
    canvas.style.height = wanted;
    return true;
  }

  // ------------------------------------------------------------------- text for every reader
  // What the canvas shows, as text: the scene's caption is HTML laid over the room the app
  // leaves for it (so it can be read aloud, selected and translated), and a few sentences on
  // what the demo shows now go to a polite live region and to an embedding page
  // ({type: 'vigil:describe'}), whose figure can show them. A change of what happened (a member
  // died, a story stepped) is announced within a second; figures that only drift, at most every
  // ten seconds, so that a screen reader is not talked over.
  const captionBox = document.getElementById('caption');
  const summaryBox = document.getElementById('summary');
  const kDescribeEveryMs = 1000;
  const kFiguresEveryMs = 10000;
  const told = { title: '', caption: null, summary: '', events: null, checkedAt: -Infinity,
                 announcedAt: -Infinity, measuredFor: '' };

  function showCaption() {
    const c = JSON.parse(Module.UTF8ToString(Module._vigil_caption_json()));
    if (!c) {
      captionBox.hidden = true;
      return;
    }
    captionBox.hidden = false;
    if (captionBox.textContent !== c.text) captionBox.textContent = c.text;
    captionBox.classList.toggle('hint', c.hint);
    const canvasBox = canvas.getBoundingClientRect();
    const [x, y, width] = c.box;
    captionBox.style.left = `${canvasBox.left + scrollX + x}px`;
    captionBox.style.top = `${canvasBox.top + scrollY + y}px`;
    captionBox.style.width = `${width}px`;
    const height = captionBox.getBoundingClientRect().height;
    // The app makes room for what the page measured; once per text and width.
    const measuredFor = `${width}|${c.text}`;
    if (told.measuredFor !== measuredFor) {
      told.measuredFor = measuredFor;
      Module._vigil_caption_measured(height);
      redraw();
    }
    // Only the part inside the app's window shows, as the canvas would have drawn it.
    const [left, top, right, bottom] = c.clip;
    const cut = [Math.max(0, top - y), Math.max(0, x + width - right),
                 Math.max(0, y + height - bottom), Math.max(0, left - x)];
    captionBox.style.clipPath = cut.some((v) => v > 0) ? `inset(${cut.map((v) => `${v}px`).join(' ')})` : '';
  }

  function describe(now) {
    if (now - told.checkedAt < kDescribeEveryMs) return;
    told.checkedAt = now;
    const d = JSON.parse(Module.UTF8ToString(Module._vigil_describe_json()));
    const caption = captionBox.hidden ? '' : captionBox.textContent;
    if (d.title && d.title !== told.title) {
      told.title = d.title;
      canvas.setAttribute('aria-label', `${d.title}: interactive demo. Press ? for its keys.`);
    }
    const happened = d.events !== told.events;
    told.events = d.events;
    let changed = caption !== told.caption;
    if (d.summary !== told.summary && (happened || now - told.announcedAt >= kFiguresEveryMs)) {
      told.summary = d.summary;
      told.announcedAt = now;
      summaryBox.textContent = d.summary;
      changed = true;
    }
    if (changed) {
      told.caption = caption;
      post({ type: 'vigil:describe', title: d.title, caption, summary: told.summary });
    }
  }

  function showText() {
    showCaption();
    describe(performance.now());
  }

  // --------------------------------------------------------------------------------- touch
  // Emscripten's GLFW turns a touch into a mouse move and press in the same event, which Dear
  // ImGui 1.86 (no input queue) misses; these listeners run first (window, capture phase),
  // keep touches from GLFW and feed the app instead, which applies one change per frame.
  let finger = null;  // the identifier of the touch the app kept, if any
  let touchStyle = false;
  const touchOf = (e) => [...e.changedTouches].find((t) => t.identifier === finger);
  const canvasPoint = (t) => {
    const r = canvas.getBoundingClientRect();
    return [t.clientX - r.left, t.clientY - r.top];
  };
  function endFinger() {
    Module._vigil_touch_end();
    finger = null;
    wake();
  }
  window.addEventListener('touchstart', (e) => {
    if (e.target !== canvas) return;
    e.stopPropagation();
    if (!ready || !isVisible()) return;
    if (finger !== null || e.touches.length > 1) {  // a second finger: a pinch is the browser's
      if (finger !== null) endFinger();
      return;
    }
    const t = e.changedTouches[0];
    const kept = Module._vigil_touch_begin(...canvasPoint(t), sleeping ? 1 : 0);
    sleeping = false;
    touchStyle = true;
    if (kept) {
      finger = t.identifier;
      e.preventDefault();  // no scrolling, no emulated mouse events
    }
    wake();
  }, { capture: true, passive: false });
  window.addEventListener('touchmove', (e) => {
    if (e.target !== canvas) return;
    e.stopPropagation();
    const t = finger !== null && touchOf(e);
    if (!t) return;
    e.preventDefault();
    Module._vigil_touch_move(...canvasPoint(t));
    wake();
  }, { capture: true, passive: false });
  for (const type of ['touchend', 'touchcancel'])
    window.addEventListener(type, (e) => {
      if (e.target !== canvas) return;
      e.stopPropagation();
      if (finger === null || !touchOf(e)) return;
      if (e.cancelable) e.preventDefault();
      endFinger();
    }, { capture: true, passive: false });
  // A real mouse (never a finger's emulated one: those send no pointer events of type mouse).
  canvas.addEventListener('pointermove', (e) => {
    if (e.pointerType !== 'mouse' || !touchStyle || !ready) return;
    touchStyle = false;
    Module._vigil_mouse_used();
    wake();
  });

  // ------------------------------------------------------------------------- the host page
  function post(message) {
    // Only parameters travel, never the agents' token (see currentQuery), so any origin may
    // embed a demo and listen.
    if (embedded) window.parent.postMessage(message, '*');
  }

  window.addEventListener('message', (e) => {
    if (e.source !== window.parent || !e.data || typeof e.data !== 'object') return;
    if (e.data.type === 'vigil:visibility') setSeen('host', e.data.visible !== false);
    if (e.data.type === 'vigil:theme' && ['light', 'dark'].includes(e.data.theme)) {
      hostTheme = e.data.theme;
      applyTheme();
    }
  });

  // ------------------------------------------------------------------------ the URL state
  // The app's parameters as the reader set them, kept in this page's URL and sent to the host,
  // which can reload the frame from them after unloading it. The first report after start gives
  // the host the demo's full parameters, defaults included.
  let shownQuery = location.search.replace(/^\?/, '');
  let paramsTimer = 0;
  let paramsAt = 0;

  // Never carries the agents' token (App::query leaves it out).
  const currentQuery = () => Module.UTF8ToString(Module._vigil_query());

  function publishParams() {
    paramsTimer = 0;
    paramsAt = performance.now();
    const query = currentQuery();
    if (query === shownQuery) return;
    shownQuery = query;
    history.replaceState(history.state, '', `${location.pathname}?${query}${location.hash}`);
    post({ type: 'vigil:params', query });
  }

  function syncParams() {
    if (paramsTimer) return;
    const wait = Math.max(0, paramsAt + kParamsEveryMs - performance.now());
    paramsTimer = setTimeout(publishParams, wait);
  }

  function flushParams() {
    if (!ready) return;
    clearTimeout(paramsTimer);
    publishParams();
  }
  window.addEventListener('pagehide', flushParams);

  // ---------------------------------------------------------------------- loading the wasm
  const kilobytes = (n) => `${Math.round(n / 1024).toLocaleString('en')} KB`;

  function showProgress(done, total) {
    if (total > 0) {
      const share = Math.min(1, done / total);
      bar.style.width = `${(share * 100).toFixed(1)}%`;
      status.textContent = `Loading vigil… ${kilobytes(done)} of ${kilobytes(total)}`;
    } else {
      status.textContent = `Loading vigil… ${kilobytes(done)}`;
    }
  }

  // The size of the wasm as the app sees it, decompressed: written into this page at build
  // time; the Content-Length only when the server sent the file as it is.
  function expectedBytes(response) {
    const built = Number(document.documentElement.dataset.wasmBytes);
    if (Number.isFinite(built) && built > 0) return built;
    if (response.headers.get('content-encoding')) return 0;
    return Number(response.headers.get('content-length')) || 0;
  }

  // Streams the response through a byte counter, so that the browser compiles the module while
  // it downloads and the bar still moves.
  function counted(response) {
    const total = expectedBytes(response);
    let done = 0;
    const counter = new TransformStream({
      transform(chunk, controller) {
        done += chunk.byteLength;
        showProgress(done, total);
        controller.enqueue(chunk);
      },
      flush() { status.textContent = 'Starting vigil…'; },
    });
    return new Response(response.body.pipeThrough(counter),
                        { headers: { 'Content-Type': 'application/wasm' } });
  }

  async function instantiate(imports) {
    const response = await fetch('vigil.wasm', { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`vigil.wasm: HTTP ${response.status}`);
    return WebAssembly.instantiateStreaming(counted(response), imports);
  }

  function fail(what) {
    loader.removeAttribute('aria-hidden');
    status.textContent = `vigil stopped: ${what}`;
    status.className = 'error';
    document.body.classList.remove('loading');
  }

  window.Module = {
    canvas,
    print: (text) => console.log(text),
    printErr: (text) => console.warn(text),
    instantiateWasm(imports, receive) {
      instantiate(imports)
        .then(({ instance, module }) => receive(instance, module))
        .catch((e) => fail(String(e && e.message ? e.message : e)));
      return {};  // exports arrive asynchronously through receive()
    },
    onRuntimeInitialized() {
      ready = true;
      applyTheme();
      applyMotion();
      Module._vigil_set_in_view(inView ? 1 : 0);
      touchStyle = matchMedia('(pointer: coarse)').matches;
      Module._vigil_set_touch(touchStyle ? 1 : 0);
      document.body.classList.remove('loading');
      // An empty status would stay in the accessibility tree: the demo's own text takes over.
      // (The loader stays in the page, empty: its text was the page's largest paint.)
      status.textContent = '';
      loader.setAttribute('aria-hidden', 'true');
      redraw();
      window.dispatchEvent(new Event('vigil:ready'));  // for assets/trace-input.js
    },
    onAbort: fail,
  };

  // Which agents the live demo may connect to: `vigil demo` lists its agents (and the
  // fault-injection token, loopback only), an agent lists itself with an empty address meaning
  // this page's origin, `vigil serve` lists none. On a plain static host the file v1/demo that
  // ships with the app answers, with no agents.
  fetch('v1/demo', { cache: 'no-store' })
    .then((r) => (r.ok ? r.json() : null))
    .then((demo) => {
      if (demo && Array.isArray(demo.agents))
        for (const a of demo.agents) if (a && a.http === '') a.http = location.host;
      window.vigilDemo = demo;
    })
    .catch(() => { window.vigilDemo = null; })
    .finally(redraw);

  // For tests and embedding pages: the active demo's numbers, and how the page is drawing.
  window.vigil = {
    state() {
      if (!ready) return null;
      return JSON.parse(Module.UTF8ToString(Module._vigil_state_json()));
    },
    frames: () => frames,
    theme: () => (isDark() ? 'dark' : 'light'),
    // The link and the embed snippet the share / embed popup offers for the current demo.
    share: () => (ready ? JSON.parse(Module.UTF8ToString(Module._vigil_share_json())) : null),
    visible: isVisible,
    // The canvas' label and what the live region says now (see "text for every reader").
    describe: () => ({ label: canvas.getAttribute('aria-label'), summary: summaryBox.textContent,
                       caption: captionBox.hidden ? '' : captionBox.textContent,
                       reducedMotion: motionReduced() }),
    drawing: () => pending,
    wake,
  };
})();

// vigil demos in any page, with one script tag and one element per demo:
//
//   <script src="https://your.host/vigil/embed.js" async></script>
//   <div data-vigil-demo="phi" data-params="mean=1000&std=50"></div>
//
// Each [data-vigil-demo] element gets an iframe of the app that sits next to this script
// (index.html?demo=NAME&embed=1&PARAMS&theme=…). Each demo is a whole WebAssembly app with its own
// WebGL context, so a page with many of them must not keep them all alive:
//  - a frame starts loading when it comes within one screen of the viewport;
//  - it is told whether it is on screen ({type: 'vigil:visibility'}) and sleeps when it is not;
//  - it is unloaded beyond two screens, and reloaded as the reader left it ({type: 'vigil:params'});
//  - it takes the height its demo asks for ({type: 'vigil:size'});
//  - it takes the page's colours, light or dark, from the background behind it ({type: 'vigil:theme'});
//  - what it shows, as text ({type: 'vigil:describe'}), goes into a polite live region: shown in
//    the <figcaption> of a <figure> around the frame, read by screen readers only elsewhere.
// The protocol is described in docs/embedding.md.
//
// A classic script with no dependencies, so that any documentation generator can include it as it
// is. window.vigilEmbed = { hostDemos, scan, start, stats }; vigil-embed.mjs is its module form,
// for pages that host iframes of their own (hostDemos). Loaded twice, it keeps the first copy.
(() => {
  'use strict';

  // A second copy (a script tag and the module on one page) defers to the first.
  if (window.vigilEmbed) {
    const script = ownScript();
    if (script) window.vigilEmbed.start(script.src);
    return;
  }

  const kMaxQuery = 4096;        // a demo's parameters are a few hundred bytes; refuse anything absurd
  const kMinHeight = 120;        // CSS px: a frame is never shorter than this, whatever it is told,
  const kMaxHeight = 4000;       // nor taller than this
  const kDefaultHeight = 420;    // until the demo tells its height
  const kRescanDelayMs = 50;     // DOM changes come in bursts (a docs site swapping its page)
  const kDarkBelow = 0.4;        // relative luminance of the background under which a page is dark
  const kWord = '[A-Za-z0-9_.,:-]';
  // Values may also carry percent-escapes (the app writes a list's commas as %2C).
  const kValue = `(?:${kWord}|%[0-9A-Fa-f]{2})`;
  const kPair = new RegExp(`^${kWord}+=${kValue}*$`);
  const kName = /^[A-Za-z0-9_-]+$/;
  const kHeight = /^\d+(px)?$/;
  const kThemes = ['light', 'dark', 'auto'];
  const kAttributes = ['data-vigil-demo', 'data-params', 'data-theme', 'data-height', 'data-title'];
  const kMaxDescription = 2000;  // characters of a demo's text: a few sentences

  // --------------------------------------------------------------------- hosting frames
  const registry = new Map();  // iframe -> its demo, whichever host holds it
  const themed = new Set();    // demos whose theme follows the page

  // Sends only to a frame that shows the demo: posting to the about:blank that an unload (or a
  // fresh iframe) leaves behind would fail on its origin, and say so in the console.
  function post(demo, message) {
    if (!demo.loaded || !demo.frame.contentWindow) return;
    const doc = demo.frame.contentDocument;  // null once a demo of another origin has replaced it
    if (doc && doc.URL === 'about:blank') return;
    demo.frame.contentWindow.postMessage(message, demo.url.origin);
  }

  const tellVisibility = (demo) => post(demo, { type: 'vigil:visibility', visible: demo.onScreen });
  const tellTheme = (demo) => { if (demo.theme) post(demo, { type: 'vigil:theme', theme: demo.theme }); };

  // The same URL with key=value last and no other value for key. Edits the query as text: the
  // demo reads its parameters as written, and URLSearchParams would re-encode ',' and ':'.
  function withParam(url, key, value) {
    const pairs = url.search.replace(/^\?/, '').split('&')
      .filter((p) => p !== '' && p.split('=')[0] !== key);
    pairs.push(`${key}=${value}`);
    const out = new URL(url.href);
    out.search = pairs.join('&');
    return out;
  }

  // Frames that share load and unload margins. stats are live counters for pages and tests.
  function createHost({ loadMargin = '100%', unloadMargin = '200%' } = {}) {
    const stats = { demos: 0, everLoaded: 0, live: 0, loads: 0, unloads: 0, maxLive: 0 };
    const mine = new Map();  // iframe -> demo

    function load(demo) {
      if (demo.loaded) return;
      demo.loaded = true;
      if (demo.theme) demo.url = withParam(demo.url, 'theme', demo.theme);
      demo.frame.src = demo.url.href;
      ++stats.loads;
      ++stats.live;
      stats.maxLive = Math.max(stats.maxLive, stats.live);
      if (!demo.everLoaded) {
        demo.everLoaded = true;
        ++stats.everLoaded;
      }
    }

    function unload(demo) {
      if (!demo.loaded) return;
      demo.loaded = false;
      // Navigating away destroys the demo's document, its WebGL context and its memory; the
      // frame keeps its height, so that the page does not jump under the reader.
      demo.frame.src = 'about:blank';
      ++stats.unloads;
      --stats.live;
    }

    const observers = [];
    if ('IntersectionObserver' in window) {
      const observe = (margin, onEntry) => observers.push(new IntersectionObserver((entries) => {
        for (const e of entries) {
          const demo = mine.get(e.target);
          if (demo) onEntry(demo, e.isIntersecting);
        }
      }, { rootMargin: `${margin} 0px` }));
      // Loads wait for a task of their own, after every observer has reported: on a jump across
      // the page the frames left behind are unloaded first, so that fewer are ever alive at once.
      const ahead = new Set();
      let loadTimer = 0;
      const loadAhead = () => {
        loadTimer = 0;
        for (const demo of ahead) if (mine.has(demo.frame)) load(demo);
        ahead.clear();
      };
      observe(loadMargin, (demo, near) => {
        if (!near) return void ahead.delete(demo);
        ahead.add(demo);
        if (!loadTimer) loadTimer = setTimeout(loadAhead, 0);
      });
      observe(unloadMargin, (demo, near) => { if (!near) unload(demo); });
      observe('0px', (demo, onScreen) => {
        demo.onScreen = onScreen;
        tellVisibility(demo);
      });
    }

    // options: fitHeight (follow vigil:size), theme ('light' or 'dark' now), followPage (the
    // theme follows the page behind `element`).
    function add(frame, url, { fitHeight = false, theme = null, followPage = false, element = frame } = {}) {
      const demo = { frame, element, url, fitHeight, theme, followPage,
                     loaded: false, everLoaded: false, onScreen: false };
      demo.onLoad = () => {
        tellVisibility(demo);
        tellTheme(demo);
      };
      frame.addEventListener('load', demo.onLoad);
      mine.set(frame, demo);
      registry.set(frame, demo);
      if (followPage) {
        themed.add(demo);
        watchPageTheme();
      }
      ++stats.demos;
      if (observers.length === 0) load(demo);
      for (const o of observers) o.observe(frame);
      return demo;
    }

    function remove(frame) {
      const demo = mine.get(frame);
      if (!demo) return;
      for (const o of observers) o.unobserve(frame);
      frame.removeEventListener('load', demo.onLoad);
      if (demo.loaded) --stats.live;
      mine.delete(frame);
      registry.delete(frame);
      themed.delete(demo);
      --stats.demos;
    }

    return { stats, add, remove };
  }

  function demoShowing(source) {
    if (!source) return null;
    for (const demo of registry.values())
      if (demo.frame.contentWindow === source) return demo;
    return null;
  }

  function setHeight(frame, contentHeight) {
    const px = Math.round(Math.min(kMaxHeight, Math.max(kMinHeight, contentHeight)));
    // The demo measured its content: a border-box frame (a page's own CSS) also holds its
    // borders and padding.
    const cs = getComputedStyle(frame);
    const extra = cs.boxSizing !== 'border-box' ? 0
      : ['borderTopWidth', 'borderBottomWidth', 'paddingTop', 'paddingBottom']
        .reduce((sum, p) => sum + (parseFloat(cs[p]) || 0), 0);
    frame.style.height = `${px + extra}px`;
  }

  // The live region that carries a demo's text: in its figure's caption, where every reader sees
  // it, or just after the frame, for screen readers only.
  function describeRegion(demo) {
    if (demo.describeRegion && demo.describeRegion.isConnected) return demo.describeRegion;
    const region = document.createElement('span');
    region.className = 'vigil-describe';
    region.setAttribute('aria-live', 'polite');
    const figure = demo.frame.closest('figure');
    const caption = figure && figure.querySelector(':scope > figcaption');
    if (caption) {
      region.style.display = 'block';
      caption.appendChild(region);
    } else {
      Object.assign(region.style, { position: 'absolute', width: '1px', height: '1px', overflow: 'hidden',
                                    clipPath: 'inset(50%)', whiteSpace: 'nowrap' });
      demo.frame.after(region);
    }
    demo.describeRegion = region;
    return region;
  }

  function describe(demo, data) {
    const parts = [data.caption, data.summary].filter((t) => typeof t === 'string' && t);
    const text = parts.join(' ').slice(0, kMaxDescription);
    const region = describeRegion(demo);
    if (region.textContent !== text) region.textContent = text;
  }

  window.addEventListener('message', (e) => {
    const data = e.data;
    if (!data || typeof data !== 'object' || typeof data.type !== 'string') return;
    if (data.type !== 'vigil:params' && data.type !== 'vigil:size' && data.type !== 'vigil:describe') return;
    const demo = demoShowing(e.source);
    if (!demo || e.origin !== demo.url.origin) return;
    if (data.type === 'vigil:describe') {
      describe(demo, data);
    } else if (data.type === 'vigil:params') {
      const query = data.query;
      if (typeof query !== 'string' || query.length > kMaxQuery) return;
      demo.url = new URL(`${demo.url.pathname}?${query}`, demo.url);
    } else if (demo.fitHeight && typeof data.height === 'number' && Number.isFinite(data.height)) {
      setHeight(demo.frame, data.height);
    }
  });

  // ----------------------------------------------------------------------- the page's theme
  const prefersDark = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  let probe = null;  // a 1×1 canvas that reads colours getComputedStyle gives in other notations

  function parseColor(text) {
    const m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)$/.exec(text);
    if (m) {
      let a = m[4] === undefined ? 1 : Number(m[4]);
      if (m[5]) a /= 100;
      return { r: Number(m[1]), g: Number(m[2]), b: Number(m[3]), a };
    }
    if (!window.CSS || !CSS.supports('color', text)) return null;
    if (!probe) probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    if (!probe) return null;
    probe.clearRect(0, 0, 1, 1);
    probe.fillStyle = text;
    probe.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
    return { r, g, b, a: a / 255 };
  }

  const linear = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ({ r, g, b }) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);

  // What the browser paints where no element has a background: white, unless the root declares
  // a dark colour scheme (only dark, or both and the reader prefers dark).
  function canvasIsDark() {
    const scheme = getComputedStyle(document.documentElement).colorScheme || '';
    if (!/\bdark\b/.test(scheme)) return false;
    return !/\blight\b/.test(scheme) || Boolean(prefersDark && prefersDark.matches);
  }

  // 'dark' or 'light': the backgrounds from `element` outwards to the first opaque one,
  // composited, and dark if the result's relative luminance is below kDarkBelow.
  function pageTheme(element) {
    const layers = [];
    for (let n = element; n instanceof Element;
      n = n.parentElement || (n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null)) {
      const c = parseColor(getComputedStyle(n).backgroundColor);
      if (!c || c.a <= 0) continue;
      layers.push(c);
      if (c.a >= 1) break;
    }
    if (layers.length === 0) return canvasIsDark() ? 'dark' : 'light';
    let under = layers[layers.length - 1].a >= 1 ? layers.pop()
      : (canvasIsDark() ? { r: 18, g: 18, b: 18 } : { r: 255, g: 255, b: 255 });
    while (layers.length > 0) {
      const over = layers.pop();
      const mix = (k) => over[k] * over.a + under[k] * (1 - over.a);
      under = { r: mix('r'), g: mix('g'), b: mix('b') };
    }
    return luminance(under) < kDarkBelow ? 'dark' : 'light';
  }

  function recheckThemes() {
    for (const demo of themed) {
      if (!demo.element.isConnected) continue;
      const theme = pageTheme(demo.element);
      if (theme === demo.theme) continue;
      demo.theme = theme;
      tellTheme(demo);
    }
  }

  // Sites switch themes with an attribute on <html> or <body> (MkDocs Material's
  // data-md-color-scheme, Docusaurus' data-theme, Sphinx themes' classes), with the reader's
  // preference, or with a background that then fades in (transitionend).
  let watching = false;
  function watchPageTheme() {
    if (watching) return;
    watching = true;
    const relevant = (name) => name === 'class' || name === 'style' || name.startsWith('data-');
    const observer = new MutationObserver((records) => {
      if (records.some((r) => relevant(r.attributeName))) recheckThemes();
    });
    const observeRoots = () => {
      for (const el of [document.documentElement, document.body])
        if (el) observer.observe(el, { attributes: true });
    };
    observeRoots();
    if (!document.body) document.addEventListener('DOMContentLoaded', observeRoots, { once: true });
    if (prefersDark) prefersDark.addEventListener('change', recheckThemes);
    document.addEventListener('transitionend', (e) => {
      if (e.propertyName === 'background-color') recheckThemes();
    }, true);
  }

  // --------------------------------------------------------- one element, one demo (the kit)
  let kit = null;       // the host of the [data-vigil-demo] frames, once started
  let appBase = null;   // the directory of the app: index.html is there
  const seen = new WeakMap();   // element -> the attributes it was processed with
  const frames = new Map();     // element -> its iframe
  const roots = new WeakMap();  // element -> the shadow root that holds its iframe

  // The demo an element asks for, or why it cannot be shown.
  function readConfig(el) {
    const name = el.getAttribute('data-vigil-demo') || '';
    if (!kName.test(name)) return { error: `data-vigil-demo="${name}" is not a demo name` };
    const params = (el.getAttribute('data-params') || '').trim();
    if (params.length > kMaxQuery) return { error: `data-params is longer than ${kMaxQuery} characters` };
    const pairs = params === '' ? [] : params.split('&');
    const bad = pairs.find((p) => !kPair.test(p));
    if (bad !== undefined)
      return { error: `data-params must be key=value pairs of A-Z a-z 0-9 _ . , : - joined by &, not "${bad}"` };
    const given = (key) => {
      const pair = pairs.find((p) => p.split('=')[0] === key);
      return pair === undefined ? null : pair.slice(key.length + 1);
    };
    const theme = el.getAttribute('data-theme') || given('theme') || 'auto';
    if (!kThemes.includes(theme)) return { error: `the theme "${theme}" is not light, dark or auto` };
    const heightText = (el.getAttribute('data-height') || `${kDefaultHeight}`).trim();
    if (!kHeight.test(heightText)) return { error: `data-height="${heightText}" is not a number of pixels` };
    const height = Math.min(kMaxHeight, Math.max(kMinHeight, parseInt(heightText, 10)));
    const own = new Set(['demo', 'embed', 'theme']);
    const query = [`demo=${name}`, 'embed=1', ...pairs.filter((p) => !own.has(p.split('=')[0]))].join('&');
    const title = el.getAttribute('data-title') || `vigil demo: ${name}`;
    return { name, query, theme, height, title };
  }

  // A shadow root keeps the iframe out of the element's own children, which a framework that
  // rendered the element (React hydrating a Docusaurus page) expects to find as it left them,
  // and out of reach of the page's iframe styles. Elements that cannot have one hold it directly.
  function holderOf(el) {
    if (roots.has(el)) return roots.get(el);
    let root;
    try {
      root = el.attachShadow({ mode: 'open' });
    } catch {
      root = el;
    }
    roots.set(el, root);
    return root;
  }

  function forget(el) {
    const frame = frames.get(el);
    if (!frame) return;
    kit.remove(frame);
    frame.remove();
    frames.delete(el);
  }

  function process(el) {
    const signature = kAttributes.map((a) => el.getAttribute(a)).join('\n');
    if (seen.get(el) === signature) return false;
    seen.set(el, signature);
    forget(el);  // its attributes changed: a new demo in the same element
    const config = readConfig(el);
    if (config.error) {
      console.warn(`vigil embed: ${config.error}; this demo is not shown.`, el);
      return false;
    }
    const frame = document.createElement('iframe');
    frame.title = config.title;
    frame.setAttribute('part', 'frame');  // [data-vigil-demo]::part(frame) styles it
    frame.style.cssText = 'display: block; width: 100%; border: 0; margin: 0; padding: 0; '
      + `box-sizing: content-box; height: ${config.height}px`;
    holderOf(el).replaceChildren(frame);
    frames.set(el, frame);
    const followPage = config.theme === 'auto';
    kit.add(frame, new URL(`index.html?${config.query}`, appBase), {
      fitHeight: true,
      followPage,
      theme: followPage ? pageTheme(el) : config.theme,
      element: el,
    });
    return true;
  }

  // Processes the [data-vigil-demo] elements not seen yet (or whose attributes changed), drops
  // the demos of elements no longer in the page, and rechecks the page's theme. Returns how many
  // demos it added.
  function scan() {
    if (!kit) start();
    for (const el of [...frames.keys()]) {
      if (!el.isConnected) {
        forget(el);
        seen.delete(el);
      }
    }
    let added = 0;
    for (const el of document.querySelectorAll('[data-vigil-demo]')) if (process(el)) ++added;
    recheckThemes();
    return added;
  }

  // Starts the kit: scans now (or once the document is parsed), and again whenever elements
  // come, go or change, as on documentation sites that swap pages without reloading.
  function start(base) {
    if (kit) return;
    appBase = new URL('.', base || document.baseURI).href;
    kit = createHost({ loadMargin: '100%', unloadMargin: '200%' });
    const begin = () => {
      scan();
      let timer = 0;
      new MutationObserver(() => {
        if (!timer) timer = setTimeout(() => { timer = 0; scan(); }, kRescanDelayMs);
      }).observe(document.documentElement,
                 { childList: true, subtree: true, attributes: true, attributeFilter: kAttributes });
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', begin, { once: true });
    else begin();
  }

  // Hosts iframes that a page made itself (data-src or src): lazy loading, visibility and
  // unloading as above; their size and colours stay the page's. Returns live counters.
  function hostDemos(list, options) {
    const host = createHost(options);
    for (const frame of list) {
      const src = frame.dataset.src || frame.getAttribute('src');
      if (!src) continue;
      const url = new URL(src, document.baseURI);
      if (frame.getAttribute('src')) frame.removeAttribute('src');
      host.add(frame, url, { fitHeight: Boolean(options && options.fitHeight) });
    }
    return host.stats;
  }

  // The script that loaded this one, whose directory holds the app. None when imported as a
  // module (vigil-embed.mjs): that page hosts frames of its own or calls start() itself.
  function ownScript() {
    if (document.currentScript) return document.currentScript;
    const named = [...document.querySelectorAll('script[src]')].filter((s) => {
      try {
        return /(^|\/)embed\.js$/.test(new URL(s.src, document.baseURI).pathname);
      } catch {
        return false;
      }
    });
    return named.length > 0 ? named[named.length - 1] : null;
  }

  window.vigilEmbed = {
    hostDemos,
    scan,
    start,
    get stats() { return kit ? kit.stats : null; },
  };
  const script = ownScript();
  if (script) start(script.src);
})();

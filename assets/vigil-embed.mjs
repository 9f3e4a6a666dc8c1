// Hosting vigil demos in a page. Each demo is a whole WebAssembly app with its own WebGL
// context, so a page with many of them must not keep them all alive:
//  - a frame starts loading when it comes within `loadMargin` of the viewport;
//  - it is told whether it is on screen ({type: 'vigil:visibility'}), and sleeps when it is not;
//  - it is unloaded when it is more than `unloadMargin` away, and reloaded as the reader left it
//    (the demo reports its parameters with {type: 'vigil:params', query}).
// The protocol is described in docs/embedding.md; any page can use this module or speak it.
//
//   import { hostDemos } from './vigil-embed.mjs';
//   hostDemos(document.querySelectorAll('iframe[data-src]'));

const kMaxQuery = 4096;  // a demo's parameters are a few hundred bytes; refuse anything absurd

export function hostDemos(frames, { loadMargin = '100%', unloadMargin = '200%' } = {}) {
  const demos = new Map();  // iframe -> its record
  const stats = { demos: 0, everLoaded: 0, live: 0, loads: 0, unloads: 0, maxLive: 0 };

  for (const frame of frames) {
    const src = frame.dataset.src || frame.getAttribute('src');
    if (!src) continue;
    const url = new URL(src, document.baseURI);
    demos.set(frame, { frame, url, loaded: false, everLoaded: false, onScreen: false });
    if (frame.getAttribute('src')) frame.removeAttribute('src');
  }
  stats.demos = demos.size;

  function tell(demo) {
    if (!demo.loaded || !demo.frame.contentWindow) return;
    demo.frame.contentWindow.postMessage({ type: 'vigil:visibility', visible: demo.onScreen },
                                         demo.url.origin);
  }

  function load(demo) {
    if (demo.loaded) return;
    demo.loaded = true;
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
    // Navigating away destroys the demo's document, its WebGL context and its memory.
    demo.frame.src = 'about:blank';
    ++stats.unloads;
    --stats.live;
  }

  for (const demo of demos.values())
    demo.frame.addEventListener('load', () => tell(demo));

  window.addEventListener('message', (e) => {
    if (!e.data || typeof e.data !== 'object' || e.data.type !== 'vigil:params') return;
    for (const demo of demos.values()) {
      if (demo.frame.contentWindow !== e.source || e.origin !== demo.url.origin) continue;
      const query = e.data.query;
      if (typeof query !== 'string' || query.length > kMaxQuery) return;
      demo.url = new URL(`${demo.url.pathname}?${query}`, demo.url);
      return;
    }
  });

  if (!('IntersectionObserver' in window)) {
    for (const demo of demos.values()) load(demo);
    return stats;
  }
  const observe = (margin, onEntry) => {
    const observer = new IntersectionObserver((entries) => {
      for (const e of entries) onEntry(demos.get(e.target), e.isIntersecting);
    }, { rootMargin: `${margin} 0px` });
    for (const frame of demos.keys()) observer.observe(frame);
  };
  observe(loadMargin, (demo, near) => { if (near) load(demo); });
  observe(unloadMargin, (demo, near) => { if (!near) unload(demo); });
  observe('0px', (demo, onScreen) => {
    demo.onScreen = onScreen;
    tell(demo);
  });
  return stats;
}

// The module form of embed.js, for pages that host iframes of their own (the explainer): one
// implementation, loaded once per page even when a page also has embed.js as a script tag.
//
//   import { hostDemos } from './vigil-embed.mjs';
//   const stats = hostDemos(document.querySelectorAll('iframe[data-src]'),
//                           { loadMargin: '100%', unloadMargin: '200%' });
//
// hostDemos returns live counters: demos, everLoaded, live, maxLive, loads, unloads.
// scan() and start(appDirectoryUrl) turn [data-vigil-demo] elements into demos, as the script
// tag does by itself. The protocol is described in docs/embedding.md.
import './embed.js';

export const { hostDemos, scan, start } = window.vigilEmbed;

// Screenshots of the SWIM demo's scenes, each taken mid-story with packets in flight.
//
//   node scripts/scene_screenshots.mjs --vigil build/bin/vigil --web build/web
//
// writes docs/images/scene-<name>.png (1280 px wide, light theme). With --out DIR --all 1 it writes
// every scene at 1280 and 390 px, light and dark, into DIR instead (for looking, not for the docs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drawFrames, launchBrowser, parseArgs, startServer, waitForFrames } from '../tests/e2e/harness.mjs';

const args = parseArgs(process.argv.slice(2), ['vigil', 'web']);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = args.out ? path.resolve(args.out) : path.join(root, 'docs/images');
// The beat to photograph (state().step, from 0), and the packet kinds that should be in the air then.
const scenes = [
  ['crash', 3, ['ping-req']],
  ['indirect-probe', 3, ['ping', 'ack', 'ping-req']],
  ['refutation', 6, ['alive']],
  ['lifeguard', 2, ['suspect']],
  ['partition', 3, ['dead', 'suspect']],
];
const shots = args.all ? [[1280, 'light'], [1280, 'dark'], [390, 'light'], [390, 'dark']] : [[1280, 'light']];

const server = await startServer(args.vigil, args.web);
try {
  for (const [width, theme] of shots) {
    // A browser per width and theme: one browser through all twenty pages has been seen to crash.
    const browser = await launchBrowser();
    const phone = width < 600;
    const context = await browser.newContext({ viewport: { width, height: phone ? 1000 : 760 },
                                               deviceScaleFactor: phone ? 2 : 1 });
    for (const [name, beat, kinds] of scenes) {
      const page = await context.newPage();
      await page.goto(`${server.url}index.html?demo=swim&scene=${name}&theme=${theme}`);
      await waitForFrames(page, 2, 60000);
      // Mid-story: the beat reached and one of its packets in the air.
      await page.waitForFunction(([b, k]) => {
        const s = window.vigil.state();
        return s.step >= b && k.some((kind) => s.in_flight[kind] > 0);
      }, [beat, kinds], { timeout: 120000, polling: 30 });
      // Paused there, so that the picture is the moment found rather than one a little later.
      const pause = (await page.evaluate(() => window.vigil.state())).layout.items.find((i) => i.label === 'pause');
      await page.mouse.click(pause.x + pause.w / 2, pause.y + pause.h / 2);
      await drawFrames(page, 3);
      const file = args.all ? path.join(out, `scene-${name}-${width}-${theme}.png`) : path.join(out, `scene-${name}.png`);
      // The docs show the story, not the controls: the caption, the ring and its legend.
      const rect = (await page.evaluate(() => window.vigil.state())).ring.rect;
      const dpr = phone ? 2 : 1;
      const clip = args.all ? undefined : { x: rect[0] / dpr - 4, y: 56, width: (rect[2] - rect[0]) / dpr + 8,
                                           height: rect[3] / dpr + 30 - 56 };
      await page.screenshot({ path: file, clip });
      console.log(`wrote ${file}`);
      await page.close();
    }
    await context.close();
    await browser.close();
  }
} finally {
  server.stop();
}

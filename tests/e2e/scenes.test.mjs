// Scripted scenes (scene=NAME) in headless Chromium: the phi demo's pause-crash and the retry
// demo's outage-storm tell their beats in order, with captions that change and carry the live
// numbers; replay goes back to the first beat; step advances exactly one unit; and a scene does
// not start while its demo is less than half on screen.
import { check, drawFrames, launchBrowser, openPage, parseArgs, startServer,
         waitForFrames } from './harness.mjs';

const args = parseArgs(process.argv.slice(2));
const server = await startServer(args.vigil, args.web);
const browser = await launchBrowser();

// --part phi|fleet|server runs one story alone (all three when absent).
const wanted = (part) => !args.part || args.part === part;
const state = (target) => target.evaluate(() => window.vigil.state());

// Clicks the scene strip's button `label` (the topmost widget of that name: the strip is drawn
// above the demo's own controls), in `target` (a page or a frame). A playing story may move the
// button between the reading of its place and the click (a caption grows a line): when `done`
// is given and the state does not satisfy it after the click, click again (three tries at most).
async function press(page, target, label, done = null) {
  for (let attempt = 0; attempt < 3; ++attempt) {
    await clickOnce(page, target, label);
    if (!done || done(await state(target))) return;
  }
  throw new Error(`pressing "${label}" had no effect`);
}

async function clickOnce(page, target, label) {
  // The layout record trails the picture by a frame: draw two before reading where things are.
  await drawFrames(target, 2);
  const s = await state(target);
  const items = s.layout.items.filter((i) => i.label === label).sort((a, b) => a.y - b.y);
  if (!items.length) throw new Error(`no widget "${label}"`);
  const box = await target.locator('canvas').boundingBox();
  const it = items[0];
  // A frame between the pointer's moves, as a hand gives it: hover, press, release.
  const frame = async (act) => {
    const drawn = await target.evaluate(() => window.vigil.frames());
    await act();
    await target.waitForFunction((k) => window.vigil.frames() > k, drawn, { timeout: 15000, polling: 20 });
  };
  await frame(() => page.mouse.move(box.x + it.x + it.w / 2, box.y + it.y + it.h / 2));
  await frame(() => page.mouse.down());
  await frame(() => page.mouse.up());
  await drawFrames(target, 1);  // the frame that shows what the click did
}

async function until(target, predicate, arg, timeout = 30000) {
  await target.waitForFunction(predicate, arg, { timeout, polling: 30 });
  return state(target);
}

// The state in the very poll that first sees the scene started: on a loaded machine the story can
// move on a beat between that poll and a second read.
async function whenStarted(target) {
  const handle = await target.waitForFunction(() => {
    const s = window.vigil.state();
    return s && s.scene_started ? s : null;
  }, null, { timeout: 30000, polling: 30 });
  return handle.jsonValue();
}

try {
  // ------------------------------------------------------------------ phi: pause, then crash
  if (wanted('phi')) {
    const { page, errors } = await openPage(browser, { width: 1280, height: 800 });
    // The demo in a page of text, its top three quarters below the fold: a quarter of it shows.
    const hostUrl = `${server.url}scene-host.html`;
    await page.route(hostUrl, (route) => route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html><body style="margin:0">
        <p style="height:610px;margin:0">A paragraph above the demo.</p>
        <iframe id="demo" src="/?demo=phi&scene=pause-crash" style="display:block;width:1200px;height:760px;border:0"></iframe>
        <p style="height:1200px">More text.</p></body></html>` }));
    await page.goto(hostUrl);
    const frame = await (await page.waitForSelector('#demo')).contentFrame();
    await waitForFrames(frame, 3);
    await drawFrames(frame, 5);
    let s = await state(frame);
    check(s.scene === 'pause-crash' && s.beats === 5, `the phi demo tells pause-crash in ${s.beats} beats`);
    check(s.frame >= 8 && !s.scene_started && s.live.sim_ms === 0 && s.caption === '',
          `a quarter on screen, ${s.frame} frames drawn: the scene waits at 0 ms`);

    await page.evaluate(() => document.getElementById('demo').scrollIntoView());
    s = await whenStarted(frame);
    check(s.step === 0 && s.caption.length > 20, `in view, it starts at beat 0: "${s.caption.slice(0, 60)}..."`);

    // The story, watched: each beat in turn, each with its own caption.
    const seen = [{ step: s.step, caption: s.caption }];
    const started = Date.now();
    while (Date.now() - started < 60000) {
      s = await state(frame);
      if (s.step !== seen[seen.length - 1].step) seen.push({ step: s.step, caption: s.caption, sim: s.live.sim_ms });
      if (s.step === s.beats - 1 && !s.scene_playing) break;
      await page.waitForTimeout(50);  // a poll interval: the loop ends on the state above
    }
    check(seen.map((b) => b.step).join(',') === '0,1,2,3,4', `beats in order: ${seen.map((b) => b.step).join(',')}`);
    check(new Set(seen.map((b) => b.caption)).size === 5, 'every beat has its own caption');
    const told = seen[2].caption;
    check(/phi peaked at (\d+\.\d|∞)/.test(told) && /std-dev grew from \d+ to \d+ ms/.test(told),
          `the pause is narrated with its numbers: "${told}"`);
    const phiRow = s.live.detectors[3];
    const phiNow = s.live.phi[s.model];
    check(phiNow >= s.live.thresholds[0],
          `after the crash phi(${s.model}) = ${phiNow} is above the threshold ${s.live.thresholds[0]}`);
    const detected = s.caption.match(/Detected (\d+) ms after the crash/);
    check(detected && Number(detected[1]) === phiRow.detection_ms,
          `the caption gives the detection time, ${detected && detected[1]} ms, as the table does`);
    const falseMs = seen[2].caption.match(/suspected a live sender for (\d+) ms/);
    check(falseMs && Number(falseMs[1]) === phiRow.false_suspicion_ms,
          `the false suspicion lasted ${falseMs && falseMs[1]} ms in the caption and in the table`);
    check(s.live.crashed && !s.scene_playing, 'the story ends held on the crash');

    // Replay: back to beat 0 and time 0, playing. Pause it, then step heartbeat by heartbeat.
    await press(page, frame, 'replay');
    s = await state(frame);
    // It plays on at once, so a loaded machine reads it some frames later: before the pause (4 s)
    // is still the first beat.
    check(s.step === 0 && s.live.sim_ms < 4000 && s.scene_playing,
          `replay starts over at beat 0 (${s.live.sim_ms} ms simulated)`);
    await press(page, frame, 'pause', (t) => !t.scene_playing);
    s = await state(frame);
    check(!s.scene_playing, 'pause holds the scene');
    // A paused story replayed starts over paused: the steps below begin at its start, however
    // late the pause landed on a loaded machine.
    await press(page, frame, 'replay', (t) => t.live.sim_ms < 1000);
    s = await state(frame);
    if (s.scene_playing) {  // the pause came after the story's end, which replays playing
      await press(page, frame, 'pause', (t) => !t.scene_playing);
      await press(page, frame, 'replay', (t) => t.live.sim_ms < 1000 && !t.scene_playing);
      s = await state(frame);
    }
    check(!s.scene_playing && s.step === 0, `replayed while paused, it starts over paused (${s.live.sim_ms} ms)`);
    for (let i = 0; i < 3; ++i) {
      const before = await state(frame);
      await press(page, frame, 'step');
      s = await state(frame);
      check(s.live.received === before.live.received + 1 && s.live.silence_ms === 0 &&
            s.live.sim_ms > before.live.sim_ms && s.step === before.step,
            `step ${i + 1}: one heartbeat more (${s.live.received}), at its arrival ${s.live.sim_ms} ms`);
    }
    check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
    await page.close();
  }

  // ------------------------------------------------------- retry fleet: the storm, step by step
  if (wanted('fleet')) {
    const { page, errors } = await openPage(browser, { width: 1280, height: 800 });
    await page.goto(`${server.url}?demo=retry&view=fleet&scene=outage-storm&speed=2`);
    await waitForFrames(page, 2);
    let s = await whenStarted(page);
    check(s.scene === 'outage-storm' && s.beats === 7 && s.step <= 1, `the fleet view tells outage-storm from its start (${s.scene}, ${s.beats} beats, at ${s.step})`);
    await press(page, page, 'pause', (t) => !t.fleet.playing);
    await press(page, page, 'replay');
    s = await state(page);
    check(s.step === 0 && s.scene_second === 0 && s.fleet.second === 0 && !s.fleet.playing,
          `replay while paused: beat 0 at second 0, still paused (beat ${s.step}, second ${s.scene_second}, fleet second ${s.fleet.second}, playing ${s.fleet.playing})`);
    const captions = [s.caption];
    const beatAt = [];
    let second = s.scene_second;
    while (s.step < 3 && second < 30) {
      const before = s;
      await press(page, page, 'step');
      s = await state(page);
      check(s.scene_second === before.scene_second + 1 && s.fleet.second === before.fleet.second + 1 && !s.fleet.playing,
            `step: one simulated second (${s.scene_second} s)`);
      if (s.step !== before.step) {
        check(s.step === before.step + 1 && s.caption !== before.caption, `beat ${s.step} at ${s.scene_second} s: "${s.caption}"`);
        captions.push(s.caption);
        beatAt.push(s.scene_second);
      }
      second = s.scene_second;
    }
    check(beatAt.join(',') === '1,3,6', `stepped, the beats fall at seconds ${beatAt.join(',')}`);
    // Played on, the caption follows the clock: a new reading at 10 s and 15 s, the last at 20 s.
    await press(page, page, 'play', (t) => t.fleet.playing || t.step === 4);
    s = await until(page, () => window.vigil.state().step === 4);
    check(s.scene_second >= 10 && s.scene_second < 15 && /^10 s: /.test(s.caption),
          `played on: beat 4 at ${s.scene_second} s: "${s.caption}"`);
    s = await until(page, () => window.vigil.state().step === 6);
    check(s.scene_second >= 20 && /^20 s: /.test(s.caption) && !captions.includes(s.caption),
          `the last beat at ${s.scene_second} s: "${s.caption}"`);
    const none = s.fleet.strategies.none;
    check(none.offered[0] > 10 * s.fleet.capacity,
          `the storm: ${none.offered[0]} calls in second 1 against a capacity of ${s.fleet.capacity} req/s`);
    const storm = captions[1].match(/([\d,]+) calls reached the server/);
    check(storm && Number(storm[1].replaceAll(',', '')) === none.offered[0], 'the storm caption quotes the live count');
    check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
    await page.close();
  }

  // ------------------------------------------------ retry server: metastable, then the budget
  if (wanted('server')) {
    const { page, errors } = await openPage(browser, { width: 1280, height: 800 });
    await page.goto(`${server.url}?demo=retry&view=server&scene=outage-storm&speed=8`);
    await waitForFrames(page, 2);
    let s = await whenStarted(page);
    check(s.beats === 8, 'the server view tells outage-storm in 8 beats');
    const seen = [];
    let stormOffered = 0;
    const started = Date.now();
    while (Date.now() - started < 90000) {
      s = await state(page);
      if (!seen.length || s.step !== seen[seen.length - 1].step) seen.push({ step: s.step, caption: s.caption });
      if (s.step >= 2 && s.step <= 4 && s.server.run && s.server.run.last)
        stormOffered = Math.max(stormOffered, s.server.run.last.offered);
      if (s.step === s.beats - 1) break;
      await page.waitForTimeout(30);  // a poll interval: the loop ends on the state above
    }
    const steps = seen.map((b) => b.step);
    check(steps.every((v, i) => i === 0 || v > steps[i - 1]) && steps[steps.length - 1] === 7,
          `beats in order: ${steps.join(',')}`);
    check(new Set(seen.map((b) => b.caption)).size === seen.length, 'each beat its own caption');
    check(stormOffered > s.server.capacity,
          `during the storm clients offered ${stormOffered} req/s, above the capacity ${s.server.capacity}`);
    check(s.server.mitigations === 'budget' && s.server.baseline, 'act 2 runs with a retry budget beside none');
    const m = s.caption.match(/back to normal (\d+) s after the slowdown and is now ([\d,]+) req\/s .* without it, goodput ([\d,]+)/);
    check(m && Number(m[2].replaceAll(',', '')) >= 0.9 * s.server.arrival && Number(m[3].replaceAll(',', '')) < 0.5 * s.server.arrival,
          `the budget recovers and none does not: "${s.caption}"`);
    check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
}

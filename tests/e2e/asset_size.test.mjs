// The web app stays small: vigil.wasm within 1,200,000 bytes as built and 600,000 compressed
// (gzip -9, and brotli at quality 11, as a server would send it), and its compiled-in font is the
// subset the panels need (web/ui_font.cmake) and still maps the Greek and symbols they draw.
//   node tests/e2e/asset_size.test.mjs --web build/web
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { check, parseArgs } from './harness.mjs';

const kMaxRaw = 1_200_000;
const kMaxCompressed = 600_000;

function sizes(bytes) {
  return {
    raw: bytes.length,
    gzip: zlib.gzipSync(bytes, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }).length,
  };
}

// The wasm's initial linear memory: its active data segments laid at their offsets. The linker
// drops runs of zeros from segments (memory is zero-filled), so data is whole only here.
function initialMemory(wasm) {
  let at = 8;
  const leb = () => {
    let value = 0, shift = 0, byte;
    do {
      byte = wasm[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const segments = [];
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = leb();
    const end = at + size;
    if (id === 11) {
      for (let n = leb(); n > 0; --n) {
        const flags = leb();
        if (flags === 1) { at += leb(); continue; }  // passive: not in the initial memory
        if (flags === 2) leb();  // memory index
        if (wasm[at++] !== 0x41) throw new Error('data segment offset is not an i32.const');
        const offset = leb();  // small positive offsets: the signed LEB reads the same
        if (wasm[at++] !== 0x0b) throw new Error('data segment offset expression too long');
        const length = leb();
        segments.push({ offset, bytes: wasm.subarray(at, at + length) });
        at += length;
      }
    }
    at = end;
  }
  const memory = Buffer.alloc(Math.max(0, ...segments.map((s) => s.offset + s.bytes.length)));
  for (const s of segments) s.bytes.copy(memory, s.offset);
  return memory;
}

// TrueType fonts inside a binary: an sfnt header (version 1.0, a table count whose searchRange
// agrees with it) followed by table records with printable tags, each inside the binary.
function findFonts(bin) {
  const fonts = [];
  for (let at = bin.indexOf(Buffer.from([0, 1, 0, 0])); at >= 0 && at + 12 <= bin.length;
       at = bin.indexOf(Buffer.from([0, 1, 0, 0]), at + 1)) {
    const count = bin.readUInt16BE(at + 4);
    if (count < 4 || count > 64 || at + 12 + 16 * count > bin.length) continue;
    if (bin.readUInt16BE(at + 6) !== 16 * 2 ** Math.floor(Math.log2(count))) continue;
    const tables = new Map();
    for (let i = 0; i < count; ++i) {
      const record = at + 12 + 16 * i;
      const tag = bin.toString('latin1', record, record + 4);
      const offset = bin.readUInt32BE(record + 8);
      const length = bin.readUInt32BE(record + 12);
      if (!/^[ -~]{4}$/.test(tag) || at + offset + length > bin.length) break;
      tables.set(tag, { offset: at + offset, length });
    }
    if (tables.size === count && tables.has('cmap') && tables.has('glyf')) fonts.push({ at, tables });
  }
  return fonts;
}

// The glyph a codepoint maps to through the font's Unicode BMP cmap (format 4); 0 if none.
function glyphOf(bin, font, codepoint) {
  const cmap = font.tables.get('cmap').offset;
  for (let i = 0, n = bin.readUInt16BE(cmap + 2); i < n; ++i) {
    const platform = bin.readUInt16BE(cmap + 4 + 8 * i);
    const encoding = bin.readUInt16BE(cmap + 6 + 8 * i);
    const sub = cmap + bin.readUInt32BE(cmap + 8 + 8 * i);
    if (!((platform === 3 && encoding === 1) || platform === 0) || bin.readUInt16BE(sub) !== 4) continue;
    const segments = bin.readUInt16BE(sub + 6) / 2;
    const ends = sub + 14, starts = ends + 2 * segments + 2;
    const deltas = starts + 2 * segments, rangeOffsets = deltas + 2 * segments;
    for (let s = 0; s < segments; ++s) {
      const end = bin.readUInt16BE(ends + 2 * s), start = bin.readUInt16BE(starts + 2 * s);
      if (codepoint > end) continue;
      if (codepoint < start) return 0;
      const delta = bin.readUInt16BE(deltas + 2 * s);
      const rangeOffset = bin.readUInt16BE(rangeOffsets + 2 * s);
      if (rangeOffset === 0) return (codepoint + delta) & 0xffff;
      const glyph = bin.readUInt16BE(rangeOffsets + 2 * s + rangeOffset + 2 * (codepoint - start));
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  }
  return 0;
}

// The glyph ranges the app hands ImGui (pairs of 16-bit codepoints ended by 0, ImFontConfig's
// GlyphRanges): ImGui rasterises only those, whatever the font holds. The table starts with
// printable ASCII and Latin-1 (web/ui_font.cmake); returns its pairs, or null if absent.
function glyphRanges(memory) {
  const head = Buffer.from(new Uint16Array([0x20, 0x7e, 0xa0, 0xff]).buffer);
  for (let at = memory.indexOf(head); at >= 0; at = memory.indexOf(head, at + 2)) {
    if (at % 2) continue;
    const pairs = [];
    for (let p = at; p + 4 <= memory.length && memory.readUInt16LE(p) !== 0; p += 4)
      pairs.push([memory.readUInt16LE(p), memory.readUInt16LE(p + 2)]);
    if (pairs.every(([first, last]) => first <= last)) return pairs;
  }
  return null;
}

const args = parseArgs(process.argv.slice(2), ['web']);
const wasm = readFileSync(path.join(args.web, 'vigil.wasm'));
const js = readFileSync(path.join(args.web, 'vigil.js'));
const w = sizes(wasm), j = sizes(js);
console.log(`vigil.wasm: ${w.raw} bytes, gzip -9 ${w.gzip}, brotli 11 ${w.brotli}`);
console.log(`vigil.js:   ${j.raw} bytes, gzip -9 ${j.gzip}, brotli 11 ${j.brotli}`);
check(w.raw <= kMaxRaw, `vigil.wasm is ${w.raw} <= ${kMaxRaw} bytes`);
check(w.gzip <= kMaxCompressed, `vigil.wasm gzipped is ${w.gzip} <= ${kMaxCompressed} bytes`);
check(w.brotli <= kMaxCompressed, `vigil.wasm brotli-compressed is ${w.brotli} <= ${kMaxCompressed} bytes`);

const memory = initialMemory(wasm);
const fonts = findFonts(memory);
check(fonts.length === 1, `vigil.wasm holds one TrueType font (found ${fonts.length})`);
if (fonts.length === 1) {
  const [font] = fonts;
  const tags = [...font.tables.keys()];
  const bytes = tags.reduce((sum, tag) => sum + font.tables.get(tag).length, 0);
  console.log(`font at byte ${font.at}: ${bytes} bytes of tables ${tags.join(' ')}`);
  // stb_truetype neither hints nor kerns: those tables would be dead weight.
  const unused = tags.filter((tag) => ['fpgm', 'prep', 'cvt ', 'kern', 'GPOS', 'GSUB', 'name'].includes(tag));
  check(unused.length === 0, `the font carries no hinting, layout or name tables (${unused.join(' ') || 'none'})`);
  const wanted = 'Aaz~é×ÿφσμλΔΩ–—‘’“”•…←↑→↓−≈≤≥∞▶■●○✓✗';
  const missing = [...wanted].filter((c) => glyphOf(memory, font, c.codePointAt(0)) === 0);
  check(missing.length === 0, `the font maps every character of "${wanted}" (missing: ${missing.join('') || 'none'})`);
  const ranges = glyphRanges(memory);
  check(ranges !== null, `the app's glyph ranges are in vigil.wasm (${ranges ? ranges.length : 0} ranges)`);
  const unranged = [...wanted].filter((c) => !(ranges || []).some(([first, last]) =>
    first <= c.codePointAt(0) && c.codePointAt(0) <= last));
  check(unranged.length === 0, `ImGui is asked to rasterise all of them (left out: ${unranged.join('') || 'none'})`);
  check(glyphOf(memory, font, 0x0416) === 0, 'the font is a subset: no Cyrillic (U+0416 Ж), which DejaVu Sans has');
}


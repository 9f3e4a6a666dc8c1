#!/usr/bin/env node
// Rewrites the documentation's generated blocks from the built `vigil`, or (--check) fails when
// one differs from what the program prints now. A block is written in a Markdown file as
//
//   <!-- generated: vigil lab params --format markdown phi -->
//   ...the command's output, verbatim...
//   <!-- end generated -->
//
// and holds exactly the output of that command line (split on spaces, run without a shell).
// Files searched: README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/**/*.md under --root.
//   node scripts/gen_docs.mjs [--vigil build/bin/vigil] [--root .] [--check]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { markdownFiles } from './lib/markdown_files.mjs';
import { fileURLToPath } from 'node:url';

const BEGIN = /^<!-- generated: vigil (.+?) -->$/;
const END = '<!-- end generated -->';

function parseArgs(argv) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const out = { root, vigil: null, check: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') out.root = path.resolve(argv[++i]);
    else if (argv[i] === '--vigil') out.vigil = path.resolve(argv[++i]);
    else if (argv[i] === '--check') out.check = true;
    else if (argv[i] === '-h' || argv[i] === '--help') {
      console.log('usage: node scripts/gen_docs.mjs [--vigil PATH] [--root DIR] [--check]');
      process.exit(0);
    } else {
      console.error(`gen_docs.mjs: unknown argument ${argv[i]}`);
      process.exit(2);
    }
  }
  out.vigil ??= path.join(out.root, 'build/bin/vigil');
  return out;
}

// The blocks of one file: { command, line (1-based, of the opening marker), start, end } where
// lines[start..end) is the generated text. Throws on a block left open.
export function findBlocks(lines, name) {
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const m = BEGIN.exec(lines[i]);
    if (!m) continue;
    const close = lines.indexOf(END, i + 1);
    const next = lines.findIndex((l, j) => j > i && BEGIN.test(l));
    if (close < 0 || (next >= 0 && next < close))
      throw new Error(`${name}:${i + 1}: block "vigil ${m[1]}" has no ${END}`);
    blocks.push({ command: m[1], line: i + 1, start: i + 1, end: close });
    i = close;
  }
  return blocks;
}

function run(vigil, command) {
  return execFileSync(vigil, command.split(' '), { encoding: 'utf8' });
}

// First line where `want` and `got` part, for the failure message.
function firstDifference(want, got) {
  const a = want.split('\n');
  const b = got === '' ? [] : got.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return { line: i, code: a[i] ?? '(nothing)', docs: b[i] ?? '(nothing)' };
  return null;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.vigil)) {
    console.error(`gen_docs.mjs: no vigil at ${opts.vigil} (build it first, or pass --vigil)`);
    process.exit(2);
  }
  let blocks = 0;
  const stale = [];
  for (const file of markdownFiles(opts.root)) {
    const name = path.relative(opts.root, file);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    let found;
    try {
      found = findBlocks(lines, name);
    } catch (e) {
      console.error(e.message);
      process.exit(1);
    }
    if (!found.length) continue;
    const staleHere = [];
    // Back to front, so that earlier blocks keep their line numbers while later ones change size.
    for (const b of [...found].reverse()) {
      blocks++;
      const want = run(opts.vigil, b.command).replace(/\n$/, '');
      const got = lines.slice(b.start, b.end).join('\n');
      if (want === got) continue;
      const d = firstDifference(want, got);
      staleHere.unshift(`${name}:${b.line + 1 + d.line}: block "vigil ${b.command}" differs from what vigil prints\n` +
        `    vigil prints: ${d.code}\n    the file has: ${d.docs}`);
      lines.splice(b.start, b.end - b.start, ...want.split('\n'));
    }
    stale.push(...staleHere);
    if (!opts.check && staleHere.length) fs.writeFileSync(file, lines.join('\n'));
  }
  if (opts.check) {
    for (const s of stale) console.error(s);
    if (stale.length) {
      console.error(`${stale.length} of ${blocks} generated block(s) out of date: run node scripts/gen_docs.mjs`);
      process.exit(1);
    }
    console.log(`all ${blocks} generated block(s) match what vigil prints`);
  } else {
    console.log(`${blocks} generated block(s), ${stale.length} rewritten`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

// Every relative link of the documentation resolves: README.md, ARCHITECTURE.md, CONTRIBUTING.md
// and docs/**/*.md. For each `[text](path#anchor)`, `![alt](path)`, `[text](#anchor)` and
// reference definition `[name]: path`, the file or folder must exist and, when an anchor is given
// and the target is Markdown, one of its headings must produce that anchor by GitHub's rules.
// Links to other schemes (https:, mailto:) and links inside code are not checked. Also fails when
// README.md is over its size budget.
//   node tests/docs/links.test.mjs --root /path/to/vigil
import fs from 'node:fs';
import path from 'node:path';
import { markdownFiles } from '../../scripts/lib/markdown_files.mjs';

const README_BUDGET = 15000;

function parseArgs(argv) {
  const out = { root: process.cwd() };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') out.root = argv[++i];
    else if (argv[i] === '-h' || argv[i] === '--help') {
      console.log('usage: node tests/docs/links.test.mjs --root DIR');
      process.exit(0);
    } else {
      console.error(`links.test.mjs: unknown argument ${argv[i]}`);
      process.exit(2);
    }
  }
  out.root = path.resolve(out.root);
  return out;
}

// Lines of a Markdown file with their numbers, fenced code blocks left out (``` or ~~~, possibly
// indented, closed by the same character at least as many times).
function proseLines(text) {
  const out = [];
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) fence = null;
      return;
    }
    if (m) {
      fence = m[1];
      return;
    }
    out.push({ line, number: i + 1 });
  });
  return out;
}

// GitHub's heading anchors: the heading's text (Markdown of links, emphasis and code reduced to
// its words), lower-cased, every character that is not a letter, digit, space, hyphen or
// underscore removed, spaces turned into hyphens; a repeated anchor gets -1, -2, ...
function slug(heading) {
  const textOnly = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '');
  return textOnly
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map();
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  for (const { line } of proseLines(fs.readFileSync(file, 'utf8'))) {
    const h = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const a of line.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g)) anchors.add(a[1]);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

// The link targets of one line of prose: inline links and images, and reference definitions.
// Code spans are blanked first, so that `[x](y)` written as code is not a link.
function targetsOf(line) {
  const prose = line.replace(/(`+)[\s\S]*?\1/g, (m) => ' '.repeat(m.length));
  const targets = [];
  for (const m of prose.matchAll(/\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(m[1].replace(/^<|>$/g, ''));
  }
  const def = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
  if (def) targets.push(def[1].replace(/^<|>$/g, ''));
  return targets;
}

function checkTarget(root, file, target) {
  if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null;
  const hash = target.indexOf('#');
  const rawPath = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  let resolved = file;
  if (rawPath !== '') {
    const decoded = decodeURIComponent(rawPath.split('?')[0]);
    resolved = decoded.startsWith('/') ? path.join(root, decoded) : path.resolve(path.dirname(file), decoded);
    if (!fs.existsSync(resolved)) return 'no such file';
  }
  if (anchor !== null && anchor !== '' && resolved.endsWith('.md') && fs.statSync(resolved).isFile()) {
    if (!anchorsOf(resolved).has(anchor)) return `no heading makes #${anchor}`;
  }
  return null;
}

const { root } = parseArgs(process.argv.slice(2));
const failures = [];
let links = 0;
const files = markdownFiles(root);
for (const file of files) {
  const rel = path.relative(root, file);
  let broken = 0;
  for (const { line, number } of proseLines(fs.readFileSync(file, 'utf8'))) {
    for (const target of targetsOf(line)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      links++;
      const why = checkTarget(root, file, target);
      if (why) {
        broken++;
        failures.push(`${rel}:${number} → ${target} (${why})`);
      }
    }
  }
  console.log(`${broken ? 'not ok' : 'ok'} - ${rel}: relative links resolve${broken ? ` (${broken} broken)` : ''}`);
}

const readme = path.join(root, 'README.md');
const size = fs.existsSync(readme) ? fs.statSync(readme).size : 0;
const sizeOk = size > 0 && size <= README_BUDGET;
console.log(`${sizeOk ? 'ok' : 'not ok'} - README.md is ${size} bytes (budget ${README_BUDGET})`);

for (const f of failures) console.log(`  broken: ${f}`);
console.log(`# ${files.length} files, ${links} relative links, ${failures.length} broken`);
if (failures.length || !sizeOk) process.exit(1);

// The documentation's generated blocks match what the built vigil prints (scripts/gen_docs.mjs
// --check over the real tree), and the checker itself catches drift: on a copy of the docs, a
// block edited by hand fails the check naming its file and command, a block with no end marker
// is refused, and regenerating restores exactly the committed text.
//   node tests/docs/generated.test.mjs --root /path/to/vigil --vigil build/bin/vigil
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function parseArgs(argv) {
  const out = { root: process.cwd(), vigil: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') out.root = path.resolve(argv[++i]);
    else if (argv[i] === '--vigil') out.vigil = path.resolve(argv[++i]);
    else {
      console.error(`generated.test.mjs: unknown argument ${argv[i]}`);
      process.exit(2);
    }
  }
  out.vigil ??= path.join(out.root, 'build/bin/vigil');
  return out;
}

const opts = parseArgs(process.argv.slice(2));
const script = path.join(opts.root, 'scripts/gen_docs.mjs');

function gen(root, ...extra) {
  return spawnSync('node', [script, '--root', root, '--vigil', opts.vigil, ...extra], { encoding: 'utf8' });
}

let failures = 0;
function check(name, fn) {
  try {
    fn();
    console.log(`ok - ${name}`);
  } catch (e) {
    failures++;
    console.log(`not ok - ${name}\n  ${String(e.message).split('\n').join('\n  ')}`);
  }
}

check('every generated block of the documentation matches what vigil prints', () => {
  const r = gen(opts.root, '--check');
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const count = Number(/all (\d+) generated/.exec(r.stdout)?.[1]);
  // docs/lab.md, docs/agent.md and docs/tuning.md hold the blocks; none may silently vanish.
  assert.ok(count >= 14, `only ${count} generated blocks found`);
});

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-gen-docs-'));
try {
  fs.cpSync(path.join(opts.root, 'docs'), path.join(work, 'docs'), { recursive: true });
  const lab = path.join(work, 'docs/lab.md');
  const original = fs.readFileSync(lab, 'utf8');

  check('a block edited by hand fails the check, naming the file, its line and the command', () => {
    const edited = original.replace('| `--depth` | 5 |', '| `--depth` | 6 |');
    assert.notEqual(edited, original, 'the retry chain table has no --depth row to edit');
    fs.writeFileSync(lab, edited);
    const r = gen(work, '--check');
    assert.equal(r.status, 1, r.stdout);
    const line = edited.split('\n').findIndex((l) => l.startsWith('| `--depth` | 6 |')) + 1;
    assert.match(r.stderr, new RegExp(`docs/lab\\.md:${line}: block "vigil lab params --format markdown retry chain" differs`));
    assert.match(r.stderr, /1 of \d+ generated block\(s\) out of date/);
    assert.equal(fs.readFileSync(lab, 'utf8'), edited, '--check must not write');
  });

  check('regenerating restores the committed text exactly', () => {
    const r = gen(work);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /, 1 rewritten/);
    assert.equal(fs.readFileSync(lab, 'utf8'), original);
  });

  check('an emptied block is filled again, a block with no end marker is refused', () => {
    const start = '<!-- generated: vigil lab params --format markdown phi -->\n';
    const from = original.indexOf(start) + start.length;
    const to = original.indexOf('<!-- end generated -->', from);
    fs.writeFileSync(lab, original.slice(0, from) + original.slice(to));
    assert.equal(gen(work).status, 0);
    assert.equal(fs.readFileSync(lab, 'utf8'), original);
    fs.writeFileSync(lab, original.slice(0, from) + original.slice(to + '<!-- end generated -->'.length));
    const r = gen(work, '--check');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /docs\/lab\.md:\d+: block "vigil lab params --format markdown phi" has no <!-- end generated -->/);
  });
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('all generated-documentation checks passed');

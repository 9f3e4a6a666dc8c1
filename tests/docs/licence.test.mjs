// The licence travels with the code: LICENSE holds the Apache License 2.0, and every file that
// `cmake --install` puts in a user's prefix from the source tree (the core's headers, the CMake
// package and pkg-config templates) names it with an SPDX line.
//   node tests/docs/licence.test.mjs --root /path/to/vigil
import fs from 'node:fs';
import path from 'node:path';

const rootAt = process.argv.indexOf('--root');
const root = path.resolve(rootAt > 0 ? process.argv[rootAt + 1] : process.cwd());
let failed = false;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
  if (!ok) failed = true;
};

const licence = fs.existsSync(path.join(root, 'LICENSE')) ? fs.readFileSync(path.join(root, 'LICENSE'), 'utf8') : '';
check(/^\s*Apache License\s+Version 2\.0, January 2004/.test(licence), 'LICENSE is the Apache License 2.0');

function files(dir, keep) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(full, keep));
    else if (keep(entry.name)) out.push(full);
  }
  return out;
}
const installed = [...files(path.join(root, 'core'), (n) => n.endsWith('.hpp')),
                   ...files(path.join(root, 'cmake'), (n) => n.endsWith('.in'))];
const spdx = /^(\/\/|#) SPDX-License-Identifier: Apache-2\.0$/m;
const missing = installed.filter((f) => !spdx.test(fs.readFileSync(f, 'utf8').split('\n').slice(0, 3).join('\n')));
check(installed.length > 0 && missing.length === 0,
      `${installed.length} installed files carry an SPDX line in their first three lines` +
      (missing.length ? ` (missing: ${missing.map((f) => path.relative(root, f)).join(', ')})` : ''));
process.exit(failed ? 1 : 0);

// The project's Markdown documentation: README.md, ARCHITECTURE.md and CONTRIBUTING.md at the
// root, then every .md under docs/ in name order (node_modules and hidden folders left out).
// Shared by the documentation generator and the link test, so that both read the same pages.
import fs from 'node:fs';
import path from 'node:path';

export function markdownFiles(root) {
  const files = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md']
    .map((f) => path.join(root, f))
    .filter((f) => fs.existsSync(f));
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full);
      } else if (entry.name.endsWith('.md')) {
        files.push(full);
      }
    }
  };
  walk(path.join(root, 'docs'));
  return files;
}

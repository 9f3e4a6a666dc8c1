// ESLint (flat config), run by scripts/check.sh over the JavaScript of the page, the scripts and
// the tests. The packages live in tests/node_modules (tests/package.json's devDependencies), so
// they are loaded from there rather than from a node_modules beside this file.
import { createRequire } from "node:module";

const require = createRequire(new URL("./tests/package.json", import.meta.url));
const js = require("@eslint/js");
const globals = require("globals");

export default [
  { ignores: ["**/node_modules/**", "build/**", "build-*/**"] },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Loose equality's coercions hide type mix-ups; null checks may still use it.
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-shadow-restricted-names": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-unreachable-loop": "error",
      "no-use-before-define": ["error", { functions: false, classes: false, variables: false }],
      "no-var": "error",
      "prefer-const": ["error", { destructuring: "all" }],
    },
  },
  {
    // Plain scripts loaded by the page (index.html, the embed snippet).
    files: ["assets/**/*.js"],
    // Module is the Emscripten runtime's object, which app-shell.js sets up before vigil.js loads.
    languageOptions: { sourceType: "script", globals: { ...globals.browser, Module: "writable" } },
  },
  {
    // The explainer's modules, run in the browser.
    files: ["assets/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser } },
  },
  {
    // Node programs. The tests also hold functions that Playwright runs inside the page
    // (page.evaluate), hence the browser's globals beside Node's.
    files: ["scripts/**/*.mjs", "tests/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.node, ...globals.browser } },
  },
];

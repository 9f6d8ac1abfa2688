// ESLint for the club's pages (static/js, plain ES modules in the browser, no bundler) and their
// unit tests (tests/js, run by `node --test`). `make test` runs it.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["static/sw.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "script", globals: { ...globals.serviceworker } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    // the tests install a small browser (dom-stub.js) on globalThis
    languageOptions: { ecmaVersion: 2023, sourceType: "module",
      globals: { ...globals.node, document: "readonly" } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
];

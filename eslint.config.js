// Lint config. Besides the usual TypeScript checks it enforces the layer rule of
// docs/layers.md: only main/desktop/ and preload/ may import electron, shared/
// (which also runs in the renderer) may import no Node built-in module, and the
// renderer imports neither Node nor main/; React's hook rules apply in renderer/.
// Inside main/, imports point downwards: the engine imports none of the hosts
// around it, sync and watch import neither the core nor the desktop, and sync and
// watch do not import each other (main/core composes them), and the desktop reaches
// the engine, sync and watch only through main/core. Tests and test helpers
// (tests/, testing/, *.test.ts) are exempt from those folder rules, not from the
// electron one: they build whole agents, watcher included, as the core does.
// It also keeps URL shapes in one place: only shared/api-paths.ts may build an API
// path from a template (docs/layers.md), and the sync outbox in one module.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
// A template that interpolates into an API path builds a URL shape by hand. Plain
// string literals stay allowed: a test may name the exact path it checks.
const handBuiltApiPaths = [
  {
    selector: 'TemplateLiteral[expressions.length>0] > TemplateElement[value.raw=/\\/api\\/orgs\\//]',
    message: 'Build org API paths with shared/api-paths.ts (apiPaths, syncPaths), not by hand.',
  },
  {
    selector: 'TemplateLiteral[expressions.length>0] > TemplateElement:first-child[value.raw=/^\\/(?:auth\\/|api\\/(?!orgs\\/))/]',
    message: 'Build API paths with shared/api-paths.ts, not by hand.',
  },
];
// Sync owns its outbox (issue 13): only main/sync/outbox.ts queries `sync_outbox`
// (the migrations create it); everyone else calls its functions.
const outboxOwner = {
  selector: 'Literal[value=/^sync_outbox\\b/], TemplateElement[value.raw=/\\bsync_outbox\\b/]',
  message: 'Only main/sync/outbox.ts reads and writes sync_outbox: call one of its functions (docs/layers.md).',
};
const electronBan = {
  name: 'electron',
  message: 'Only main/desktop/ and preload/ may import electron (docs/layers.md).',
};
const testFiles = ['**/tests/**', '**/testing/**', '**/*.test.ts'];

/** The electron ban (unless `mayImportElectron`) plus the folders of main/ that `layer` may not import (docs/layers.md). */
function layerImports(layer, forbiddenFolders, { mayImportElectron = false } = {}) {
  return [
    'error',
    {
      paths: mayImportElectron ? [] : [electronBan],
      patterns: [
        ...(mayImportElectron ? [] : [{ group: ['electron/*'], message: electronBan.message }]),
        ...forbiddenFolders.map((folder) => ({
          group: [`**/${folder}/**`],
          message: `main/${layer}/ may not import main/${folder}/: imports in main/ point downwards (docs/layers.md).`,
        })),
      ],
    },
  ];
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'renderer/dist/', 'preload/dist/', 'data/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [electronBan], patterns: ['electron/*'] }],
      'no-restricted-syntax': ['error', ...handBuiltApiPaths],
    },
  },
  {
    files: ['main/**'],
    ignores: ['main/sync/outbox.ts', 'main/engine/store/migrations/**', ...testFiles],
    rules: { 'no-restricted-syntax': ['error', ...handBuiltApiPaths, outboxOwner] },
  },
  {
    // api-paths.ts is where paths are built; tests and the hardening suite use its
    // builders too (docs/testing.md).
    files: ['shared/api-paths.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['main/desktop/**', 'preload/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The desktop is a shell around the core: it reaches the engine, sync and the
    // watcher only through main/core/ (issue 26).
    files: ['main/desktop/**'],
    ignores: testFiles,
    rules: { 'no-restricted-imports': layerImports('desktop', ['engine', 'sync', 'watch'], { mayImportElectron: true }) },
  },
  {
    files: ['main/engine/**'],
    ignores: testFiles,
    rules: { 'no-restricted-imports': layerImports('engine', ['sync', 'watch', 'core', 'desktop']) },
  },
  {
    files: ['main/sync/**'],
    ignores: testFiles,
    rules: { 'no-restricted-imports': layerImports('sync', ['watch', 'core', 'desktop']) },
  },
  {
    files: ['main/watch/**'],
    ignores: testFiles,
    rules: { 'no-restricted-imports': layerImports('watch', ['sync', 'core', 'desktop']) },
  },
  {
    files: ['shared/**'],
    ignores: ['shared/**/*.test.ts'], // tests run only under Node
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            electronBan,
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'shared/ runs in the renderer too: no Node built-ins (docs/layers.md).',
            })),
          ],
          patterns: ['electron/*', '**/main/**', '**/renderer/**', '**/preload/**'],
        },
      ],
    },
  },
  {
    files: ['renderer/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Only about the React Compiler, which this app does not use.
      'react-hooks/incompatible-library': 'off',
      'no-restricted-imports': [
        'error',
        {
          paths: [
            electronBan,
            ...nodeBuiltins.map((name) => ({ name, message: 'The renderer runs in a browser page: no Node built-ins (docs/layers.md).' })),
          ],
          patterns: [
            { group: ['electron/*'], message: electronBan.message },
            { group: ['**/main/**', '**/preload/**'], message: 'The renderer reaches the main process only through the bridge (renderer/src/bridge-client.ts).' },
          ],
        },
      ],
    },
  },
  {
    files: ['main/solardesk.js', 'main/desktop/electron-entry.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);

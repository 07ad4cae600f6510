// Lint config. Besides the usual TypeScript checks it enforces the layer rule of
// docs/layers.md: only main/desktop/ and preload/ may import electron, shared/
// (which also runs in the renderer) may import no Node built-in module, and the
// renderer imports neither Node nor main/; React's hook rules apply in renderer/.
// Inside main/, imports point downwards: the engine imports none of the hosts
// around it, sync and watch import neither the core nor the desktop, and sync and
// watch do not import each other (main/core composes them), the core imports no
// host (desktop, web), main/testing/ imports nothing else of main/, and the desktop
// reaches the engine, sync and watch only through main/core. Tests themselves (tests/,
// *.test.ts) are exempt from those folder rules, not from the electron one: a test
// of a part may build the whole agent around it, as the core does. Test helpers
// (testing/) are not: a helper that composes parts lives in main/core/testing/.
// It also keeps URL shapes in one place: only shared/api-paths.ts may build an API
// path from a template (docs/layers.md), the sync outbox in one module, and each
// part's tables with their owner (docs/tables.md).
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
// Each part owns its tables (issue 26, docs/tables.md): a query (selectFrom,
// insertInto, updateTable, deleteFrom, a join, or raw sql) names only tables of its
// own part or the engine's, whose records every part above the engine works on. A
// part that needs another's data gets a function injected. These lists must equal
// the parts' declarations (main/*/…-tables.ts): main/core/tests/table-ownership.test.ts checks.
export const tableOwners = {
  sync: ['sync_outbox', 'sync_records', 'sync_conflicts', 'sync_state', 'sync_uploads'],
  watch: ['watch_projects', 'watch_files'],
  core: ['photo_exif', 'activity_log'],
};
const queryMethods = /^(selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)$/;
/** Selectors refusing queries on the tables of every part in `foreignParts`. */
function foreignTableQueries(part, foreignParts) {
  const tables = foreignParts.flatMap((owner) => tableOwners[owner]);
  const names = `(${tables.join('|')})`;
  const message = `This query names a table of another part (${foreignParts.map((owner) => `${owner}: ${tableOwners[owner].join(', ')}`).join('; ')}): ${part} gets that data from a function of its owner, injected by the core (docs/tables.md).`;
  return [
    { selector: `CallExpression[callee.property.name=${queryMethods}] > Literal.arguments:first-child[value=/^${names}\\b/]`, message },
    { selector: `TaggedTemplateExpression[tag.name='sql'] TemplateElement[value.raw=/\\b${names}\\b/]`, message },
  ];
}
// sync_state holds small named values of several owners (issue 26, docs/tables.md):
// only these modules query it; the rest of sync calls their named functions.
export const syncStateOwners = ['main/sync/sync-state.ts', 'main/sync/contents-policy.ts', 'main/sync/folder-twins.ts'];
const syncStateOwner = {
  selector: `CallExpression[callee.property.name=${queryMethods}] > Literal.arguments:first-child[value=/^sync_state\\b/], TaggedTemplateExpression[tag.name='sql'] TemplateElement[value.raw=/\\bsync_state\\b/]`,
  message: `Only ${syncStateOwners.join(', ')} query sync_state: call a named function of its owner (main/sync/sync-state.ts and docs/tables.md say which).`,
};
// No source file over this many lines (issue 26): split a bigger one by concern.
// main/testing/source-size.test.ts holds the same limit for CSS and JavaScript.
export const MAX_SOURCE_LINES = 500;
// Over the limit today, each being split: a file comes off this list when it is
// (the source-size test fails on one that is no longer over).
/** @type {string[]} */
export const FILES_OVER_MAX_LINES = [];
const electronBan = {
  name: 'electron',
  message: 'Only main/desktop/ and preload/ may import electron (docs/layers.md).',
};
const testFiles = ['**/tests/**', '**/testing/**', '**/*.test.ts'];
/** Tests themselves, not their helpers in testing/, which follow their folder's layer and table rules. */
const testsThemselves = ['**/tests/**', '**/*.test.ts'];

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
  { ignores: ['node_modules/', 'dist/', 'out/', 'renderer/dist/', 'main/dist/', 'preload/dist/', 'data/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    ignores: FILES_OVER_MAX_LINES,
    rules: { 'max-lines': ['error', { max: MAX_SOURCE_LINES, skipBlankLines: false, skipComments: false }] },
  },
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
    ignores: ['main/sync/outbox.ts', 'main/engine/store/migrations/**', 'main/*/migrations/**', ...testFiles],
    rules: { 'no-restricted-syntax': ['error', ...handBuiltApiPaths, outboxOwner, ...foreignTableQueries('this host', ['sync', 'watch', 'core'])] },
  },
  ...[
    { part: 'engine', files: ['main/engine/**'], foreign: ['sync', 'watch', 'core'] },
    { part: 'sync', files: ['main/sync/**'], foreign: ['watch', 'core'] },
    { part: 'watch', files: ['main/watch/**'], foreign: ['sync', 'core'] },
    { part: 'core', files: ['main/core/**', 'main/app-core.ts'], foreign: ['sync', 'watch'] },
  ].map(({ part, files, foreign }) => ({
    files,
    // Migrations make every part's tables; a test may look at any table to check what was stored.
    ignores: ['main/engine/store/migrations/**', 'main/*/migrations/**', ...testsThemselves],
    rules: {
      'no-restricted-syntax': ['error', ...handBuiltApiPaths, ...(files.includes('main/sync/**') ? [] : [outboxOwner]), ...foreignTableQueries(part, foreign)],
    },
  })),
  {
    files: ['main/sync/**'],
    ignores: ['main/sync/outbox.ts', 'main/sync/migrations/**', ...syncStateOwners, ...testsThemselves],
    rules: { 'no-restricted-syntax': ['error', ...handBuiltApiPaths, outboxOwner, syncStateOwner, ...foreignTableQueries('sync', ['watch', 'core'])] },
  },
  {
    files: ['main/sync/outbox.ts'],
    rules: { 'no-restricted-syntax': ['error', ...handBuiltApiPaths, syncStateOwner, ...foreignTableQueries('sync', ['watch', 'core'])] },
  },
  {
    files: syncStateOwners,
    ignores: testsThemselves,
    rules: { 'no-restricted-syntax': ['error', ...handBuiltApiPaths, outboxOwner, ...foreignTableQueries('sync', ['watch', 'core'])] },
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
    ignores: testsThemselves,
    rules: { 'no-restricted-imports': layerImports('desktop', ['engine', 'sync', 'watch'], { mayImportElectron: true }) },
  },
  {
    files: ['main/engine/**'],
    ignores: [...testsThemselves, 'main/engine/store/migration-order.ts'],
    rules: { 'no-restricted-imports': layerImports('engine', ['sync', 'watch', 'core', 'desktop']) },
  },
  {
    // The store composes every part's migrations (docs/tables.md): the one upward import
    // the engine makes, and only of the parts' migrations folders.
    files: ['main/engine/store/migration-order.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronBan],
          patterns: ['sync', 'watch', 'core', 'desktop'].map((folder) => ({
            regex: `/${folder}/(?!migrations/[^/]+$)`,
            message: `The store imports only the migrations of main/${folder}/ (main/${folder}/migrations/): imports in main/ point downwards (docs/layers.md).`,
          })),
        },
      ],
    },
  },
  {
    files: ['main/sync/**'],
    ignores: testsThemselves,
    rules: { 'no-restricted-imports': layerImports('sync', ['watch', 'core', 'desktop']) },
  },
  {
    files: ['main/watch/**'],
    ignores: testsThemselves,
    rules: { 'no-restricted-imports': layerImports('watch', ['sync', 'core', 'desktop']) },
  },
  {
    // The composer builds the app for every host; the hosts build on it, not it on them.
    files: ['main/core/**'],
    ignores: testsThemselves,
    rules: { 'no-restricted-imports': layerImports('core', ['desktop', 'web']) },
  },
  {
    // A part's migrations are schema, imported by the engine's store: they import kysely and the dialect, nothing of their part.
    files: ['main/sync/migrations/**', 'main/watch/migrations/**', 'main/core/migrations/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!kysely$|(\\.\\./)+engine/store/dialect\\.ts$)', message: 'A part’s migration imports only kysely and main/engine/store/dialect.ts: the engine’s store imports it (docs/tables.md).' }] },
      ],
    },
  },
  {
    // Helpers every test folder shares (child processes): Node only, so any part's tests may use them.
    files: ['main/testing/**'],
    ignores: testsThemselves,
    rules: { 'no-restricted-imports': layerImports('testing', ['engine', 'sync', 'watch', 'core', 'desktop', 'web', 'cli', 'hardening']) },
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
    files: ['main/solardesk.js', 'main/main-bundle.js', 'main/desktop/electron-entry.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);

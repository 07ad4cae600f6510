// Types of what tests read from eslint.config.js: the table owners the lint rule
// holds (main/core/tests/table-ownership.test.ts checks them against the parts' declarations).
export declare const tableOwners: Record<'sync' | 'watch' | 'core', string[]>;
declare const config: unknown;
export default config;

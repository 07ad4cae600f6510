// Types of what tests read from eslint.config.js: the table owners the lint rule
// holds (main/core/tests/table-ownership.test.ts checks them against the parts' declarations),
// and the source-size limit with the files still over it (main/testing/source-size.test.ts).
export declare const tableOwners: Record<'sync' | 'watch' | 'core', string[]>;
export declare const MAX_SOURCE_LINES: number;
export declare const FILES_OVER_MAX_LINES: string[];
declare const config: unknown;
export default config;

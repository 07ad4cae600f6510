// Types of main/main-bundle.js (plain JavaScript: it runs before TypeScript can),
// for the launchers' callers and its test.
/** Imports a TypeScript file under main/ from its bundle, building the bundle when stale. */
export declare function importMain(entry: string): Promise<Record<string, unknown>>;
/** Whether a bundle must be built again: missing, built in another folder, or older than a source it lists. */
export declare function isStale(bundleFile: string, recordFile: string): boolean;

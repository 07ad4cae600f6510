// Starts the page's server thread (bridge-worker.ts) from the main process's bundle,
// as main/solardesk.js starts the command: a worker inherits no loader, and through
// tsx its files would load one by one (main/main-bundle.js says why that is slow).
import { importMain } from '../main-bundle.js';

await importMain('web/bridge-worker.ts');

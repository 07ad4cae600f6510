// Starts the design worker (design-worker.ts) through tsx, as main/solardesk.js
// starts the app: a worker does not inherit the loader a host registered in code.
import { register } from 'tsx/esm/api';

register();
await import('./design-worker.ts');

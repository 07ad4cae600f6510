// Electron's entry point (package.json "main"). Like main/solardesk.js, it runs
// the TypeScript sources through tsx, so a build from source needs no compile step.
import { register } from 'tsx/esm/api';

register();
await import('./electron-main.ts');

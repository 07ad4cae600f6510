#!/usr/bin/env node
// The `solardesk` command. It runs the TypeScript sources as one bundle that is
// rebuilt whenever a source is newer (main/main-bundle.js), so there is no build
// step between editing and running.
import { importMain } from './main-bundle.js';

const { main } = await importMain('cli.ts');
process.exitCode = await main(process.argv.slice(2));

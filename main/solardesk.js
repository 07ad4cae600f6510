#!/usr/bin/env node
// The `solardesk` command. SolarDesk runs its TypeScript sources directly through
// tsx, so there is no build step between editing and running.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));

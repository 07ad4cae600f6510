// Playwright drives the real renderer in browser mode (`solardesk web` as a child
// process on a temp data folder) in Debian's Chromium: `npx playwright install`
// cannot download browsers here, and Debian's build renders WebGL 2 through
// SwiftShader, so the 3D view is checked by its pixels.
import { defineConfig } from '@playwright/test';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../test-results/playwright',
  // Each spec file starts its own SolarDesk; two at a time keep the 2-core machine responsive.
  workers: 2,
  fullyParallel: false,
  // Hang guards, not speed checks (main/testing/hang-guards.ts, issue 33): at load 20 a
  // spec's beforeAll (a remote server and SolarDesk starting) ran past 120 s, and waits
  // for background work (sync, the watcher) past 30 s. A wait ends as soon as its state
  // holds, so a long guard costs a passing test nothing; one wait that never ends fails
  // at its own guard, and the test's is three of those.
  timeout: 3 * STATE_HANG_GUARD_MS,
  expect: { timeout: 60_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.SOLARDESK_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});

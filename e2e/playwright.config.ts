// Playwright drives the real renderer in browser mode (`solardesk web` as a child
// process on a temp data folder) in Debian's Chromium: `npx playwright install`
// cannot download browsers here, and Debian's build renders WebGL 2 through
// SwiftShader, so the 3D view is checked by its pixels.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../test-results/playwright',
  // Each spec file starts its own SolarDesk; two at a time keep the 2-core machine responsive.
  workers: 2,
  fullyParallel: false,
  timeout: 120_000,
  expect: { timeout: 15_000 },
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

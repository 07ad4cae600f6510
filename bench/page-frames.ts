// Frame times in a real Chromium page, for the benchmarks that scroll a list (the
// project list, the Files tab's thumbnails) against a static page of the same rows;
// the Chromium they run in; and the page's own clock of how long it could not answer.
import { chromium, type Browser, type Page } from '@playwright/test';

/** Debian's Chromium, as the Playwright suite runs it (SOLARDESK_CHROMIUM names another). */
export function launchBenchChromium(): Promise<Browser> {
  const args = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
  return chromium.launch({ executablePath: process.env.SOLARDESK_CHROMIUM ?? '/usr/bin/chromium', args });
}

/**
 * Starts the page's answer probe: a timer every 10 ms that records the longest gap
 * between two firings, i.e. the longest the page could not answer anything.
 * `readAnswerGap` reads the longest gap so far and starts over.
 */
export function startAnswerProbe(page: Page): Promise<void> {
  return page.evaluate(`(() => {
    const probe = { longestGapMs: 0, ticks: 0, last: performance.now() };
    window.answerProbe = probe;
    function tick() {
      const now = performance.now();
      probe.longestGapMs = Math.max(probe.longestGapMs, now - probe.last);
      probe.last = now;
      probe.ticks++;
      setTimeout(tick, 10);
    }
    setTimeout(tick, 10);
  })()`) as Promise<void>;
}

export function readAnswerGap(page: Page): Promise<{ longestGapMs: number; ticks: number }> {
  return page.evaluate(`(() => {
    const probe = window.answerProbe;
    const read = { longestGapMs: probe.longestGapMs, ticks: probe.ticks };
    probe.longestGapMs = 0;
    probe.ticks = 0;
    return read;
  })()`) as Promise<{ longestGapMs: number; ticks: number }>;
}

/**
 * Milliseconds between animation frames while `selector` is scrolled `stepPx` per
 * frame for `frames` frames. A string, not a function: tsx would wrap a function's
 * inner names in a helper that does not exist in the page.
 */
export function scrollFrameTimes(page: Page, selector: string, frames: number, stepPx: number): Promise<number[]> {
  return page.evaluate(`new Promise((resolve) => {
    const list = document.querySelector(${JSON.stringify(selector)});
    const times = [];
    let last = performance.now();
    let count = 0;
    function tick(now) {
      times.push(now - last);
      last = now;
      list.scrollTop += ${stepPx};
      if (++count < ${frames}) requestAnimationFrame(tick);
      else resolve(times.slice(1));
    }
    requestAnimationFrame(tick);
  })`) as Promise<number[]>;
}

export const percentile = (values: number[], fraction: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))]!;

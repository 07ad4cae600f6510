// Frame times in a real Chromium page, for the benchmarks that scroll a list (the
// project list, the Files tab's thumbnails) against a static page of the same rows.
import type { Page } from '@playwright/test';

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

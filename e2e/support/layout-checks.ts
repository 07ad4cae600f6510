// What e2e/layout.spec.ts checks in the page at every view, window size and theme:
// each function runs in the page and answers in words (or a count), so a failure
// reads as what a user would see wrong.
import type { Page } from '@playwright/test';

/**
 * What is wrong with the layout right now, in words (empty: nothing). Runs in the page:
 * - the document scrolls sideways;
 * - an element leaves the window, or the box of the nearest ancestor that clips it,
 *   without a scroll container in between that is meant to scroll that way;
 * - a container meant to scroll up and down scrolls sideways;
 * - two panes (sidebar, list, detail, page) overlap, or one is squeezed (a detail pane below 400 px);
 * - text is cut (an ellipsis, or a select narrower than its choice) with no title on it or around it.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const viewport = { width: window.innerWidth, height: window.innerHeight };
    const describe = (element: Element): string => {
      const testId = element.getAttribute('data-testid');
      const label = element.getAttribute('aria-label');
      const classes = typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).join('.')}` : '';
      const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `<${element.tagName.toLowerCase()}${classes}${testId ? ` data-testid=${testId}` : ''}${label ? ` aria-label="${label}"` : ''}> "${text}"`;
    };
    const isHiddenOnPurpose = (element: Element): boolean => {
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden' || style.clipPath.startsWith('inset(50%')) return true;
        // Visually hidden text (screen readers only): a 1 px clipped box.
        if (style.position === 'absolute' && node.getBoundingClientRect().width <= 1 && style.overflow === 'hidden') return true;
      }
      return false;
    };
    const scrollsX = (style: CSSStyleDeclaration) => style.overflowX === 'auto' || style.overflowX === 'scroll';
    const scrollsY = (style: CSSStyleDeclaration) => style.overflowY === 'auto' || style.overflowY === 'scroll';

    if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) {
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}px in a ${document.documentElement.clientWidth}px window`);
    }

    const elements = [...document.querySelectorAll('#root *')].filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && !isHiddenOnPurpose(element);
    });

    for (const element of elements) {
      const box = element.getBoundingClientRect();
      // Find what bounds it: the nearest ancestor that scrolls or clips, per axis, else the window.
      let isBoundX = false;
      let isBoundY = false;
      for (let node = element.parentElement; node && node !== document.documentElement && !(isBoundX && isBoundY); node = node.parentElement) {
        const style = getComputedStyle(node);
        const nodeBox = node.getBoundingClientRect();
        if (!isBoundX && style.overflowX !== 'visible') {
          isBoundX = true;
          // A sideways scroller holds what is wider than it; a clipping box must hold what is in it.
          if (!scrollsX(style) && (box.left < nodeBox.left - 1 || box.right > nodeBox.right + 1)) {
            problems.push(`clipped sideways by ${describe(node)}: ${describe(element)} spans ${Math.round(box.left)}–${Math.round(box.right)}px in ${Math.round(nodeBox.left)}–${Math.round(nodeBox.right)}px`);
          }
        }
        if (!isBoundY && style.overflowY !== 'visible') {
          isBoundY = true;
          if (!scrollsY(style) && (box.top < nodeBox.top - 1 || box.bottom > nodeBox.bottom + 1)) {
            problems.push(`clipped at the bottom by ${describe(node)}: ${describe(element)} spans ${Math.round(box.top)}–${Math.round(box.bottom)}px in ${Math.round(nodeBox.top)}–${Math.round(nodeBox.bottom)}px`);
          }
        }
      }
      if (!isBoundX && (box.left < -1 || box.right > viewport.width + 1)) problems.push(`leaves the window sideways: ${describe(element)} spans ${Math.round(box.left)}–${Math.round(box.right)}px`);
      if (!isBoundY && (box.top < -1 || box.bottom > viewport.height + 1)) problems.push(`leaves the window at the bottom: ${describe(element)}`);

      const style = getComputedStyle(element);
      // A pane that scrolls up and down must not also scroll sideways (tabs slid out of sight); a real sideways scroller says so.
      if (scrollsX(style) && scrollsY(style) && !element.hasAttribute('data-scrolls-sideways') && element.scrollWidth > element.clientWidth + 1) {
        problems.push(`scrolls sideways: ${describe(element)} holds ${element.scrollWidth}px in ${element.clientWidth}px`);
      }
      const isTitled = element.closest('[title]') !== null;
      if (style.textOverflow === 'ellipsis' && element.scrollWidth > element.clientWidth + 1 && !isTitled) {
        problems.push(`text cut with no tooltip: ${describe(element)}`);
      }
      if (element instanceof HTMLSelectElement && element.selectedOptions[0]) {
        const canvas = document.createElement('canvas').getContext('2d')!;
        canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const needed = canvas.measureText(element.selectedOptions[0].text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20; // the arrow
        if (needed > element.clientWidth + 1 && !isTitled) problems.push(`select too narrow for its choice (${Math.round(needed)}px in ${element.clientWidth}px): ${describe(element)}`);
      }
    }

    const panes = [...document.querySelectorAll('.sidebar, .list-pane, .detail-pane, .page')].filter((pane) => !isHiddenOnPurpose(pane));
    for (const pane of panes) {
      const width = pane.getBoundingClientRect().width;
      // An open project or webhook needs room for its title and tabs (one word per line is not readable); a pane holding only its hint (nothing open) does not.
      const holdsOnlyAHint = pane.classList.contains('detail-pane') && pane.children.length === 1 && pane.firstElementChild!.classList.contains('state-empty');
      const least = pane.classList.contains('detail-pane') && !holdsOnlyAHint ? 400 : pane.classList.contains('sidebar') ? 48 : 240;
      if (width > 0 && width < least) problems.push(`a pane squeezed to ${Math.round(width)}px (at least ${least}px): ${describe(pane)}`);
    }
    for (let first = 0; first < panes.length; first++) {
      for (let second = first + 1; second < panes.length; second++) {
        const a = panes[first]!;
        const b = panes[second]!;
        if (a.contains(b) || b.contains(a)) continue;
        const boxA = a.getBoundingClientRect();
        const boxB = b.getBoundingClientRect();
        const overlapX = Math.min(boxA.right, boxB.right) - Math.max(boxA.left, boxB.left);
        const overlapY = Math.min(boxA.bottom, boxB.bottom) - Math.max(boxA.top, boxB.top);
        if (overlapX > 1 && overlapY > 1) problems.push(`panes overlap: ${describe(a)} and ${describe(b)}`);
      }
    }
    return [...new Set(problems)];
  });
}

/**
 * Text cut beside free space (issue 28, items 15 and 16): an ellipsis, an input whose value
 * (or hint) is wider than its box, or a select narrower than its choice, where the window
 * has an empty stretch on the text's own line, as tall as the text, wider than the text's
 * box. A tooltip does not excuse it: the room to show the text is there. "Empty" is what a
 * person sees as empty: a point whose topmost element holds no text of its own and is no
 * control, image or canvas (a pane's or a row's background), in the text's own pane or in a
 * pane that shows nothing but its hint (no project open: that room could be the list's; an
 * open project's short tab is not). The stretch must be empty from
 * the top of the text's box to its bottom (five heights are looked at), so the gap between
 * two cards or two rows of fields, lower than a line of text, is not room. Text cut
 * over more lines (a title clamped to two) is not this rule's: it is not cut sideways. Runs
 * in the page.
 */
export function textCutBesideFreeSpace(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const describe = (element: Element): string => {
      const testId = element.getAttribute('data-testid');
      const label = element.getAttribute('aria-label');
      const classes = typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).join('.')}` : '';
      const text = (element instanceof HTMLInputElement ? element.value || element.placeholder : element instanceof HTMLSelectElement ? (element.selectedOptions[0]?.text ?? '') : (element.textContent ?? '')).trim().replace(/\s+/g, ' ').slice(0, 40);
      return `<${element.tagName.toLowerCase()}${classes}${testId ? ` data-testid=${testId}` : ''}${label ? ` aria-label="${label}"` : ''}> "${text}"`;
    };
    const canvas = document.createElement('canvas').getContext('2d')!;
    const textWidth = (text: string, style: CSSStyleDeclaration) => {
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      return canvas.measureText(text).width;
    };
    const isCut = (element: Element, style: CSSStyleDeclaration): boolean => {
      if (element instanceof HTMLSelectElement) {
        const choice = element.selectedOptions[0];
        return choice !== undefined && textWidth(choice.text, style) + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20 > element.clientWidth + 1;
      }
      if (element instanceof HTMLInputElement) {
        if (!['text', 'search', 'email', 'url', 'tel', ''].includes(element.type)) return false;
        const shown = element.value || element.placeholder;
        return shown !== '' && textWidth(shown, style) > element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) + 1;
      }
      return style.textOverflow === 'ellipsis' && element.scrollWidth > element.clientWidth + 1;
    };
    const isVisible = (element: Element): boolean => {
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden' || style.clipPath.startsWith('inset(50%')) return false;
      }
      return true;
    };
    const isContent = (element: Element): boolean =>
      element.matches('input, select, textarea, button, img, svg, svg *, canvas, video, hr') ||
      [...element.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && (child.textContent ?? '').trim() !== '');
    const PANES = '.sidebar, .list-pane, .detail-pane, .page, [role="dialog"]';
    const holdsOnlyAHint = (pane: Element | null) => pane !== null && pane.children.length === 1 && pane.firstElementChild!.classList.contains('state-empty');
    const isEmptyAt = (x: number, y: number, textPane: Element | null): boolean => {
      const hit = document.elementFromPoint(x, y);
      if (hit === null || isContent(hit) || hit.closest('#root') === null) return false;
      const pane = hit.closest(PANES);
      return pane === textPane || holdsOnlyAHint(pane);
    };
    /** The widest stretch of the window, in px, that is empty (for text in `textPane`) at every one of the heights `ys`; it stops looking once one is wider than `enough`. */
    const longestFreeRun = (ys: number[], textPane: Element | null, enough: number): number => {
      let longest = 0;
      let run = 0;
      const step = 4;
      for (let x = 0; x < window.innerWidth && longest <= enough; x += step) {
        if (ys.every((y) => isEmptyAt(x, y, textPane))) run += step;
        else run = 0;
        longest = Math.max(longest, run);
      }
      return longest;
    };
    const inWindow = (y: number) => Math.min(window.innerHeight - 1, Math.max(0, y));
    for (const element of document.querySelectorAll('#root *')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.bottom < 0 || box.top > window.innerHeight) continue;
      const style = getComputedStyle(element);
      if (!isCut(element, style) || !isVisible(element)) continue;
      const free = longestFreeRun(
        [0, 0.25, 0.5, 0.75, 1].map((share) => inWindow(box.top + 0.5 + (box.height - 1) * share)),
        element.closest(PANES),
        box.width,
      );
      if (free > box.width) problems.push(`text cut beside at least ${free}px of free space (its box is ${Math.round(box.width)}px): ${describe(element)}`);
    }
    return problems;
  });
}

/** File rows whose whole box is in sight: inside the window and inside every box that clips or scrolls around them. */
export function fileRowsInSight(page: Page): Promise<number> {
  return page.evaluate(() => {
    return [...document.querySelectorAll('[data-testid="file-row"]')].filter((row) => {
      const box = row.getBoundingClientRect();
      if (box.height === 0 || box.top < 0 || box.bottom > window.innerHeight + 1) return false;
      for (let node = row.parentElement; node && node !== document.documentElement; node = node.parentElement) {
        if (getComputedStyle(node).overflowY === 'visible') continue;
        const nodeBox = node.getBoundingClientRect();
        if (box.top < nodeBox.top - 1 || box.bottom > nodeBox.bottom + 1) return false;
      }
      return true;
    }).length;
  });
}

/**
 * Text shown to people that holds a snake_case field name (issue 28): rendered text,
 * and the aria-label, title and placeholder a screen reader or a tooltip reads. What a
 * person typed (inputs) and what is shown as code on purpose (<code>, <kbd>) are theirs.
 */
export function snakeCaseWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const snake = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;
    const isShown = (element: Element): boolean => {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) return false;
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden') return false;
      }
      return true;
    };
    const isOwnText = (element: Element) => element.closest('input, textarea, select option, code, kbd, [contenteditable]') !== null;
    const found: string[] = [];
    const walker = document.createTreeWalker(document.getElementById('root')!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || isOwnText(parent) || !isShown(parent)) continue;
      for (const word of node.textContent?.match(snake) ?? []) found.push(`"${word}" in the text "${(node.textContent ?? '').trim().slice(0, 60)}"`);
    }
    for (const element of document.querySelectorAll('#root [aria-label], #root [title], #root [placeholder]')) {
      if (!isShown(element) || element.closest('code, kbd') !== null) continue;
      for (const attribute of ['aria-label', 'title', 'placeholder']) {
        for (const word of element.getAttribute(attribute)?.match(snake) ?? []) found.push(`"${word}" in ${attribute} "${element.getAttribute(attribute)!.slice(0, 60)}"`);
      }
    }
    return [...new Set(found)];
  });
}

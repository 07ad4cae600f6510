// `--stop-with-parent`, an option of every command: the process stops, as on SIGTERM,
// once the process that started it is gone. Tests, the e2e suite and benchmarks start
// SolarDesk with it, so a test file killed at its time limit leaves no server or agent
// running behind it for hours (issue 33 found two such); a supervisor may use it too.

export const STOP_WITH_PARENT_OPTION = '--stop-with-parent';

/** How often the parent is looked for: a second is soon enough to free a port or a data folder. */
const PARENT_CHECK_MS = 1000;

/** `args` without the option, and whether it was given. */
export function takeStopWithParent(args: readonly string[]): { args: string[]; stopWithParent: boolean } {
  return { args: args.filter((arg) => arg !== STOP_WITH_PARENT_OPTION), stopWithParent: args.includes(STOP_WITH_PARENT_OPTION) };
}

/**
 * Sends this process SIGTERM (its command's own graceful stop) when its parent ends.
 * An orphan is given a new parent (init, or the nearest subreaper), so a changed
 * parent id is the parent's end however it died, SIGKILL included. The check holds no
 * event loop open: a command that finishes on its own still exits.
 */
export function stopWhenParentEnds(): void {
  const parent = process.ppid;
  const check = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(check);
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_CHECK_MS);
  check.unref();
}

// How long a test waits before it calls something hung. These are hang guards, never
// speed checks: on a shared machine with the load at ten or more (a second test suite,
// a build, other people's work) a server process took over 60 s to print that it
// listens, and a `--help` over two minutes. A guard that a slow machine can trip fails
// good work by chance (issue 33), so each is far above any slow run and only ends a
// wait that would otherwise never end. Speed is measured by `npm run bench`.

/** A child process (server, agent, CLI command) to start, answer or exit. */
export const PROCESS_HANG_GUARD_MS = 5 * 60_000;

/** Background work (a first sync, a push) to reach the state a test waits for. */
export const STATE_HANG_GUARD_MS = 5 * 60_000;

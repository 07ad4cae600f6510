// The system's "open this" command: the browser for `solardesk web --open`, the file
// manager for a project's folder in browser mode.
import { spawn } from 'node:child_process';

/** The system's "open this" command, detached; false where there is none (no display, no opener). */
export function openWithSystem(target: string): Promise<boolean> {
  const isLinuxWithoutDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  if (isLinuxWithoutDisplay) return Promise.resolve(false);
  const [command, args] =
    process.platform === 'darwin' ? ['open', [target]] : process.platform === 'win32' ? ['explorer', [target]] : ['xdg-open', [target]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

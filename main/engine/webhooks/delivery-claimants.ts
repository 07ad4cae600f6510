// Who holds a claim on a webhook delivery (delivery-worker.ts): every worker names
// its claims with its machine, its pid and a random tag, so a claim left by a
// process of this machine that is no longer running can be taken over at once.
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';

/**
 * This machine as its processes see one another: the hostname and, on Linux, the
 * pid namespace, because containers can share a hostname without seeing each
 * other's processes.
 */
const LOCAL_MACHINE = (() => {
  let namespace = '';
  try {
    namespace = fs.readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
  } catch {
    // not Linux: the hostname alone
  }
  return namespace ? `${os.hostname()}/${namespace}` : os.hostname();
})();

/** A worker's name for its claims; unique per process start. */
export function newWorkerId(): string {
  return `${LOCAL_MACHINE}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * A claim made by a process on this machine that is no longer running (killed,
 * crashed, or this server before a restart) need not wait for its claim to lapse.
 * Claims from other machines always wait: their processes cannot be seen from here.
 */
export function isDeadLocalWorker(workerId: string): boolean {
  const [machine, pidText] = workerId.split(':');
  const pid = Number(pidText);
  if (machine !== LOCAL_MACHINE || !Number.isSafeInteger(pid) || pid <= 0) return false;
  // Another engine in this same process (tests run several) is alive by definition.
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}


// The errors a store gives when it cannot be opened, in a module of their own:
// the command line tells them apart before it has loaded the store (main/cli.ts).
import os from 'node:os';

/** The store could not be opened; the message says which and what to check, for the person starting SolarDesk. */
export class StoreOpenError extends Error {}

/** Who holds a data folder, as its holder wrote it down. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** What the process is, for a person: "a SolarDesk server", "the SolarDesk desktop app"... */
  what: string;
  started_at: string;
}

/** Another process holds the data folder; the message names it and says what to do. */
export class DataFolderInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly holder: LockHolder | null,
  ) {
    super(`the data folder ${folder} is in use by ${describeHolder(holder)}. Stop that process first, or use another data folder (--data DIR).`);
  }
}

function describeHolder(holder: LockHolder | null): string {
  if (!holder) return 'another SolarDesk process that is still starting';
  const where = holder.hostname === os.hostname() ? '' : ` on ${holder.hostname}`;
  return `${holder.what} (pid ${holder.pid}${where}, running since ${holder.started_at})`;
}

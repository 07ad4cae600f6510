// Option parsing shared by the commands: node's parseArgs, with errors that say
// what to type instead.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import path from 'node:path';
import type { ContentsPolicyOptions } from '../sync/contents-policy.ts';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseOptions<T extends Options>(args: string[], options: T, help: string) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${help}`);
  }
  return parsed;
}

export function readPort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new CliError(`--port must be a number from 0 to 65535 (0 picks a free port), not "${text}".`);
  return port;
}

const BYTE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** "1048576", "500M", "2G" -> bytes (binary units); undefined when the flag is absent. */
export function readByteSize(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+)\s*([kmg]?)(?:i?b)?$/i.exec(text.trim());
  const bytes = match ? Number(match[1]) * BYTE_UNITS[match[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new CliError(`${flag} takes a size in bytes, optionally with K, M or G (for example 500M), not "${text}".`);
  return bytes;
}

/** A number greater than zero; undefined when the flag is absent. */
export function readPositiveNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) throw new CliError(`${flag} takes a number greater than 0, not "${text}".`);
  return value;
}

/** Read from the environment when --database is absent, so a password need not appear in the process list. */
export const DATABASE_URL_ENV = 'SOLARDESK_DATABASE_URL';

/** --database (or SOLARDESK_DATABASE_URL) and --blob-dir, checked; undefined means the SQLite file and the data folder. */
export function readStoreOptions(values: { database?: string | boolean; 'blob-dir'?: string | boolean }): { database?: string; blobDir?: string } {
  const database = typeof values.database === 'string' ? values.database : process.env[DATABASE_URL_ENV] || undefined;
  if (database !== undefined && !/^postgres(ql)?:\/\/[^/]+\/[^/?]+/i.test(database)) {
    throw new CliError('--database takes a PostgreSQL address: postgres://USER:PASSWORD@HOST:PORT/DATABASE. Leave it out to use the SQLite file in --data.');
  }
  const blobDir = typeof values['blob-dir'] === 'string' ? path.resolve(values['blob-dir']) : undefined;
  return { database, blobDir };
}

/** --keep-contents, --keep-opened-days and --keep-role-projects as the agent's files-on-demand policy. */
export function readContentsPolicy(keep: string | undefined, openedDays: string | undefined, roleProjects: string | undefined): ContentsPolicyOptions {
  const policy: ContentsPolicyOptions = {};
  if (keep !== undefined) {
    if (keep !== 'all' && keep !== 'relevant') throw new CliError(`--keep-contents takes "relevant" or "all", not "${keep}".`);
    policy.everything = keep === 'all';
  }
  if (openedDays !== undefined) {
    const days = Number(openedDays);
    if (!Number.isInteger(days) || days < 0 || days > 3650) throw new CliError(`--keep-opened-days takes a whole number of days from 0 to 3650, not "${openedDays}".`);
    policy.openedDays = days;
  }
  if (roleProjects !== undefined) {
    if (roleProjects !== 'yes' && roleProjects !== 'no') throw new CliError(`--keep-role-projects takes "yes" or "no", not "${roleProjects}".`);
    policy.roles = roleProjects === 'yes';
  }
  return policy;
}

// Option parsing shared by the commands: node's parseArgs, with errors that say
// what to type instead.
import { parseArgs, type ParseArgsConfig } from 'node:util';

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

// `solardesk migrate-store`: moves a SQLite server's store (and its files'
// contents) into an empty PostgreSQL store, so several server processes can share
// it. The copying itself is engine/store/store-copy.ts.
import fs from 'node:fs';
import path from 'node:path';
import { DATABASE_FILE_NAME, isPostgresUrl, openPostgresStore, openSqliteStore, redactUrl, type Store } from '../engine/store/database.ts';
import { copyStore, describeSource, StoreCopyError, type StoreCopyProgress, type StoreCopyReport, type TableReport } from '../engine/store/store-copy.ts';
import { CliError, DATABASE_URL_ENV, parseOptions } from './cli-args.ts';
import { describeBytes } from '../engine/files/file-settings.ts';

export const MIGRATE_STORE_HELP = `Usage: solardesk migrate-store --from sqlite:PATH --to URL [--blob-dir DIR]

Copies a SQLite server's store into an empty PostgreSQL store: every table, and
the contents of every private file, so that
  solardesk server --database URL --blob-dir DIR
serves the same orgs, users, passwords, tokens, projects and files. Stop the
SQLite server first: changes made while the copy runs are not copied.

Options:
  --from sqlite:PATH   The SQLite server's data folder (its --data), or the
                       ${DATABASE_FILE_NAME} file in it. Only read: its data is not
                       changed, except that opening it applies any migrations this
                       version of SolarDesk adds (as starting a server on it would)
  --from-blob-dir DIR  Where the SQLite server kept file contents, if it ran with
                       --blob-dir (default: the PATH folder)
  --to URL             The PostgreSQL store to fill: postgres://USER:PASS@HOST:PORT/DB,
                       optionally ending ?schema=NAME (or set ${DATABASE_URL_ENV},
                       which keeps the password out of the process list). It must
                       hold no rows: a store in use is refused, never merged into or
                       overwritten. Its tables are created if missing
  --blob-dir DIR       Where the PostgreSQL servers will keep file contents: the
                       --blob-dir they will run with (created if missing). Required
                       when the source has any files. The contents are copied, not
                       moved, so it must not be the SQLite data folder itself: a
                       SQLite server started there again would delete every file's
                       contents its own store does not name
  -h, --help           Show this help

In order, it: refuses a target that holds any rows; copies the contents of every
file a private file names (and the parts of unfinished chunked uploads), checking
each copy against its sha256 and keeping copies already in place that check out;
copies every table in foreign-key order, in one transaction; moves the id
sequences past the copied ids; and compares every table's row count, largest id
and a checksum of its rows before committing. Anything that goes wrong before the
commit leaves the target empty, so the command can simply be run again.

Prints progress to stderr, and to stdout a table of row counts on both sides and a
summary line. Exit status: 0 when everything was copied and matches; 1 when the
copy was refused or failed, or when some files' contents are missing or damaged in
the source (they are named; everything else is copied); 2 for a usage error.`;

/** How often progress is printed while a long copy runs. */
const PROGRESS_INTERVAL_MS = 1000;

export async function runMigrateStoreCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    {
      from: { type: 'string' },
      'from-blob-dir': { type: 'string' },
      to: { type: 'string' },
      'blob-dir': { type: 'string' },
    },
    MIGRATE_STORE_HELP,
  );
  if (values.help) {
    console.log(MIGRATE_STORE_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}".\n\n${MIGRATE_STORE_HELP}`);
  const sourceDir = readSource(values.from);
  const sourceFileRoot = path.resolve(values['from-blob-dir'] ?? sourceDir);
  const targetUrl = readTarget(values.to);
  const blobDir = values['blob-dir'] === undefined ? undefined : path.resolve(values['blob-dir']);
  if (blobDir !== undefined && samePath(blobDir, sourceFileRoot)) {
    throw new CliError(
      `--blob-dir must not be the folder the SQLite store keeps its file contents in (${sourceFileRoot}): a SQLite server started there again would delete the contents of every file its own store does not name, including files added through PostgreSQL. Pick a new folder.`,
    );
  }

  let source: Store;
  try {
    source = await openSqliteStore(sourceDir, sourceFileRoot);
  } catch (error) {
    throw new CliError(`cannot open the SQLite store in ${sourceDir}: ${(error as Error).message}`, 1);
  }
  let target: Store | undefined;
  try {
    const { blobs } = await describeSource(source);
    if (blobs > 0 && blobDir === undefined) {
      throw new CliError(
        `the source has the contents of ${blobs} file${blobs === 1 ? '' : 's'}: say with --blob-dir DIR where the PostgreSQL servers will keep them (the --blob-dir they will run with). They are copied there, checked, and left in place in ${sourceFileRoot} too.`,
      );
    }
    try {
      // With no files to copy, the target's file root is never written to.
      target = await openPostgresStore(targetUrl, blobDir ?? sourceFileRoot, blobDir ?? sourceFileRoot);
    } catch (error) {
      throw new CliError(`cannot open the target: ${(error as Error).message}`, 1);
    }
    console.log(`from: ${source.location}${blobDir ? `, file contents in ${sourceFileRoot}` : ''}`);
    console.log(`to:   ${target.location}${blobDir ? `, file contents in ${blobDir}` : ''}`);

    const progress = new ProgressPrinter();
    let report: StoreCopyReport;
    try {
      report = await copyStore(source, target, { onProgress: (event) => progress.show(event) });
    } catch (error) {
      progress.finish();
      if (!(error instanceof StoreCopyError)) throw error;
      if (error.tables) console.log(formatTableReport(error.tables));
      throw new CliError(`${error.message}.\nNothing was written to ${target.location}.`, 1);
    }
    progress.finish();

    console.log(formatTableReport(report.tables));
    const { files } = report;
    const fileSummary =
      files.files === 0
        ? 'no file contents'
        : `${files.files} file${files.files === 1 ? '' : 's'} (${describeBytes(files.bytes)}: ${files.copied} copied, ${files.alreadyPresent} already in place)`;
    if (files.unusableUploadParts.length > 0) {
      console.error(
        `warning: ${files.unusableUploadParts.length} part(s) of unfinished chunked uploads could not be copied, so those uploads must be started again:\n  ${files.unusableUploadParts.join('\n  ')}`,
      );
    }
    const tablesLine = `${report.tables.length} tables (${report.rows} rows)`;
    const bad = [...files.missing.map((name) => `${name} (missing)`), ...files.damaged.map((name) => `${name} (contents do not match the name)`)];
    if (bad.length > 0) {
      console.log(`Copied ${tablesLine} and ${fileSummary}.`);
      console.error(
        `error: the contents of ${bad.length} file${bad.length === 1 ? '' : 's'} could not be copied from ${path.join(sourceFileRoot, 'blobs')}:\n  ${bad.join('\n  ')}\n` +
          `The rows naming them were copied; those files will not download until a blob with the right bytes is put at ${path.join(blobDir ?? sourceFileRoot, 'blobs', 'ab', 'cd', '<sha256>')}.`,
      );
      return 1;
    }
    console.log(`Copied ${tablesLine} and ${fileSummary}: every row count, largest id and checksum matches.`);
    return 0;
  } finally {
    await target?.close();
    await source.close();
  }
}

/** `sqlite:PATH` -> the data folder; PATH may be the folder or its solardesk.sqlite. */
function readSource(from: string | undefined): string {
  const form = `--from takes sqlite:PATH, where PATH is a SQLite server's data folder or the ${DATABASE_FILE_NAME} file in it`;
  if (from === undefined) throw new CliError(`${form}.\n\n${MIGRATE_STORE_HELP}`);
  const match = /^sqlite:(?:\/\/)?(.+)$/i.exec(from);
  if (!match) throw new CliError(`${form} (for example --from sqlite:./data), not "${redactUrl(from)}".`);
  const given = path.resolve(match[1]!);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(given);
  } catch {
    throw new CliError(`there is no ${given}: ${form}.`, 1);
  }
  const dataDir = stat.isDirectory() ? given : path.dirname(given);
  if (!stat.isDirectory() && path.basename(given) !== DATABASE_FILE_NAME) {
    throw new CliError(`${given} is not a SolarDesk store: ${form}.`, 1);
  }
  // Opening a folder without the file would make a new, empty store there.
  if (!fs.existsSync(path.join(dataDir, DATABASE_FILE_NAME))) {
    throw new CliError(`${dataDir} holds no ${DATABASE_FILE_NAME}, so it is not a SQLite server's data folder: ${form}.`, 1);
  }
  return dataDir;
}

function readTarget(to: string | undefined): string {
  const url = to ?? (process.env[DATABASE_URL_ENV] || undefined);
  if (url === undefined) throw new CliError(`--to (or ${DATABASE_URL_ENV}) is required: the PostgreSQL store to fill, postgres://USER:PASS@HOST:PORT/DB.`);
  if (!isPostgresUrl(url) || !/^postgres(ql)?:\/\/[^/]+\/[^/?]+/i.test(url)) {
    throw new CliError(`--to takes a PostgreSQL address: postgres://USER:PASSWORD@HOST:PORT/DATABASE[?schema=NAME], not "${redactUrl(url)}".`);
  }
  return url;
}

function samePath(a: string, b: string): boolean {
  const real = (file: string) => {
    try {
      return fs.realpathSync(file);
    } catch {
      return path.resolve(file);
    }
  };
  return real(a) === real(b);
}

/** Progress lines on stderr, at most one a second (and the last state of each phase). */
class ProgressPrinter {
  private lastShown = 0;
  private pending: string | null = null;
  private phase: StoreCopyProgress['phase'] | null = null;

  show(event: StoreCopyProgress): void {
    const line = describeProgress(event);
    if (event.phase !== this.phase) {
      this.flush();
      this.phase = event.phase;
      this.print(line);
      return;
    }
    // The comparison is announced once; the copies show their counts as they go.
    if (event.phase === 'verify') return;
    const finished = event.phase === 'files' ? event.files === event.totalFiles : event.rowsDone === event.totalRows;
    if (finished || Date.now() - this.lastShown >= PROGRESS_INTERVAL_MS) this.print(line);
    else this.pending = line;
  }

  finish(): void {
    this.flush();
  }

  private flush(): void {
    if (this.pending !== null) this.print(this.pending);
  }

  private print(line: string): void {
    console.error(line);
    this.pending = null;
    this.lastShown = Date.now();
  }
}

function describeProgress(event: StoreCopyProgress): string {
  switch (event.phase) {
    case 'files':
      return `file contents: ${event.files}/${event.totalFiles} files, ${describeBytes(event.bytes)}/${describeBytes(event.totalBytes)}`;
    case 'rows':
      return `rows: ${event.rowsDone}/${event.totalRows} (${event.table} ${event.rows}/${event.tableRows})`;
    case 'verify':
      return 'comparing every table on both sides...';
  }
}

export function formatTableReport(tables: readonly TableReport[]): string {
  const header = ['table', 'source rows', 'target rows', 'max id', 'check'];
  const rows = tables.map((table) => [
    table.table,
    String(table.sourceRows),
    String(table.targetRows),
    table.sourceMaxId === table.targetMaxId ? (table.sourceMaxId === null ? '-' : String(table.sourceMaxId)) : `${table.sourceMaxId ?? '-'} vs ${table.targetMaxId ?? '-'}`,
    table.ok ? 'ok' : `DIFFERS (${table.sourceRows !== table.targetRows ? 'row count' : table.sourceMaxId !== table.targetMaxId ? 'largest id' : 'contents'})`,
  ]);
  const total = ['total', String(tables.reduce((sum, table) => sum + table.sourceRows, 0)), String(tables.reduce((sum, table) => sum + table.targetRows, 0)), '', ''];
  const all = [header, ...rows, total];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 || column === 4 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line), line(total)].join('\n');
}

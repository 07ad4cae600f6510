// The inbox folder's intake (issue 26): a folder directly under the root whose files
// belong to no project yet. The core's photo inbox (main/core/photo-inbox.ts) sorts
// them; the watcher only brings them in, the way it brings in a project folder's
// files: the same chokidar events and rescans (event-intake.ts, the watcher's steps),
// and a stability gate of its own (stability-gate.ts), so a camera dump still being
// copied is never read half-written, a link is never followed and a file is read once.
// A stable file is staged (copied and hashed in the engine's temp folder) and handed
// to the sink; the files due in one step are handed over together, then `flush` lets
// the sink decide on them as one batch. The staged copies are removed after `flush`.
//
// The inbox's gate has a report of its own: its refusals and problems are the inbox's
// to show (`whyWaiting`), not a project folder's.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../engine/clock.ts';
import type { ReceivedFile } from '../engine/files/blob-store.ts';
import { ignoreReason } from './folder-names.ts';
import { FolderReport } from './folder-status.ts';
import { StabilityGate, type Candidate } from './stability-gate.ts';
import { lstatOrNull } from './file-stat.ts';

/** A stable file of the inbox folder, staged. */
export interface InboxFile {
  name: string;
  /** Where the file is in the inbox folder. */
  path: string;
  size: number;
  mtimeMs: number;
  ino: string;
  /** sha256 of the staged bytes. */
  hash: string;
  /** The staged copy: exactly the bytes hashed, readable until `flush` has returned. */
  stagedPath: string;
}

/** Which file a name is now, as the sink remembers the files it was handed. */
export interface InboxFileIdentity {
  size: number;
  mtimeMs: number;
  ino: string;
}

/** What the inbox folder's files are handed to (the core's photo inbox). */
export interface InboxSink {
  /** True when this very file was handed over before (or written there by the sink itself): it needs no gate. */
  knows(name: string, file: InboxFileIdentity): boolean;
  /** A stable file, staged: remembered for `flush`. */
  take(file: InboxFile): Promise<void>;
  /** The step's files are handed over: decided on together, while their staged copies are still there. */
  flush(): Promise<void>;
  /** The name went from the inbox folder (moved out, deleted, attached). */
  gone(name: string): void;
  /** The folder was listed: these are the names in it (one it remembers that is not among them went meanwhile). */
  listed(names: ReadonlySet<string>): void;
}

/** What the watcher gives the intake it runs. */
export interface InboxIntakeOptions {
  root: string;
  /** The inbox folder's name, directly under the root. */
  folder: string;
  clock: Clock;
  windowMs: number;
  /** The engine's file root: staging happens in its temp folder. */
  fileRoot: string;
  maxUploadBytes: number;
  log?: (line: string) => void;
  /** A sink connected, or the folder changed: the worker loop should look (and scan the folder). */
  wake: () => void;
}

/** The candidates' project id: the inbox's files are no project's (yet). */
const NO_PROJECT = 0;

export class InboxIntake {
  readonly dir: string;
  private sink: InboxSink | null = null;
  /** The folder is to be listed on the worker loop's next step (a sink connected, the folder changed). */
  scanWanted = false;
  private readonly report: FolderReport;
  private readonly gate: StabilityGate;

  constructor(private readonly options: InboxIntakeOptions) {
    this.dir = path.join(options.root, options.folder);
    this.report = new FolderReport(options.log);
    this.gate = new StabilityGate({
      windowMs: options.windowMs,
      clock: options.clock,
      fileRoot: options.fileRoot,
      maxUploadBytes: options.maxUploadBytes,
      report: this.report,
      hooks: {
        // Without a sink nothing waits here: the sink's first scan looks at everything.
        settled: async (_projectId, _folder, name, _file, stat) => !this.sink || this.sink.knows(name, identityOf(stat)),
        attach: (candidate, received, stat) => this.handOver(candidate, received, stat),
        flush: async () => this.sink?.flush(),
        // The inbox folder is gone or no longer a real folder: its next scan says what is there.
        folderChanged: () => this.requestScan(),
      },
    });
  }

  get folder(): string {
    return this.options.folder;
  }

  /** Files waiting to become stable. */
  get size(): number {
    return this.gate.size;
  }

  /**
   * The sink starts taking the inbox folder's files: everything in it is looked at
   * (the folder is made if it is missing). Returns the disconnect.
   */
  connect(sink: InboxSink): () => void {
    this.sink = sink;
    this.requestScan();
    return () => {
      if (this.sink !== sink) return;
      this.sink = null;
      this.gate.clear();
    };
  }

  /** The folder is listed again on the worker loop's next step; what waited is looked at afresh. */
  requestScan(): void {
    this.gate.clear();
    this.scanWanted = true;
    this.options.wake();
  }

  /** A direct child of the inbox folder appeared or changed. */
  async consider(name: string, file: string, stat: fs.Stats | null): Promise<void> {
    if (this.sink) await this.gate.consider(NO_PROJECT, this.options.folder, name, file, stat);
  }

  /** A direct child of the inbox folder went away. */
  gone(name: string): void {
    const file = path.join(this.dir, name);
    this.gate.forget(file);
    this.report.problems.delete(`${this.options.folder}/${name}`);
    this.report.refusedFiles.delete(`${this.options.folder}/${name}`);
    this.sink?.gone(name);
  }

  /** Lists the inbox folder (made if missing): every file in it is considered. Runs as a step of the worker loop. */
  async scan(): Promise<void> {
    this.scanWanted = false;
    if (!this.sink) return;
    const stat = await lstatOrNull(this.dir);
    if (!stat) await fsp.mkdir(this.dir, { recursive: true });
    else if (!stat.isDirectory()) {
      // A link or a file in its place: never listed through it (what a link points to is not read).
      this.report.note(`${this.options.folder} is not a folder here (a link or a file): nothing in it is taken`);
      return;
    }
    const entries = await fsp.readdir(this.dir, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    this.sink.listed(new Set(entries.map((entry) => entry.name)));
    for (const entry of entries) {
      if (ignoreReason(entry.name) !== null) continue;
      const file = path.join(this.dir, entry.name);
      await this.consider(entry.name, file, await lstatOrNull(file));
    }
  }

  /** The candidates whose time has come are staged and handed over; false when none is due. */
  checkDue(): Promise<boolean> {
    return this.gate.checkDue();
  }

  nextDueAt(): number | undefined {
    return this.gate.nextDueAt();
  }

  /** The disk went away: nothing waits (its return's scan looks afresh). */
  clear(): void {
    this.gate.clear();
  }

  /** Why a file of the inbox folder is not handed over yet (still arriving, refused, too large); null when it is not waiting here. */
  whyWaiting(name: string): string | null {
    const label = `${this.options.folder}/${name}`;
    const problem = this.report.problems.get(label) ?? null;
    if (problem) return `Could not be read: ${problem.reason}.`;
    const refused = this.report.refusedFiles.get(label);
    if (refused) return `Not taken: ${refused}`;
    const candidate = this.gate.candidates.get(path.join(this.dir, name));
    if (!candidate) return null;
    return candidate.note ? `Just arrived (${candidate.note}): looked at in a moment.` : 'Just arrived: looked at in a moment.';
  }

  private async handOver(candidate: Candidate, received: ReceivedFile, stat: fs.Stats): Promise<void> {
    await this.sink?.take({
      name: candidate.name,
      path: path.join(this.dir, candidate.name),
      ...identityOf(stat),
      hash: received.sha256,
      stagedPath: received.tempPath,
    });
  }
}

export function identityOf(stat: Pick<fs.Stats, 'size' | 'mtimeMs' | 'ino'>): InboxFileIdentity {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ino: String(stat.ino) };
}

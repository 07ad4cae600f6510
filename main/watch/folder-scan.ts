// Rescans: listing a project folder and comparing it with what is recorded (missing
// files become pending unlinks, new and changed ones go to the stability gate), and
// listing the root for files that are in no project folder (reported, never
// attached). At start, after an overflow, for a new folder, and every so often.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../engine/clock.ts';
import { isRealFolder, type ProjectFolders } from './project-folders.ts';
import { ignoreReason } from './folder-names.ts';
import { type FolderReport, LIST_CAP } from './folder-status.ts';
import type { StabilityGate } from './stability-gate.ts';
import { errorCode, lstatOrNull } from './file-stat.ts';
import type { Deletes } from './deletes.ts';
import { sameStat } from './attach.ts';
import type { WatchStore } from './watch-store.ts';

export interface FolderScanOptions {
  root: string;
  store: WatchStore;
  folders: Pick<ProjectFolders, 'folderOf' | 'projectOfFolder'>;
  report: FolderReport;
  clock: Clock;
  gate: Pick<StabilityGate, 'consider'>;
  deletes: Pick<Deletes, 'missing' | 'present'>;
  /** The folder is gone or no longer real: the folders are checked again. */
  folderChanged: () => void;
  /** The folder is being listed: its events are taken again. */
  folderRescanned: (folder: string) => void;
  /** Folders directly under the root that are another workspace's, with why: listed once as outside, never looked into. */
  foreignFolders?: ReadonlyMap<string, string>;
}

export class FolderScan {
  constructor(private readonly options: FolderScanOptions) {}

  /** Compares a project folder with what is recorded: missing files become unlinks, new and changed ones candidates. */
  async project(projectId: number): Promise<void> {
    const { root, store, report, gate, deletes } = this.options;
    const folder = this.options.folders.folderOf(projectId);
    if (folder === null) return;
    this.options.folderRescanned(folder);
    const dir = path.join(root, folder);
    if (!(await isRealFolder(dir))) {
      // Gone, or swapped for a link since the last reconcile: never listed through the link.
      this.options.folderChanged();
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (errorCode(error) === 'ENOENT') this.options.folderChanged();
      return;
    }
    const rows = new Map((await store.filesOfProject(projectId)).map((row) => [row.name, row]));
    const present = new Set(entries.map((entry) => entry.name));
    const now = this.options.clock.now().getTime();
    for (const row of rows.values()) if (!present.has(row.name)) deletes.missing(row, folder, now);
    for (const entry of entries) {
      const rel = `${folder}/${entry.name}`;
      const reason = ignoreReason(entry.name);
      if (reason) {
        report.ignored.set(rel, reason);
        continue;
      }
      if (entry.isDirectory()) {
        report.outside.set(`${rel}/`, 'a subfolder of a project folder: its files are not attached');
        continue;
      }
      if (!entry.isFile()) {
        await report.refuseFile(rel, path.join(dir, entry.name), entry.isSymbolicLink());
        continue;
      }
      const file = path.join(dir, entry.name);
      const stat = await lstatOrNull(file);
      if (!stat) continue;
      const row = rows.get(entry.name);
      if (row && sameStat(row, stat)) {
        deletes.present(projectId, entry.name);
        continue;
      }
      await gate.consider(projectId, folder, entry.name, file, stat);
    }
  }

  /** Files directly in the root and in folders that are no project's: reported, never attached. */
  async root(): Promise<void> {
    const { root, report } = this.options;
    const entries = await fsp.readdir(root, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    for (const entry of entries) {
      if (entry.name.startsWith('.') || report.refusedFolders.has(`${entry.name}/`)) continue;
      if (!entry.isDirectory()) {
        const reason = ignoreReason(entry.name);
        if (reason) report.ignored.set(entry.name, reason);
        else report.outside.set(entry.name, 'directly in the folder root, not in a project folder: not attached');
        continue;
      }
      if (this.options.folders.projectOfFolder(entry.name) !== null) continue;
      const foreign = this.options.foreignFolders?.get(entry.name);
      if (foreign !== undefined) {
        report.outside.set(`${entry.name}/`, foreign);
        continue;
      }
      const inside = await fsp.readdir(path.join(root, entry.name)).catch(() => [] as string[]);
      if (inside.length === 0) report.outside.set(`${entry.name}/`, "a folder that is not a project's folder");
      for (const name of inside.slice(0, LIST_CAP)) {
        const reason = ignoreReason(name);
        if (reason) report.ignored.set(`${entry.name}/${name}`, reason);
        else report.outside.set(`${entry.name}/${name}`, `in "${entry.name}", which is not a project's folder: not attached`);
      }
    }
  }
}

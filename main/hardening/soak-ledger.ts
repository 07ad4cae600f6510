// The soak's ledger (soak.hardening.ts): every write it made and every conflict it
// resolved, with when, and the check that no acknowledged write was lost. Kept apart
// from the chaos that fills it, so the rule below reads on its own.
//
// What "superseded" means. The remote's own record of the order in which writes
// reached it is its change log: a webhook subscribed to `project.notes` makes the
// server queue, in each write's own transaction, a delivery naming the new value
// (webhook_changes ids are the commit order). Every value written is unique and
// names its writer, so each log entry is attributed. A write W is superseded when
// the log entry that follows W's value for that field is a write W' that was
// allowed to replace it:
//   - a direct API write (the harness as admin or member, acknowledged or cut off
//     by a kill) replaces whatever is there: plain clients write last-wins;
//   - an agent's pushed write Z replaces the previous value Y only if that agent
//     knew Y: Y is the agent's own write, or the value its local API showed just
//     before Z was written, or the remote side of a conflict it resolved, or Y
//     reached the remote before Z's local write was answered while the agent was
//     running and not paused (a pull may have brought Y between that read and the
//     write: lenient, so a failure here is never a race of the harness). Knowledge
//     carries through the agent's own unpushed writes of the field: when what Z's
//     local API showed was an earlier local write W of the same agent to the same
//     field whose value never reached the remote (sync coalesced W into Z's push),
//     Z knew whatever W knew, by these same rules, applied to W. Only that chain
//     counts: a value of the agent's that did reach the remote, or anyone else's,
//     carries nothing. Anything else is a lost update: the agent overwrote a value
//     it never saw, and a conflict was due.
// A local write whose value never reached the remote is superseded by a later
// acknowledged write of the same agent to the same field (sync coalesces them), or
// withdrawn by the user resolving that field's conflict as "remote". File titles
// have no change log (private files are no webhook model), so their rule is the
// weaker one: final, in an open conflict, or followed by a later-acknowledged write
// or in-folder rename of that file by anyone.
import type { AgentProcess } from '../sync/testing/agent-process.ts';
import type { SyncedModel } from '../sync/sync-models.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import type { DemoUser } from './hardening-server.ts';
import type { StoreInspector } from './store-inspector.ts';

/** How long a request of the soak waits for its answer. */
export const REQUEST_TIMEOUT_MS = 15_000;

export const seconds = (ms: number | null) => (ms === null ? 'never' : `${(ms / 1000).toFixed(2)} s`);

export type AgentName = 'A' | 'B';
export type Field = 'notes' | 'title';
export type Model = Extract<SyncedModel, 'project' | 'private_file'>;

export interface Write {
  model: Model;
  recordId: number;
  field: Field;
  value: string;
  /** "agent A", "remote admin"... */
  who: string;
  agent: AgentName | null;
  via: 'local' | 'remote' | 'resolve' | 'folder';
  sentAt: number;
  /** When the 2xx came back (ms since start); null when it did not. */
  ackedAt: number | null;
  /** For an agent's write: the value its local API showed just before. */
  seen?: unknown;
  /** For an agent's write: whether it was running and not paused then. */
  writerLive?: boolean;
}

export interface Resolution {
  agent: AgentName;
  model: string;
  recordId: number;
  field: string;
  choice: 'local' | 'remote' | 'value';
  remoteValue: unknown;
  at: number;
}

export interface AgentSlot {
  name: AgentName;
  user: DemoUser;
  dataDir: string;
  folder: string;
  port: number;
  process: AgentProcess | null;
  restarting: Promise<void> | null;
  paused: boolean;
}

export interface OpenConflict { agent: AgentName; model: string; record_id: number; field: string; local_value: unknown; remote_value: unknown }
export interface PendingRow { model: string; record_id: number; op: string; fields: string[]; status: string; reason: string }

interface LogEntry { changeId: number; projectId: number; value: unknown; at: number }

export class SoakLedger {
  readonly writes: Write[] = [];
  readonly resolutions: Resolution[] = [];
  /** What happened to the processes and to conflicts, and when: printed beside each loss. */
  readonly timeline: Array<{ at: number; what: string; recordId?: number }> = [];
  readonly started = Date.now();

  elapsed(): number {
    return Date.now() - this.started;
  }

  happened(what: string, recordId?: number): void {
    this.timeline.push({ at: this.elapsed(), what, recordId });
  }

  notesLog(store: StoreInspector): LogEntry[] {
    const rows = store.all<{ id: number; occurred_at: string; body: string }>(
      'select c.id, c.occurred_at, d.body from webhook_changes c join webhook_deliveries d on d.change_id = c.id order by c.id',
    );
    return rows
      .map((row) => ({ row, body: JSON.parse(row.body) as { model: string; model_id: number; event: string; fields?: Record<string, unknown> } }))
      .filter(({ body }) => body.model === 'Project' && body.event === 'UPDATE' && body.fields && 'notes' in body.fields)
      .map(({ row, body }) => ({ changeId: row.id, projectId: body.model_id, value: body.fields!.notes, at: Date.parse(row.occurred_at) - this.started }));
  }

  describe(write: Write | undefined, value: unknown): string {
    return write ? `${JSON.stringify(write.value)} (${write.who}, sent ${seconds(write.sentAt)}, acked ${seconds(write.ackedAt)}${write.seen !== undefined ? `, had seen ${JSON.stringify(write.seen)}` : ''})` : `${JSON.stringify(value)} (no write of the soak)`;
  }

  /**
   * Why an agent's pushed write `z` may replace `previous`, or null when it may not.
   * `reachedRemote` says whether a value of this record's notes is in the change log.
   */
  private mayReplace(z: Write, previous: LogEntry | { value: unknown; at: number }, reachedRemote: (value: unknown) => boolean): string | null {
    const byValue = this.writes.find((w) => w.value === previous.value);
    if (byValue && byValue.agent === z.agent) return 'its own write';
    if (sameJson(z.seen, previous.value)) return 'it showed that value before the write';
    if (this.resolutions.some((r) => r.agent === z.agent && r.model === 'project' && r.recordId === z.recordId && r.field === 'notes' && sameJson(r.remoteValue, previous.value))) return 'a conflict it resolved showed it';
    if (z.writerLive && previous.at <= (z.ackedAt ?? z.sentAt + REQUEST_TIMEOUT_MS)) return 'it may have pulled it just before the write';
    // What z's local API showed was the agent's own earlier write of the field, never pushed on its own: z knew what it knew.
    const earlier = this.writes.find(
      (w) => w !== z && w.agent === z.agent && w.model === 'project' && w.recordId === z.recordId && w.field === z.field && w.sentAt < z.sentAt && sameJson(w.value, z.seen) && !reachedRemote(w.value),
    );
    const why = earlier ? this.mayReplace(earlier, previous, reachedRemote) : null;
    return why === null ? null : `its unpushed ${JSON.stringify(earlier!.value)}, coalesced into this push, knew it (${why})`;
  }

  /** The processes' events and the record's conflict events from just before a write until a few seconds after. */
  private around(write: Write): string {
    const near = this.timeline.filter((event) => event.at >= write.sentAt - 3000 && event.at <= (write.ackedAt ?? write.sentAt) + 6000 && (event.recordId === undefined || event.recordId === write.recordId));
    return near.length === 0 ? '' : `\n        around it: ${near.map((event) => `${seconds(event.at)} ${event.what}`).join('; ')}`;
  }

  checkNotesWrites(log: LogEntry[], finalNotes: Map<number, unknown>, conflicts: OpenConflict[]): string[] {
    const problems: string[] = [];
    const report = (write: Write, text: string) => problems.push(`${text}${this.around(write)}`);
    const byValue = new Map(this.writes.map((write) => [write.value, write]));
    for (const w of this.writes.filter((write) => write.model === 'project' && write.ackedAt !== null)) {
      if (sameJson(finalNotes.get(w.recordId), w.value)) continue;
      if (conflicts.some((c) => c.model === 'project' && c.record_id === w.recordId && c.field === 'notes' && (sameJson(c.local_value, w.value) || sameJson(c.remote_value, w.value)))) continue;
      const entries = log.filter((entry) => entry.projectId === w.recordId);
      const position = entries.findLastIndex((entry) => entry.value === w.value);
      const where = `project ${w.recordId} notes ${this.describe(w, w.value)}`;
      if (position === -1) {
        if (w.agent === null) {
          report(w, `LOST ${where}: acknowledged by the server, but absent from its change log and not final (final ${JSON.stringify(finalNotes.get(w.recordId))})`);
          continue;
        }
        const later = this.writes.find((other) => other.agent === w.agent && other.model === 'project' && other.recordId === w.recordId && other.ackedAt !== null && other.sentAt > w.ackedAt!);
        const withdrawn = this.resolutions.find((r) => r.agent === w.agent && r.model === 'project' && r.recordId === w.recordId && r.field === 'notes' && r.choice === 'remote' && r.at > w.ackedAt!);
        if (later || withdrawn) continue;
        report(w, `LOST ${where}: never reached the remote, no later write of agent ${w.agent} to it, in no open conflict; the remote holds ${this.describe(byValue.get(String(finalNotes.get(w.recordId))), finalNotes.get(w.recordId))}`);
        continue;
      }
      const next = entries[position + 1];
      if (!next) {
        report(w, `LOST ${where}: last in the change log, yet the remote's final value is ${JSON.stringify(finalNotes.get(w.recordId))}`);
        continue;
      }
      const replacer = byValue.get(String(next.value));
      if (!replacer) {
        report(w, `LOST ${where}: replaced at change #${next.changeId} (${seconds(next.at)}) by ${JSON.stringify(next.value)}, which nobody wrote after it`);
        continue;
      }
      if (replacer.agent === null) continue; // a direct API write is last-wins by design
      if (this.mayReplace(replacer, entries[position]!, (value) => entries.some((entry) => sameJson(entry.value, value))) !== null) continue;
      report(w, `LOST ${where}: reached the remote at change #${entries[position]!.changeId} (${seconds(entries[position]!.at)}), then overwritten at change #${next.changeId} (${seconds(next.at)}) by ${this.describe(replacer, next.value)}, which had never seen it: no conflict was raised`);
    }
    return problems;
  }

  checkTitleWrites(finalTitles: Map<number, unknown>, conflicts: OpenConflict[]): string[] {
    const problems: string[] = [];
    for (const w of this.writes.filter((write) => write.model === 'private_file' && write.via !== 'folder' && write.ackedAt !== null)) {
      if (!finalTitles.has(w.recordId) || sameJson(finalTitles.get(w.recordId), w.value)) continue;
      if (conflicts.some((c) => c.model === 'private_file' && c.record_id === w.recordId && c.field === 'title' && (sameJson(c.local_value, w.value) || sameJson(c.remote_value, w.value)))) continue;
      const later = this.writes.find((other) => other !== w && other.model === 'private_file' && (other.recordId === w.recordId || other.via === 'folder') && other.ackedAt !== null && other.ackedAt > w.ackedAt! - 50);
      const withdrawn = this.resolutions.some((r) => r.agent === w.agent && r.model === 'private_file' && r.recordId === w.recordId && r.choice === 'remote' && r.at > w.ackedAt!);
      if (later || withdrawn) continue;
      problems.push(`LOST private_file ${w.recordId} title ${this.describe(w, w.value)}: no later write to it, in no open conflict; the remote holds ${JSON.stringify(finalTitles.get(w.recordId))}`);
    }
    return problems;
  }
}

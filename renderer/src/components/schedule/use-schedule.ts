// The schedule between two instants, with what each entry shows besides the event
// itself: its project's title and address, and its contact's name and phone. Only
// the local engine is asked (so it works offline and in either workspace); sync and
// other windows are followed through the engine's `records.changed`.
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { apiPaths, parseOrgReference } from '../../../../shared/api-paths.ts';
import { contactJsonSchema, type ContactJson } from '../../../../shared/schemas/contact.ts';
import { eventJsonSchema, type EventJson } from '../../../../shared/schemas/event.ts';
import { projectDetailJsonSchema } from '../../../../shared/schemas/project.ts';
import { apiOk, apiOkUnchecked, messageOf } from '../../api/api-client.ts';
import { requireBridge } from '../../bridge-client.ts';

export interface EntryProject {
  id: number;
  title: string;
  /** The address parts in one line; '' when the project has none. */
  address: string;
}

export interface ScheduleEntry {
  event: EventJson;
  project: EntryProject | null;
  contact: ContactJson | null;
}

/** The change kinds that may change an entry or what it shows. */
const SCHEDULE_KINDS = new Set(['events', 'projects', 'contacts', 'sync', 'unknown']);
/** More than any one person's two months of visits; what is past it is not shown (the list says so). */
export const SCHEDULE_LIMIT = 1000;

async function projectOf(orgId: number, id: number): Promise<EntryProject | null> {
  try {
    const project = await apiOkUnchecked(projectDetailJsonSchema, 'GET', apiPaths.project(orgId, id));
    return { id, title: project.title || project.address || `Project ${id}`, address: [project.address, project.locality, project.state, project.zip].filter(Boolean).join(', ') };
  } catch {
    // A project this user may not see, or one deleted since: the entry still shows, unnamed.
    return null;
  }
}

async function contactOf(orgId: number, url: string): Promise<ContactJson | null> {
  const reference = parseOrgReference(url, 'contacts');
  if (!reference) return null;
  return apiOk(contactJsonSchema, 'GET', apiPaths.contact(orgId, reference.id)).catch(() => null);
}

async function loadEntries(orgId: number, from: Date, to: Date): Promise<ScheduleEntry[]> {
  const events = await apiOk(z.array(eventJsonSchema), 'GET', apiPaths.events(orgId), {
    query: { start_after: from.toISOString(), start_before: to.toISOString(), is_archived: 'false', ordering: 'start', limit: SCHEDULE_LIMIT },
  });
  const projectIds = [...new Set(events.flatMap((event) => (event.project_id === null ? [] : [event.project_id])))];
  const contactUrls = [...new Set(events.flatMap((event) => (event.contact ? [event.contact] : [])))];
  const [projects, contacts] = await Promise.all([
    Promise.all(projectIds.map(async (id) => [id, await projectOf(orgId, id)] as const)),
    Promise.all(contactUrls.map(async (url) => [url, await contactOf(orgId, url)] as const)),
  ]);
  const projectById = new Map(projects);
  const contactByUrl = new Map(contacts);
  return events.map((event) => ({
    event,
    project: event.project_id === null ? null : (projectById.get(event.project_id) ?? null),
    contact: event.contact ? (contactByUrl.get(event.contact) ?? null) : null,
  }));
}

export interface ScheduleAnswer {
  entries: ScheduleEntry[] | null;
  error: string | null;
  reload(): void;
}

/** The entries starting in [from, to), in start order; asked again when the engine says the schedule may have changed. */
export function useSchedule(orgId: number, from: Date, to: Date): ScheduleAnswer {
  const [entries, setEntries] = useState<ScheduleEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revision, setRevision] = useState(0);
  const fromTime = from.getTime();
  const toTime = to.getTime();

  useEffect(
    () =>
      requireBridge().subscribe('records.changed', (change) => {
        if (change.kinds.some((kind) => SCHEDULE_KINDS.has(kind))) setRevision((value) => value + 1);
      }),
    [],
  );

  useEffect(() => {
    let isCurrent = true;
    // The entries on screen stay until the new answer comes, so a change does not flicker.
    loadEntries(orgId, new Date(fromTime), new Date(toTime)).then(
      (loaded) => {
        if (!isCurrent) return;
        setEntries(loaded);
        setError(null);
      },
      (failure: unknown) => isCurrent && setError(messageOf(failure)),
    );
    return () => {
      isCurrent = false;
    };
  }, [orgId, fromTime, toTime, revision]);

  return { entries, error, reload: () => setRevision((value) => value + 1) };
}

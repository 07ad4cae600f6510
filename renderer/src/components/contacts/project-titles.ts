// The titles of the org's projects by URL, for naming the projects a contact is on.
// One list request per thousand projects (the list fieldset, which the project list
// also reads), kept per org and read again each time the Contacts screen opens.
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { apiPaths, parseOrgReference } from '../../../../shared/api-paths.ts';
import { projectListJsonSchema } from '../../../../shared/schemas/project.ts';
import { apiOkUnchecked } from '../../api/api-client.ts';

const PAGE_SIZE = 1000;

/** A project's id from its URL (absolute or a path), or null when it is not one. */
export function projectIdOf(url: string): number | null {
  return parseOrgReference(url, 'projects')?.id ?? null;
}

async function loadTitles(orgId: number): Promise<Map<number, string>> {
  const titles = new Map<number, string>();
  for (let page = 1; ; page++) {
    const rows = await apiOkUnchecked(z.array(projectListJsonSchema), 'GET', apiPaths.projects(orgId), { query: { fieldset: 'list', page, limit: PAGE_SIZE, ordering: 'id' } });
    for (const row of rows) titles.set(row.id, row.title || row.address || `Project ${row.id}`);
    if (rows.length < PAGE_SIZE) return titles;
  }
}

/** Project id -> title for the org; empty until the list has come (titles then show by id). */
export function useProjectTitles(orgId: number, revision: number): ReadonlyMap<number, string> {
  const [titles, setTitles] = useState<ReadonlyMap<number, string>>(new Map());
  useEffect(() => {
    let isCurrent = true;
    loadTitles(orgId)
      .then((loaded) => {
        if (isCurrent) setTitles(loaded);
      })
      // Without titles the projects are named by number; the list itself still works.
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [orgId, revision]);
  return titles;
}

// A store as SolarDesk left it before issue 16 (migrations up to 0013): roof types
// 1 to 8 with our old meanings, per-org file tags (the five standard ones and some an
// org made), files carrying them, and sync merge bases and a conflict holding old ids.
// The catalogue tests open it with every migration (store migration 0016) and check
// that nothing saved changed meaning. On PostgreSQL when the suite runs there.
import type { Kysely } from 'kysely';
import { openStore } from '../store/database.ts';
import { makeTempDir } from './test-server.ts';
import { testDatabaseFor } from './test-database.ts';

export const PRE_CATALOGUE_MIGRATION = '0013-photo-exif';

/** The old tag ids, by org and title, as the fixture made them. */
export const OLD_TAGS = {
  export1: 1, photo1: 2, bill1: 3, contract1: 4, systemImage1: 5,
  /** Org 1's own "Warranty". */
  warranty1: 6,
  /** Org 1 made a tag titled like a catalogue tag, before there was a catalogue. */
  sitePhoto1: 7,
  /** The same, in other case: "roof plan". */
  roofPlan1: 8,
  export2: 9, photo2: 10,
  /** Org 2's own "Warranty": same title as org 1's, another tag. */
  warranty2: 11,
} as const;

/** File id -> the old tag ids it carried. */
export const OLD_FILE_TAGS: Record<number, number[]> = {
  1: [OLD_TAGS.photo1, OLD_TAGS.sitePhoto1],
  2: [OLD_TAGS.export1, OLD_TAGS.contract1],
  3: [OLD_TAGS.warranty1, OLD_TAGS.roofPlan1, OLD_TAGS.bill1],
  4: [OLD_TAGS.warranty2, OLD_TAGS.photo2],
  5: [OLD_TAGS.systemImage1],
};

/** Project id = its old roof type id (1..8); project 9 has none. */
export const OLD_ROOF_PROJECTS = [1, 2, 3, 4, 5, 6, 7, 8, 9];

/** Builds the old store in a new data folder; answers the folder, for startTestServer({ dataDir }). */
export async function buildPreCatalogueStore(): Promise<string> {
  const dataDir = makeTempDir('solardesk-pre-catalogue-');
  const store = await openStore({ dataDir, database: testDatabaseFor(dataDir), migrateUpTo: PRE_CATALOGUE_MIGRATION });
  // The store as of 0013: its tables are not those tables.ts describes now.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an older schema
  const db = store.db as unknown as Kysely<any>;
  const date = '2026-03-01T00:00:00.000Z';
  try {
    await db.insertInto('orgs').values([{ id: 1, name: 'Old Solar', created_date: date }, { id: 2, name: 'Other Solar', created_date: date }]).execute();
    await db.insertInto('users').values({ id: 1, email: 'old@example.com', password_hash: 'x', created_date: date }).execute();
    await db.insertInto('workflows').values({ id: 1, org_id: 1, title: 'Default' }).execute();
    await db.insertInto('workflow_stages').values({ id: 1, workflow_id: 1, title: 'Lead', milestone: 0, position: 0 }).execute();
    await db
      .insertInto('projects')
      .values(
        OLD_ROOF_PROJECTS.map((id) => ({
          id,
          org_id: 1,
          title: `Project ${id}`,
          workflow_id: 1,
          active_stage_id: 1,
          roof_type_id: id <= 8 ? id : null,
          created_date: date,
          modified_date: date,
        })),
      )
      .execute();
    const tag = (id: number, orgId: number, title: string) => ({ id, org_id: orgId, title, type: 'private', created_date: date });
    await db
      .insertInto('file_tags')
      .values([
        tag(OLD_TAGS.export1, 1, 'Export'),
        tag(OLD_TAGS.photo1, 1, 'Photo'),
        tag(OLD_TAGS.bill1, 1, 'Bill'),
        tag(OLD_TAGS.contract1, 1, 'Contract'),
        tag(OLD_TAGS.systemImage1, 1, 'System Image'),
        tag(OLD_TAGS.warranty1, 1, 'Warranty'),
        tag(OLD_TAGS.sitePhoto1, 1, 'Site - Photo'),
        tag(OLD_TAGS.roofPlan1, 1, 'roof plan'),
        tag(OLD_TAGS.export2, 2, 'Export'),
        tag(OLD_TAGS.photo2, 2, 'Photo'),
        tag(OLD_TAGS.warranty2, 2, 'Warranty'),
      ])
      .execute();
    for (const [fileId, tagIds] of Object.entries(OLD_FILE_TAGS)) {
      const id = Number(fileId);
      await db
        .insertInto('private_files')
        .values({ id, org_id: id === 4 ? 2 : 1, user_id: 1, title: `File ${id}`, file_name: `file-${id}.txt`, mime_type: 'text/plain', created_date: date, modified_date: date })
        .execute();
      await db.insertInto('private_file_tags').values(tagIds.map((tagId) => ({ file_id: id, tag_id: tagId }))).execute();
    }
    // Raw rows of sync's tables, as migration 0016 finds them in an older store (no part's code made them).
    await db
      // eslint-disable-next-line no-restricted-syntax -- a fixture of an older store, like the migrations it tests
      .insertInto('sync_records')
      .values([
        { model: 'project', record_id: 3, base: JSON.stringify({ title: 'Project 3', roof_type: 3 }), remote_modified: date },
        { model: 'project', record_id: 9, base: JSON.stringify({ title: 'Project 9', roof_type: null }), remote_modified: date },
        { model: 'private_file', record_id: 2, base: JSON.stringify({ title: 'File 2', file_tags: [OLD_TAGS.export1, OLD_TAGS.contract1] }), remote_modified: date },
        { model: 'contact', record_id: 3, base: JSON.stringify({ first_name: 'Kept', roof_type: 3 }), remote_modified: date },
      ])
      .execute();
    await db
      // eslint-disable-next-line no-restricted-syntax -- as above
      .insertInto('sync_conflicts')
      .values([
        { model: 'project', record_id: 6, field: 'roof_type', local_value: '6', remote_value: '5', base_value: '1', created_date: date },
        { model: 'private_file', record_id: 3, field: 'file_tags', local_value: JSON.stringify([OLD_TAGS.warranty1]), remote_value: '[]', base_value: 'null', created_date: date },
        { model: 'project', record_id: 6, field: 'title', local_value: '"6"', remote_value: '"5"', base_value: '"1"', created_date: date },
      ])
      .execute();
  } finally {
    await store.close();
  }
  return dataDir;
}

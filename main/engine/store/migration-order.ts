// The store's migrations, in the one numbered order every data folder already has.
// Each part owns its tables and the migrations that make them, in its own folder
// (docs/tables.md): the engine's in main/engine/store/migrations/, sync's, the
// watcher's and the core's in main/<part>/migrations/. The store composes them here,
// because every store holds every part's tables (one schema serves every host). It is
// the one import the layer rules let the engine make of the parts above it: migrations
// import nothing but kysely and the dialect (eslint.config.js holds both rules). A
// migration that changes data across parts (0016, 0017) stays with the engine's, and
// each part lists it (table-ownership.ts).
import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.ts';
import * as core from './migrations/0001-core.ts';
import * as files from './migrations/0002-files.ts';
import * as webhooksEventsThrottles from './migrations/0003-webhooks-events-throttles.ts';
import * as sync from '../../sync/migrations/0004-sync.ts';
import * as syncUploads from '../../sync/migrations/0005-uploads.ts';
import * as watchFolders from '../../watch/migrations/0005-folders.ts';
import * as scaleOut from './migrations/0006-scale-out.ts';
import * as contactCreator from './migrations/0007-contact-creator.ts';
import * as privateFileVersions from './migrations/0008-private-file-versions.ts';
import * as throttleAdmit from './migrations/0009-throttle-admit.ts';
import * as writeGenerations from './migrations/0010-write-generations.ts';
import * as changeLog from './migrations/0011-change-log.ts';
import * as titleSort from './migrations/0012-title-sort.ts';
import * as photoExif from '../../core/migrations/0013-photo-exif.ts';
import * as workflows from './migrations/0014-workflows.ts';
import * as teams from './migrations/0015-teams.ts';
import * as catalogues from './migrations/0016-catalogues.ts';
import * as eventTypesIdentifiers from './migrations/0017-event-types-identifiers.ts';
import * as webhookLogQueue from './migrations/0018-webhook-log-queue.ts';
import * as designedProjects from './migrations/0020-designed-projects.ts';
import * as shareLinkGeneration from './migrations/0022-share-link-generation.ts';
import * as conflictReasons from '../../sync/migrations/0023-conflict-reasons.ts';
import * as eventSchedule from './migrations/0024-event-schedule.ts';
import * as calendarFeeds from './migrations/0025-calendar-feeds.ts';
import * as documentTemplates from './migrations/0026-document-templates.ts';
import * as activityLog from '../../core/migrations/0027-activity-log.ts';
import * as uploadDocumentFields from './migrations/0028-upload-document-fields.ts';
import * as droppedFiles from '../../watch/migrations/0029-dropped-files.ts';

export type MigrationModule = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> };
/** Numbered migrations, applied in order and recorded in kysely_migration by name. Append only. */
export const MIGRATIONS: Record<string, MigrationModule> = {
  '0001-core': core,
  '0002-files': files,
  '0003-webhooks-events-throttles': webhooksEventsThrottles,
  '0004-sync': sync,
  '0005-folders-uploads': inOrder(syncUploads, watchFolders),
  '0006-scale-out': scaleOut,
  '0007-contact-creator': contactCreator,
  '0008-private-file-versions': privateFileVersions,
  '0009-throttle-admit': throttleAdmit,
  '0010-write-generations': writeGenerations,
  '0011-change-log': changeLog,
  '0012-title-sort': titleSort,
  '0013-photo-exif': photoExif,
  '0014-workflows': workflows,
  '0015-teams': teams,
  '0016-catalogues': catalogues,
  '0017-event-types-identifiers': eventTypesIdentifiers,
  '0018-webhook-log-queue': webhookLogQueue,
  '0020-designed-projects': designedProjects,
  '0022-share-link-generation': shareLinkGeneration,
  '0023-conflict-reasons': conflictReasons,
  '0024-event-schedule': eventSchedule,
  '0025-calendar-feeds': calendarFeeds,
  '0026-document-templates': documentTemplates,
  '0027-activity-log': activityLog,
  '0028-upload-document-fields': uploadDocumentFields,
  '0029-dropped-files': droppedFiles,
};

/**
 * One recorded migration made of parts' pieces, applied in the order given: 0005 made
 * sync's and the watcher's tables at once, and keeps its name so existing data folders
 * see it as applied.
 */
function inOrder(...pieces: MigrationModule[]): MigrationModule {
  return {
    async up(db, dialect) {
      for (const piece of pieces) await piece.up(db, dialect);
    },
  };
}

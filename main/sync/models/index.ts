// The registry of sync's models (docs/sync.md "Adding a synced model"): push, pull,
// the replica and conflicts ask it what a model does, instead of switching on the
// model's name.
import type { RecordView, SyncedModel } from '../sync-models.ts';
import type { SyncModel } from './sync-model.ts';
import { projectModel } from './project.ts';
import { contactModel } from './contact.ts';
import { eventModel } from './event.ts';
import { webhookModel } from './webhook.ts';
import { privateFileModel } from './private-file.ts';

export const SYNC_MODELS: Readonly<Record<SyncedModel, SyncModel>> = {
  project: projectModel,
  contact: contactModel,
  event: eventModel,
  webhook: webhookModel,
  private_file: privateFileModel,
};

export function syncModel(model: SyncedModel): SyncModel {
  const found = SYNC_MODELS[model];
  // A name from the database or a remote that is no synced model is a bug, not a record to skip quietly.
  if (!found) throw new Error(`"${model}" is not a model sync knows (main/sync/models/index.ts)`);
  return found;
}

/** A record's view as its model reads it (sync-models.ts says what a view is). */
export function viewOf(model: SyncedModel, json: Record<string, unknown>): RecordView {
  return syncModel(model).view(json);
}

// Rendering a document and keeping it as a private file of the project (issue 29).
// A saved document is found again by its input_data_hash: the same inputs answer the
// file already made; a changed design, price, project fact or choice makes a new one,
// and the older file stays (the Files tab marks it as made from older inputs).
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { DOCUMENT_CONTENT_TYPES, GENERATED_DOCUMENT_TAG_TITLE, type GenerateDocumentQuery } from '../../../shared/documents.ts';
import { fieldError } from '../http/errors.ts';
import { nowIso } from '../clock.ts';
import { receiveBuffer } from '../files/blob-store.ts';
import { storeNewFile } from '../files/file-service.ts';
import { fileJson } from '../files/file-serializer.ts';
import { ensureTag, resolveTagReferences } from '../files/file-tags.ts';
import { KeyedLock } from '../files/keyed-lock.ts';
import { roofPlanInWorker } from '../designs/design-decoder.ts';
import { documentFileName, documentTitle, type DocumentInputs } from './document-inputs.ts';
import { documentPdf, drawsRoofPlan } from './document-pdfs.ts';
import { documentCsv } from './document-csvs.ts';
import { templateLogo } from './document-templates.ts';

/** Two requests to save the same document never make it twice: in this process, this lock; across processes (PostgreSQL), the store's lock below. */
const saveLock = new KeyedLock();

/** Another process saved the same document while this one rendered it: its file is the answer. */
class SavedByAnotherProcess extends Error {
  constructor(readonly fileId: number) {
    super(`file ${fileId} has these inputs already`);
  }
}

/** The document's bytes. */
export async function renderDocument(context: EngineContext, inputs: DocumentInputs): Promise<Buffer> {
  if (inputs.format === 'csv') return Buffer.from(documentCsv(inputs), 'utf8');
  const plan = drawsRoofPlan(inputs.type) ? await roofPlanInWorker(inputs.project.design, inputs.system.uuid) : null;
  return documentPdf(inputs, plan, await templateLogo(context, inputs.template), new Date(nowIso(context.clock)));
}

/** The saved document for these inputs: the one already made, or a new private file of the project. */
export async function saveDocument(
  context: EngineContext,
  actor: Actor,
  inputs: DocumentInputs,
  query: GenerateDocumentQuery,
): Promise<{ created: boolean; json: PrivateFileJson }> {
  const asked = (query.file_tags ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
  const resolved = await resolveTagReferences(context.db, actor, asked);
  if ('error' in resolved) throw fieldError('file_tags', `${resolved.error} Send file_tags as a comma-separated list of tag URLs or ids.`);
  const key = `${inputs.project.id}:${inputs.inputDataHash}`;
  const savedWith = (db: Pick<EngineContext['db'], 'selectFrom'>, otherThan?: number) =>
    db
      .selectFrom('private_files')
      .select('id')
      .where('org_id', '=', inputs.project.org_id)
      .where('project_id', '=', inputs.project.id)
      .where('input_data_hash', '=', inputs.inputDataHash)
      .$if(otherThan !== undefined, (query) => query.where('id', '!=', otherThan!))
      .orderBy('id', 'asc')
      .executeTakeFirst();
  return saveLock.run(key, async () => {
    const existing = await savedWith(context.db);
    if (existing) return { created: false, json: await fileJson(context, actor, existing.id) };
    const bytes = await renderDocument(context, inputs);
    const received = await receiveBuffer(context.store.fileRoot, bytes, 'document');
    const documentTag = await ensureTag(context, inputs.project.org_id, GENERATED_DOCUMENT_TAG_TITLE);
    const record = {
      orgId: inputs.project.org_id,
      userId: actor.user.id,
      projectId: inputs.project.id,
      title: documentTitle(inputs),
      fileName: documentFileName(inputs),
      mimeType: DOCUMENT_CONTENT_TYPES[inputs.format].split(';')[0]!,
      tagIds: [...new Set([documentTag.id, ...resolved.ids])],
      systemUuid: inputs.system.uuid,
      inputData: inputs.inputData,
      inputDataHash: inputs.inputDataHash,
      status: 'created',
      temporary: query.temporary === true,
    };
    let id: number;
    try {
      id = await storeNewFile(context, received, record, async (trx, newId) => {
        // Another server process on the same PostgreSQL may be saving the same document: the
        // first to commit keeps it. The lock lasts to this transaction's end, so the second
        // waits here, then sees the first's committed row and gives way (its row rolls back).
        await context.store.lock(trx, [`document-save:${key}`]);
        const first = await savedWith(trx, newId);
        if (first) throw new SavedByAnotherProcess(first.id);
      });
    } catch (error) {
      if (error instanceof SavedByAnotherProcess) return { created: false, json: await fileJson(context, actor, error.fileId) };
      throw error;
    }
    return { created: true, json: await fileJson(context, actor, id) };
  });
}

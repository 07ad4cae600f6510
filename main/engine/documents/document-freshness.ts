// Whether a saved document is still current (issue 29, docs/documents.md "Stale
// documents"): the one place that decides it. A document saved with action=save
// carries the hash of what it was made from (input_data_hash); the same choices
// (type, format, system, payment option, template, language) are gathered again
// from the project as it is now, and the two hashes compared. What differs is named
// by the parts of input_data whose versions changed, so the Files tab can say
// "Made from an older design" and offer Regenerate.
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf, type Actor } from '../auth/actor.ts';
import { ApiError } from '../http/errors.ts';
import { idParam } from '../http/list-query.ts';
import { extensionDescription } from '../http/extensions.ts';
import { fileVisibleTo } from '../files/file-access.ts';
import { parseJsonColumn } from '../files/file-serializer.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import type { ProjectRow } from '../store/tables.ts';
import { generatedDocumentStateSchema, isDocumentType, type DocumentInputChange, type GeneratedDocumentState } from '../../../shared/documents.ts';
import { documentInputs, type DocumentInputData } from './document-inputs.ts';

/** Which version in input_data stands for which change the user is told about. */
const VERSION_OF_CHANGE: Record<DocumentInputChange, readonly (keyof DocumentInputData)[]> = {
  design: ['design_version'],
  prices: ['prices_version', 'payment_option_id'],
  project: ['project_version'],
  template: ['document_template', 'template_version'],
};

/** A saved document's input_data as this engine writes it; null for anything else (a hosted service's document, an upload). */
function readInputData(text: string | null): DocumentInputData | null {
  const data = parseJsonColumn(text) as Partial<DocumentInputData> | null;
  if (!data || typeof data !== 'object' || typeof data.document_type !== 'string' || !isDocumentType(data.document_type)) return null;
  if (typeof data.design_version !== 'string' || typeof data.system_uuid !== 'string' || (data.file_format !== 'pdf' && data.file_format !== 'csv')) return null;
  return data as DocumentInputData;
}

/** Why the same choices no longer make a document, in the Files tab's words (the engine's 400 speaks to API clients). */
const GONE: Record<string, string> = {
  system_uuid: 'The system it was made from is no longer in the design.',
  payment_option_id: 'The payment option it was made with is no longer in the design.',
  document_template_id: 'The template it was made with was deleted.',
};

function problemOf(error: ApiError): string {
  const [field, messages] = Object.entries(error.body)[0] ?? [];
  const engineSentence = Array.isArray(messages) && typeof messages[0] === 'string' ? messages[0] : error.message;
  return `${(field && GONE[field]) || engineSentence} Make a new one from the Documents menu.`;
}

/** Each saved document of the project the actor sees, and whether the same choices would make the same document now. */
export async function generatedDocumentStates(context: EngineContext, actor: Actor, project: ProjectRow): Promise<GeneratedDocumentState[]> {
  const rows = await context.db
    .selectFrom('private_files')
    .select(['id', 'input_data', 'input_data_hash'])
    .where('project_id', '=', project.id)
    .where('input_data', 'is not', null)
    .where('input_data_hash', '!=', '')
    .where(fileVisibleTo(actor))
    .orderBy('id')
    .execute();
  const states: GeneratedDocumentState[] = [];
  for (const row of rows) {
    const made = readInputData(row.input_data);
    if (!made) continue;
    const query = {
      file_format: made.file_format,
      system_uuid: made.system_uuid,
      payment_option_id: made.payment_option_id,
      document_template_id: made.document_template,
      language: made.language,
    };
    const state: GeneratedDocumentState = { file: row.id, document_type: made.document_type, query, is_current: true, changed: [], problem: null };
    try {
      const now = await documentInputs(context, actor.org, project, made.document_type, {
        file_format: made.file_format,
        system_uuid: made.system_uuid,
        payment_option_id: made.payment_option_id ?? undefined,
        document_template_id: made.document_template ?? undefined,
        language: made.language as never,
      });
      state.is_current = now.inputDataHash === row.input_data_hash;
      if (!state.is_current) {
        state.changed = (Object.keys(VERSION_OF_CHANGE) as DocumentInputChange[]).filter((change) =>
          VERSION_OF_CHANGE[change].some((key) => JSON.stringify(now.inputData[key]) !== JSON.stringify(made[key])),
        );
      }
    } catch (error) {
      // The system, payment option or template it was made with is gone: it is stale, and Regenerate cannot repeat its choices.
      if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
      state.is_current = false;
      state.problem = problemOf(error);
    }
    states.push(state);
  }
  return states;
}

export function registerDocumentFreshnessRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/projects/:id/generated_documents/',
    {
      schema: {
        tags: ['documents'],
        summary: "The project's saved documents and whether each is still current",
        description: extensionDescription(
          'A document is current when the same choices (type, format, system, payment option, template, language) would make it again: its input_data_hash equals the hash of the inputs as they are now. `changed` names what differs: design, prices, project, template.',
        ),
        params: z.object({ org_id: z.string(), id: idParam }),
        response: { 200: z.array(generatedDocumentStateSchema) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const project = await getVisibleProject(context, actor, request.params.id);
      return generatedDocumentStates(context, actor, project);
    },
  );
}

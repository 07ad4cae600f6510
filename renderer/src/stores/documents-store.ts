// Generated documents in the app (issue 29, docs/documents.md "In the app"): the
// Documents menu's choice, the document made for a look before saving (bytes from
// the local engine through documents.make), saving it to the project (action=save:
// the Files tab then shows it from the engine's change event, like any write) or a
// copy to disk, and which saved documents are stale (the engine decides:
// generated_documents) with Regenerate. Kept out of files-store.ts on purpose.
import { create } from 'zustand';
import { z } from 'zod';
import { apiPaths } from '../../../shared/api-paths.ts';
import { DOCUMENT_TYPES, generatedDocumentStateSchema, type DocumentFormat, type DocumentType, type GeneratedDocumentState } from '../../../shared/documents.ts';
import { privateFileJsonSchema, type PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { documentTemplateJsonSchema, type DocumentTemplateJson } from '../../../shared/schemas/document-template.ts';
import type { MadeDocument } from '../../../shared/bridge.ts';
import { isDesktop, requireBridge } from '../bridge-client.ts';
import { apiOk, messageOf } from '../api/api-client.ts';
import { saveBytes } from '../save-text.ts';
import { useUiStore } from './ui-store.ts';

export interface DocumentChoice {
  documentType: DocumentType;
  fileFormat: DocumentFormat;
  /** Undefined: the engine's default (the sold system, else the first), as the Design tab opens. */
  systemUuid?: string;
  paymentOptionId?: number;
  /** null: the standard layout; undefined: the org's template of the type, if any (the engine's default). */
  documentTemplateId?: number | null;
}

export type DocumentStep = 'choosing' | 'making' | 'made' | 'saving' | 'saved' | 'failed';

interface MadeForPreview extends MadeDocument {
  projectId: number;
  choice: DocumentChoice;
}

interface DocumentsState {
  step: DocumentStep;
  made: MadeForPreview | null;
  /** The last failure, as a sentence that says what to do (the engine's 400 as is). */
  error: string | null;
  saved: PrivateFileJson | null;
  templates: { orgId: number; list: DocumentTemplateJson[] } | null;
  /** Each saved document of the open project and whether it is current (the engine's generated_documents). */
  freshness: { projectId: number; byFile: Map<number, GeneratedDocumentState> } | null;
  /** File ids being made again. */
  regenerating: number[];
  reset(): void;
  loadTemplates(orgId: number): Promise<void>;
  make(projectId: number, choice: DocumentChoice): Promise<void>;
  saveToProject(orgId: number): Promise<void>;
  saveCopy(): Promise<void>;
  loadFreshness(orgId: number, projectId: number): Promise<void>;
  regenerate(orgId: number, projectId: number, state: GeneratedDocumentState): Promise<void>;
}

/** generate_document's query for a choice: only what differs from the engine's defaults is sent. */
function queryOf(choice: DocumentChoice, language?: string) {
  return {
    file_format: choice.fileFormat,
    system_uuid: choice.systemUuid,
    payment_option_id: DOCUMENT_TYPES[choice.documentType].usesPaymentOption ? choice.paymentOptionId : undefined,
    document_template_id: choice.documentTemplateId ?? undefined,
    language,
  };
}

export const useDocumentsStore = create<DocumentsState>((set, get) => ({
  step: 'choosing',
  made: null,
  error: null,
  saved: null,
  templates: null,
  freshness: null,
  regenerating: [],

  reset: () => set({ step: 'choosing', made: null, error: null, saved: null }),

  async loadTemplates(orgId) {
    try {
      const list = await apiOk(z.array(documentTemplateJsonSchema), 'GET', apiPaths.documentTemplates(orgId));
      set({ templates: { orgId, list } });
    } catch {
      // The menu offers the standard layout alone; making a document does not need the list.
      set({ templates: { orgId, list: [] } });
    }
  },

  async make(projectId, choice) {
    set({ step: 'making', error: null, made: null, saved: null });
    try {
      const query = queryOf(choice);
      const made = await requireBridge().invoke('documents.make', {
        projectId,
        documentType: choice.documentType,
        fileFormat: query.file_format,
        systemUuid: query.system_uuid,
        paymentOptionId: query.payment_option_id,
        documentTemplateId: query.document_template_id,
      });
      set({ step: 'made', made: { ...made, projectId, choice } });
    } catch (error) {
      set({ step: 'failed', error: messageOf(error) });
    }
  },

  async saveToProject(orgId) {
    const made = get().made;
    if (!made) return;
    set({ step: 'saving', error: null });
    try {
      const query = { action: 'save', ...queryOf(made.choice) };
      const saved = await apiOk(privateFileJsonSchema, 'POST', apiPaths.generateDocument(orgId, made.projectId, made.choice.documentType), { query });
      // The Files tab shows it when the engine announces the new file (records.changed), not from here.
      set({ step: 'saved', saved });
    } catch (error) {
      set({ step: 'made', error: `Not saved: ${messageOf(error)}` });
    }
  },

  async saveCopy() {
    const made = get().made;
    if (!made) return;
    if (!isDesktop) {
      saveBytes(made.fileName, new Uint8Array(made.bytes), made.contentType);
      return;
    }
    try {
      const answer = await requireBridge().invoke('documents.saveCopy', { fileName: made.fileName, bytes: made.bytes });
      if (answer.path) useUiStore.getState().toast(`Saved a copy at ${answer.path}`);
    } catch (error) {
      useUiStore.getState().toast(messageOf(error), 'error');
    }
  },

  async loadFreshness(orgId, projectId) {
    try {
      const states = await apiOk(z.array(generatedDocumentStateSchema), 'GET', apiPaths.generatedDocuments(orgId, projectId));
      set({ freshness: { projectId, byFile: new Map(states.map((state) => [state.file, state])) } });
    } catch {
      // No marks rather than wrong ones: the files themselves are shown as they are.
      set({ freshness: { projectId, byFile: new Map() } });
    }
  },

  async regenerate(orgId, projectId, state) {
    set({ regenerating: [...get().regenerating, state.file] });
    try {
      const { file_format, system_uuid, payment_option_id, document_template_id, language } = state.query;
      const query = { action: 'save', file_format, system_uuid, payment_option_id, document_template_id, language };
      const saved = await apiOk(privateFileJsonSchema, 'POST', apiPaths.generateDocument(orgId, projectId, state.document_type), { query });
      useUiStore.getState().toast(`Made ${saved.title} again from the current design; the older file stays.`);
    } catch (error) {
      useUiStore.getState().toast(`Not regenerated: ${messageOf(error)}`, 'error');
    } finally {
      set({ regenerating: get().regenerating.filter((id) => id !== state.file) });
    }
  },
}));

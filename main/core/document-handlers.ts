// The bridge channels of generated documents (issue 29, docs/documents.md "In the
// app"): documents.make asks the local engine for a document's bytes, so the app
// previews it before saving (saving is api.request with action=save: the engine
// answers the private file and announces it like any write); documents.saveCopy
// writes a copy where the user picks in the desktop's save dialog.
//
// Both go to the local engine only (the embedded store, or the signed-in replica's
// own engine): a document is made with no network.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { apiPaths } from '../../shared/api-paths.ts';
import { BridgeError, type BridgeHandlers } from '../../shared/bridge.ts';
import { fileNameFromContentDisposition } from '../engine/files/file-types.ts';
import type { CoreRuntime } from './core-runtime.ts';
import { callLocalApiForBytes, describeApiError } from './local-api.ts';

type DocumentChannels = 'documents.make' | 'documents.saveCopy';

export function documentHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, DocumentChannels> {
  const { options, orgId } = runtime;
  return {
    'documents.make': async ({ projectId, documentType, fileFormat, systemUuid, paymentOptionId, documentTemplateId }) => {
      const answer = await callLocalApiForBytes(runtime.current, {
        method: 'POST',
        path: apiPaths.generateDocument(await orgId(), projectId, documentType),
        query: { file_format: fileFormat, system_uuid: systemUuid, payment_option_id: paymentOptionId, document_template_id: documentTemplateId },
      });
      // The engine's 400 says what to send ("Design a system first."): shown as is.
      if (answer.status !== 200 || !answer.bytes) throw new BridgeError(describeApiError(answer), { status: answer.status, details: answer.body });
      const contentType = (answer.headers['content-type'] ?? 'application/octet-stream').split(';')[0]!.trim();
      const fileName = fileNameFromContentDisposition(answer.headers['content-disposition'] ?? null) ?? `${documentType}.${fileFormat ?? 'pdf'}`;
      return { bytes: answer.bytes, fileName, contentType };
    },

    'documents.saveCopy': async ({ fileName, bytes }) => {
      if (!options.chooseSaveFile) {
        throw new BridgeError('Saving a copy through a dialog works in the desktop app only; here the browser downloads it.', { code: 'not_available' });
      }
      // Only the name goes to the dialog: a path in it would pick the folder for the user.
      const target = await options.chooseSaveFile(path.basename(fileName));
      if (target === null) return { path: null };
      if (!path.isAbsolute(target)) throw new BridgeError('The save dialog answered a folder that is not a full path. Pick the place again.', { code: 'invalid_request' });
      try {
        await fsp.writeFile(target, bytes);
      } catch (error) {
        throw new BridgeError(`The copy could not be saved at ${target}: ${(error as Error).message}. Pick another folder.`);
      }
      return { path: target };
    },
  };
}

// The private file behind a system image (compatibility.md "Systems"): the first
// request makes it, tagged "System Image" and attached to the project; later
// requests reuse it; a changed design (or another size) renders it again. The file
// remembers what it was drawn from: input_data {system_uuid, width, height} and
// input_data_hash, the sha256 of the design it was drawn from.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { PrivateFileRow, ProjectRow } from '../store/tables.ts';
import type { DesignSystem } from '../../../shared/design-types.ts';
import { SYSTEM_IMAGE_TAG_TITLE } from '../../../shared/file-tags.ts';
import { receiveBuffer } from '../files/blob-store.ts';
import { parseJsonColumn } from '../files/file-serializer.ts';
import { storeRerenderedContents, storeNewFile } from '../files/file-service.ts';
import { byUser } from '../changes/change-feed.ts';
import { ensureTag } from '../files/file-tags.ts';
import { KeyedLock } from '../files/keyed-lock.ts';
import { renderSystemImage } from './system-image.ts';
import { systemImageSvgInWorker } from '../designs/design-decoder.ts';

export interface ImageSize {
  width: number;
  height: number;
}

interface ImageInput extends ImageSize {
  system_uuid: string;
  format: 'png';
}

/** Two requests for the same system's image never render it twice at once. */
const imageLock = new KeyedLock();

const designHash = (encodedDesign: string) => createHash('sha256').update(encodedDesign).digest('hex');

function findImageFile(context: EngineContext, project: ProjectRow, systemUuid: string): Promise<PrivateFileRow | undefined> {
  return context.db
    .selectFrom('private_files')
    .innerJoin('private_file_tags', 'private_file_tags.file_id', 'private_files.id')
    .innerJoin('file_tags', 'file_tags.id', 'private_file_tags.tag_id')
    .selectAll('private_files')
    .where('private_files.org_id', '=', project.org_id)
    .where('private_files.project_id', '=', project.id)
    .where('private_files.system_uuid', '=', systemUuid)
    .where(sql<string>`lower(file_tags.title)`, '=', SYSTEM_IMAGE_TAG_TITLE.toLowerCase())
    .orderBy('private_files.id', 'desc')
    .executeTakeFirst();
}

function isCurrent(file: PrivateFileRow, input: ImageInput, hash: string): boolean {
  const drawn = parseJsonColumn(file.input_data) as Partial<ImageInput> | null;
  return file.input_data_hash === hash && drawn?.width === input.width && drawn?.height === input.height;
}

/** The system's image file, up to date with the project's design and the size asked for. */
export async function systemImageFile(
  context: EngineContext,
  actor: Actor,
  project: ProjectRow & { design: string },
  system: DesignSystem,
  size: ImageSize,
): Promise<PrivateFileRow> {
  const input: ImageInput = { system_uuid: system.uuid, width: size.width, height: size.height, format: 'png' };
  const hash = designHash(project.design);
  return imageLock.run(`${project.id}:${system.uuid}`, async () => {
    const existing = await findImageFile(context, project, system.uuid);
    if (existing && isCurrent(existing, input, hash)) return existing;
    const svg = await systemImageSvgInWorker(project.design, system.uuid, size.width, size.height);
    const png = await renderSystemImage(svg, size.width, size.height);
    const received = await receiveBuffer(context.store.fileRoot, png, 'system-image');
    if (existing) {
      await storeRerenderedContents(context, existing, received, { inputData: input, inputDataHash: hash }, byUser(actor.user.id));
    } else {
      const tag = await ensureTag(context, project.org_id, SYSTEM_IMAGE_TAG_TITLE);
      await storeNewFile(context, received, {
        orgId: project.org_id,
        userId: actor.user.id,
        projectId: project.id,
        title: `System image: ${system.name}`,
        fileName: `system-${system.uuid}.png`,
        mimeType: 'image/png',
        tagIds: [tag.id],
        systemUuid: system.uuid,
        inputData: input,
        inputDataHash: hash,
      });
    }
    return (await findImageFile(context, project, system.uuid))!;
  });
}

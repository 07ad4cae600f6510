// A file's small picture in the list. For now an icon by type (file-kinds.ts);
// the thumbnails made in the main process (issue 17 "Previews") replace this body,
// keeping the props.
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { fileKindOf, type FileKind } from './file-kinds.ts';

const GLYPHS: Record<FileKind, string> = {
  image: 'IMG',
  pdf: 'PDF',
  document: 'DOC',
  spreadsheet: 'XLS',
  drawing: 'DWG',
  archive: 'ZIP',
  text: 'TXT',
  other: 'FILE',
};

export function FileThumbnail({ file }: { file: PrivateFileJson }) {
  const kind = fileKindOf(file);
  return (
    <span className={`file-thumbnail file-kind-${kind}`} aria-hidden="true" data-testid="file-thumbnail">
      {GLYPHS[kind]}
    </span>
  );
}

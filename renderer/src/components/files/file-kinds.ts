// What kind of file a private file is, told by its title's extension, else by a
// tag that says it (Photo): the file JSON carries no content type. The icon, the
// type filter and the type sort use it.
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';

export type FileKind = 'image' | 'pdf' | 'document' | 'spreadsheet' | 'drawing' | 'archive' | 'text' | 'other';

const KIND_BY_EXTENSION: Record<string, FileKind> = {
  jpg: 'image', jpeg: 'image', png: 'image', gif: 'image', webp: 'image', heic: 'image', heif: 'image', tif: 'image', tiff: 'image', bmp: 'image', svg: 'image',
  pdf: 'pdf',
  doc: 'document', docx: 'document', odt: 'document', rtf: 'document', pages: 'document',
  xls: 'spreadsheet', xlsx: 'spreadsheet', ods: 'spreadsheet', csv: 'spreadsheet', numbers: 'spreadsheet',
  dwg: 'drawing', dxf: 'drawing', skp: 'drawing',
  zip: 'archive', '7z': 'archive', rar: 'archive', gz: 'archive', tar: 'archive',
  txt: 'text', md: 'text', json: 'text', xml: 'text', log: 'text',
};

export const FILE_KIND_LABELS: Record<FileKind, string> = {
  image: 'Images',
  pdf: 'PDFs',
  document: 'Documents',
  spreadsheet: 'Spreadsheets',
  drawing: 'Drawings',
  archive: 'Archives',
  text: 'Text',
  other: 'Other',
};

export function extensionOf(title: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(title.trim());
  return match ? match[1]!.toLowerCase() : '';
}

/** Tags that say what a file is when its title has no extension ("Roof, north face"). */
const KIND_BY_TAG: Record<string, FileKind> = {
  photo: 'image',
  'site - photo': 'image',
  'mounting plane photo': 'image',
  "owner's manual - post-install photograph": 'image',
  'project thumbnail': 'image',
  screenshot: 'image',
  'system image': 'image',
};

export function fileKindOf(file: Pick<PrivateFileJson, 'title' | 'file_tags_data'>): FileKind {
  const byExtension = KIND_BY_EXTENSION[extensionOf(file.title)];
  if (byExtension) return byExtension;
  for (const tag of file.file_tags_data) {
    const byTag = KIND_BY_TAG[tag.title.toLowerCase()];
    if (byTag) return byTag;
  }
  return 'other';
}

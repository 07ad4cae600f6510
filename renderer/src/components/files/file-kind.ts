// What kind of file a private file looks like from its title, for its icon before
// anything is fetched. The viewer decides by the contents' real type (the /media/
// route's Content-Type), so a title without an extension still opens right.
export type FileKind = 'image' | 'pdf' | 'sheet' | 'text' | 'document' | 'archive' | 'other';

const KINDS: Record<string, FileKind> = {
  jpg: 'image', jpeg: 'image', png: 'image', gif: 'image', webp: 'image', heic: 'image', heif: 'image', tif: 'image', tiff: 'image', avif: 'image', bmp: 'image',
  pdf: 'pdf',
  csv: 'sheet', xls: 'sheet', xlsx: 'sheet', ods: 'sheet',
  txt: 'text', md: 'text', json: 'text', xml: 'text',
  doc: 'document', docx: 'document', odt: 'document', rtf: 'document', ppt: 'document', pptx: 'document',
  zip: 'archive', '7z': 'archive', rar: 'archive', gz: 'archive', tar: 'archive',
};

export function extensionOf(title: string): string | null {
  const match = /\.([A-Za-z0-9]{1,5})$/.exec(title.trim());
  return match ? match[1]!.toLowerCase() : null;
}

export function fileKindOf(title: string): FileKind {
  const extension = extensionOf(title);
  return (extension && KINDS[extension]) || 'other';
}

/** The short label the icon shows: the extension, else the kind. */
export function iconLabelOf(title: string): string {
  const extension = extensionOf(title);
  if (extension) return extension.toUpperCase();
  return fileKindOf(title) === 'other' ? 'FILE' : fileKindOf(title).toUpperCase();
}

// A file's thumbnail in a box of fixed size, so the list never jumps as pictures
// arrive. It asks for the picture only once the box comes near the screen
// (IntersectionObserver), and gives up the request if it scrolls away first;
// files with no thumbnail (other types, contents not on this computer) show their
// type's icon.
import { useEffect, useRef, useState } from 'react';
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { knownThumbnail, thumbnailUrl } from '../../media.ts';
import { extensionOf, fileKindOf } from './file-kinds.ts';
import './file-preview.css';

type KindOf = Pick<PrivateFileJson, 'title' | 'file_tags_data'>;

/** The short label the icon shows: the title's extension, else its kind. */
function iconLabelOf(file: KindOf): string {
  const extension = extensionOf(file.title);
  if (extension) return extension.toUpperCase().slice(0, 4);
  const kind = fileKindOf(file);
  return kind === 'other' ? 'FILE' : kind === 'image' ? 'IMG' : kind.toUpperCase().slice(0, 4);
}

export function FileIcon({ file, size }: { file: KindOf; size: number }) {
  return (
    <span className={`file-icon file-icon-${fileKindOf(file)}`} style={{ width: size, height: size, fontSize: Math.max(9, Math.round(size / 4.5)) }} aria-hidden="true">
      {iconLabelOf(file)}
    </span>
  );
}

export function FileThumbnail({ file, size = 48 }: { file: Pick<PrivateFileJson, 'id' | 'title' | 'file_hash' | 'file_tags_data'>; size?: number }) {
  const hash = file.file_hash;
  // What arrived for which contents: a file given new contents shows the new thumbnail, not the old.
  const [fetched, setFetched] = useState<{ hash: string; url: string | null } | null>(null);
  const url = !hash ? null : fetched?.hash === hash ? fetched.url : knownThumbnail(hash);
  const box = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!hash || knownThumbnail(hash) !== undefined || !box.current) return;
    const setUrl = (found: string | null) => setFetched({ hash, url: found });
    let controller: AbortController | null = null;
    const observer = new IntersectionObserver(
      (entries) => {
        const isNear = entries.some((entry) => entry.isIntersecting);
        if (isNear && !controller) {
          controller = new AbortController();
          thumbnailUrl(hash, controller.signal).then(setUrl, () => {});
        } else if (!isNear && controller) {
          controller.abort();
          controller = null;
        }
      },
      { rootMargin: '300px 0px' },
    );
    observer.observe(box.current);
    return () => {
      observer.disconnect();
      controller?.abort();
    };
  }, [hash]);

  return (
    <span ref={box} className="file-thumbnail" style={{ width: size, height: size }} data-testid="file-thumbnail" data-state={url ? 'image' : url === null ? 'icon' : 'loading'}>
      {url ? <img src={url} alt="" width={size} height={size} decoding="async" draggable={false} /> : url === null ? <FileIcon file={file} size={size} /> : null}
    </span>
  );
}

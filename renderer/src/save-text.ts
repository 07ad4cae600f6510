// Text the app made or fetched, handed to the browser as a file (Electron asks where to save it).

/** Hands `text` to the browser as a download named `fileName`. */
export function saveText(fileName: string, text: string, type: string): void {
  saveBlob(fileName, new Blob([text], { type }));
}

/** Hands bytes (a generated document) to the browser as a download named `fileName`. */
export function saveBytes(fileName: string, bytes: Uint8Array<ArrayBuffer>, type: string): void {
  saveBlob(fileName, new Blob([bytes], { type }));
}

function saveBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The file name a Content-Disposition header gives (its RFC 5987 `filename*` first), or `fallback`. */
export function fileNameOf(contentDisposition: string | undefined, fallback: string): string {
  if (!contentDisposition) return fallback;
  const encoded = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(contentDisposition);
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1]!.trim());
    } catch {
      // A malformed encoding: the plain filename, if any, is still good.
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(contentDisposition);
  return (plain?.[1] ?? plain?.[2] ?? '').trim() || fallback;
}

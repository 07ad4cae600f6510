// The limits of file storage that a self-hoster may change (`solardesk server
// --max-upload-size`, `--upload-expiry-hours`), with their defaults.

export interface FileSettings {
  /** The largest file one upload may carry (a multipart create, or all parts of a chunked upload), in bytes. */
  readonly maxUploadBytes: number;
  /** How long a chunked upload may stay unfinished before it expires and its parts are removed. */
  readonly uploadExpiryMs: number;
  /** How often expired uploads are swept. */
  readonly uploadSweepIntervalMs: number;
}

export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
export const DEFAULT_UPLOAD_EXPIRY_HOURS = 24;
const HOUR_MS = 60 * 60 * 1000;

export function fileSettings(options: { maxUploadBytes?: number; uploadExpiryHours?: number }): FileSettings {
  const uploadExpiryMs = (options.uploadExpiryHours ?? DEFAULT_UPLOAD_EXPIRY_HOURS) * HOUR_MS;
  return {
    maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    uploadExpiryMs,
    // Often enough that parts never outlive their expiry by much, rarely enough to cost nothing.
    uploadSweepIntervalMs: Math.min(Math.max(uploadExpiryMs / 4, 60_000), 15 * 60_000),
  };
}

/** "2 GiB", "1.5 MiB", "900 bytes": for messages that tell a client what the limit is. */
export function describeBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(2))} ${units[unit]}`;
}

// What `--blob-store s3://...` says, parsed and checked, apart from the S3 client:
// the command line and the engine read an address without loading the AWS SDK,
// which only a server that keeps its contents in an object store needs (every
// other host, the desktop app among them, starts without it).

/** What `--blob-store` says, parsed. */
export interface ObjectStoreAddress {
  bucket: string;
  /** Key prefix, '' or ending in '/'. */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** How long one request to the store may stay silent before it counts as down. */
  requestTimeoutMs: number;
  /**
   * How a valid `file_contents` link is answered: 'stream' passes the bytes through
   * this server (the default); 'redirect' sends the client to a presigned URL of the
   * store, valid no longer than the link, so the bytes skip the server's hop.
   */
  downloads: DownloadMode;
}

export const DOWNLOAD_MODES = ['stream', 'redirect'] as const;
export type DownloadMode = (typeof DOWNLOAD_MODES)[number];
const isDownloadMode = (value: string): value is DownloadMode => (DOWNLOAD_MODES as readonly string[]).includes(value);

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * `s3://bucket/prefix?endpoint=https://...&region=...&force_path_style=true&request_timeout_ms=N&downloads=redirect`.
 * Credentials never come from here: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, or the
 * shared credentials file (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE), as every AWS tool reads them.
 */
export function parseObjectStoreAddress(value: string): ObjectStoreAddress {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--blob-store must look like s3://BUCKET/PREFIX?endpoint=URL&region=REGION (got "${value}")`);
  }
  if (url.protocol !== 's3:') throw new Error(`--blob-store must start with s3:// (got "${url.protocol}//")`);
  if (url.username || url.password) {
    throw new Error('--blob-store must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_SHARED_CREDENTIALS_FILE, instead');
  }
  const bucket = url.hostname;
  if (!bucket) throw new Error('--blob-store names no bucket: s3://BUCKET/PREFIX');
  const known = new Set(['endpoint', 'region', 'force_path_style', 'request_timeout_ms', 'downloads']);
  for (const key of url.searchParams.keys()) {
    if (!known.has(key)) throw new Error(`--blob-store has an unknown setting "${key}" (known: ${[...known].join(', ')})`);
  }
  const prefix = decodeURIComponent(url.pathname.replace(/^\/+/, '').replace(/\/+$/, ''));
  const timeout = url.searchParams.get('request_timeout_ms');
  const requestTimeoutMs = timeout === null ? DEFAULT_REQUEST_TIMEOUT_MS : Number(timeout);
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0) throw new Error(`--blob-store request_timeout_ms must be a whole number of milliseconds (got "${timeout}")`);
  const downloads = url.searchParams.get('downloads') ?? 'stream';
  if (!isDownloadMode(downloads)) throw new Error(`--blob-store downloads must be ${DOWNLOAD_MODES.join(' or ')} (got "${downloads}")`);
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  return {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    ...(endpoint ? { endpoint } : {}),
    region: url.searchParams.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: url.searchParams.get('force_path_style') === 'true',
    requestTimeoutMs,
    downloads,
  };
}

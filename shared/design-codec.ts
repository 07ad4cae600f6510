// The project `design` field: base64(gzip(UTF-8 JSON)) (service.md 2.1,
// compatibility.md: it begins with "H4sI"). Shared so the engine encodes and the
// renderer decodes with the same code. No Node Buffer here: the renderer has none.
//
// Decoding is bounded (issue 36): a design of half a megabyte can inflate to
// hundreds of megabytes, which stalled whatever decoded it. Inflation streams and
// stops as soon as the JSON passes MAX_DESIGN_JSON_BYTES, in the engine, the agent
// and the renderer alike, and says so with DesignTooLargeError.
import { gzip, Inflate } from 'pako';

const BASE64_CHUNK = 0x8000; // String.fromCharCode takes a bounded argument list.

/**
 * The most JSON a design may inflate to anywhere in SolarDesk (engine, agent,
 * renderer): three times the largest design the benchmarks use (~5 MB, thousands of
 * panels), and small enough that refusing one costs well under a second of the
 * engine's design worker even on a busy machine (Node's zlib, 32 MB: 40 ms idle,
 * 0.2-1 s at a load of 19 on 2 cores; pako, in the renderer's worker, is slower).
 */
export const MAX_DESIGN_JSON_BYTES = 16 * 1024 * 1024;
/** Output is produced (and counted) in pieces of this size, so the bound is passed by at most one piece. */
const INFLATE_CHUNK_BYTES = 256 * 1024;
/** Compressed bytes given to a DecompressionStream at a time (see decodeDesignStreaming). */
const STREAM_SLICE_BYTES = 4 * 1024;
/** gzip never makes data much larger: an encoded design longer than this cannot inflate within the bound. */
const MAX_ENCODED_DESIGN_CHARS = Math.ceil((MAX_DESIGN_JSON_BYTES * 1.01 + 1024) / 3) * 4;

export const DESIGN_TOO_LARGE_MESSAGE = `This design is too large to open here: its JSON is over ${MAX_DESIGN_JSON_BYTES / (1024 * 1024)} MB. Open it in the design tool that made it, and save a smaller design.`;

/** The design inflates past MAX_DESIGN_JSON_BYTES; nothing past the bound was inflated. */
export class DesignTooLargeError extends Error {
  override readonly name = 'DesignTooLargeError';
  constructor() {
    super(DESIGN_TOO_LARGE_MESSAGE);
  }
}

export function encodeDesign(design: unknown): string {
  const compressed = gzip(new TextEncoder().encode(JSON.stringify(design)));
  return bytesToBase64(compressed);
}

export function decodeDesign<T = unknown>(encoded: string, maxJsonBytes = MAX_DESIGN_JSON_BYTES): T {
  return designFromJsonBytes<T>(inflateWithin(encoded, maxJsonBytes));
}

/**
 * decodeDesign inflated by the platform's native gzip (DecompressionStream: browsers,
 * workers and Node alike), about ten times as fast as pako, under the same bound:
 * the stream is read piece by piece and cancelled once past it. A stream the
 * platform refuses (e.g. gzip of several members, which pako reads) is decoded by
 * decodeDesign, for its answer or its error.
 */
export async function decodeDesignStreaming<T = unknown>(encoded: string, maxJsonBytes = MAX_DESIGN_JSON_BYTES): Promise<T> {
  if (typeof DecompressionStream === 'undefined') return decodeDesign<T>(encoded, maxJsonBytes);
  checkEncodedDesignLength(encoded, maxJsonBytes);
  const compressed = base64ToBytes(encoded);
  if (isGzip(compressed) && statedGzipSize(compressed) > maxJsonBytes) throw new DesignTooLargeError();
  // Fed in small slices: a platform may inflate each chunk it is given in one go, and
  // a slice of gzip inflates to at most about a thousand times its size.
  const inflating = new DecompressionStream('gzip');
  const writer = inflating.writable.getWriter();
  const reader = inflating.readable.getReader();
  let isStopped = false;
  const feeding = (async () => {
    for (let offset = 0; offset < compressed.length && !isStopped; offset += STREAM_SLICE_BYTES) {
      await writer.write(compressed.subarray(offset, offset + STREAM_SLICE_BYTES) as Uint8Array<ArrayBuffer>);
    }
    if (!isStopped) await writer.close();
  })().catch(() => undefined); // the reader sees the same failure
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxJsonBytes) throw new DesignTooLargeError();
      chunks.push(value);
    }
  } catch (error) {
    isStopped = true;
    // Not awaited: they settle when the stream's other side does, which need not be soon.
    reader.cancel().catch(() => undefined);
    writer.abort().catch(() => undefined);
    if (error instanceof DesignTooLargeError) throw error;
    return decodeDesign<T>(encoded, maxJsonBytes);
  }
  await feeding;
  return designFromJsonBytes<T>(joinChunks(chunks, total));
}

/** The design in JSON's UTF-8 bytes, parsed (for a host that inflates with its own, faster zlib). */
export function designFromJsonBytes<T = unknown>(bytes: Uint8Array): T {
  return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as T;
}

/** DesignTooLargeError when the encoded design is too long to inflate within the bound, whatever it holds. */
export function checkEncodedDesignLength(encoded: string, maxJsonBytes = MAX_DESIGN_JSON_BYTES): void {
  if (encoded.length > MAX_ENCODED_DESIGN_CHARS && maxJsonBytes >= MAX_DESIGN_JSON_BYTES) throw new DesignTooLargeError();
}

/** The design's JSON bytes, inflated no further than maxJsonBytes (DesignTooLargeError past it). */
function inflateWithin(encoded: string, maxJsonBytes: number): Uint8Array {
  checkEncodedDesignLength(encoded, maxJsonBytes);
  const compressed = base64ToBytes(encoded);
  // gzip's trailer states the size (mod 2^32): an honest oversized design is refused
  // without inflating anything. A lying trailer is caught by the count below.
  if (isGzip(compressed) && statedGzipSize(compressed) > maxJsonBytes) throw new DesignTooLargeError();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflator = new Inflate({ chunkSize: INFLATE_CHUNK_BYTES });
  // Thrown from inside push(): pako does not catch it, so inflation stops right here.
  inflator.onData = (chunk) => {
    total += chunk.length;
    if (total > maxJsonBytes) throw new DesignTooLargeError();
    chunks.push(chunk);
  };
  inflator.onEnd = () => undefined;
  if (!inflator.push(compressed, true)) throw new Error(inflator.msg || 'The design is not valid gzip.');
  return joinChunks(chunks, total);
}

const isGzip = (bytes: Uint8Array) => bytes.length >= 18 && bytes[0] === 0x1f && bytes[1] === 0x8b;

function statedGzipSize(bytes: Uint8Array): number {
  const end = bytes.length;
  return (bytes[end - 4]! | (bytes[end - 3]! << 8) | (bytes[end - 2]! << 16)) + bytes[end - 1]! * 0x1000000;
}

function joinChunks(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return joined;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += BASE64_CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + BASE64_CHUNK));
  }
  return btoa(binary);
}

export function base64ToBytes(encoded: string): Uint8Array {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

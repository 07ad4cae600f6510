// The project `design` field: base64(gzip(UTF-8 JSON)) (service.md 2.1,
// compatibility.md: it begins with "H4sI"). Shared so the engine encodes and the
// renderer decodes with the same code. No Node Buffer here: the renderer has none.
import { gzip, ungzip } from 'pako';

const BASE64_CHUNK = 0x8000; // String.fromCharCode takes a bounded argument list.

export function encodeDesign(design: unknown): string {
  const compressed = gzip(new TextEncoder().encode(JSON.stringify(design)));
  return bytesToBase64(compressed);
}

export function decodeDesign<T = unknown>(encoded: string): T {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(ungzip(base64ToBytes(encoded)));
  return JSON.parse(text) as T;
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

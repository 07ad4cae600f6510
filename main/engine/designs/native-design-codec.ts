// The engine's design decoder: shared/design-codec.ts's format and bound, inflated by
// Node's zlib, about ten times as fast as pako (which the renderer needs), so a
// design past MAX_DESIGN_JSON_BYTES is refused in tens of milliseconds, not hundreds.
// zlib stops inflating as soon as its output passes maxOutputLength.
import { gunzipSync } from 'node:zlib';
import {
  checkEncodedDesignLength,
  designFromJsonBytes,
  DesignTooLargeError,
  MAX_DESIGN_JSON_BYTES,
} from '../../../shared/design-codec.ts';

export function decodeDesignNatively<T = unknown>(encoded: string, maxJsonBytes = MAX_DESIGN_JSON_BYTES): T {
  checkEncodedDesignLength(encoded, maxJsonBytes);
  let json: Buffer;
  try {
    json = gunzipSync(Buffer.from(encoded, 'base64'), { maxOutputLength: maxJsonBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new DesignTooLargeError();
    throw error;
  }
  return designFromJsonBytes<T>(json);
}

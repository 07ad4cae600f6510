// The renderer's design decoder (issue 36): a Web Worker, so inflating and parsing a
// design (up to MAX_DESIGN_JSON_BYTES of JSON, seconds for a hostile one) never
// freezes the page. It inflates with the browser's native gzip (DecompressionStream,
// shared/design-codec.ts's decodeDesignStreaming). One message is one design; the
// answer carries its id.
import { decodeDesignStreaming } from '../../../shared/design-codec.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import type { DecodedDesign, DesignDecodeAnswer, DesignDecodeRequest } from './design-decoding.ts';

async function decode(encoded: string): Promise<DecodedDesign> {
  try {
    const design = await decodeDesignStreaming<ProjectDesign>(encoded);
    if (design?.version !== 1) return { error: `This design uses format version ${String(design?.version)}, which this SolarDesk cannot read.` };
    return { design };
  } catch (error) {
    // The codec's own sentence for a design too large ("This design is too large to open here: ..."); the cause otherwise.
    if ((error as Error).name === 'DesignTooLargeError') return { error: (error as Error).message };
    return { error: `The design could not be decoded: ${(error as Error).message}` };
  }
}

self.onmessage = (event: MessageEvent<DesignDecodeRequest>) => {
  const { id, encoded } = event.data;
  void decode(encoded).then((decoded) => {
    const answer: DesignDecodeAnswer = { id, ...decoded };
    self.postMessage(answer);
  });
};

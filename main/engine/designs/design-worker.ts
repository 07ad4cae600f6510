// The worker thread that decodes designs (issue 36): inflating and parsing a design
// can take a second, so the thread that serves requests never does it. Each message
// is one job; the answer carries the job's id.
import { parentPort } from 'node:worker_threads';
import { DesignTooLargeError } from '../../../shared/design-codec.ts';
import { decodeDesignNatively } from './native-design-codec.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import { digestOf, type DesignOutcome } from './design-digest.ts';
import { roofPlan, type RoofPlan } from './roof-plan.ts';

export type DesignJob =
  | { id: number; kind: 'ping' }
  | { id: number; kind: 'digest'; encoded: string }
  | { id: number; kind: 'image-svg'; encoded: string; systemUuid: string; width: number; height: number }
  | { id: number; kind: 'roof-plan'; encoded: string; systemUuid: string };

export type DesignJobAnswer =
  | { id: number; pong: true }
  | { id: number; outcome: DesignOutcome }
  | { id: number; svg: string }
  | { id: number; plan: RoofPlan }
  | { id: number; error: string };

function decodeOrFailure(encoded: string): { design: ProjectDesign | null } | { failure: Extract<DesignOutcome, { failure: unknown }>['failure'] } {
  try {
    return { design: decodeDesignNatively<ProjectDesign>(encoded) };
  } catch (error) {
    if (error instanceof DesignTooLargeError) return { failure: { reason: 'too-large', message: error.message } };
    return { failure: { reason: 'unreadable', message: `The design could not be read: ${(error as Error).message}` } };
  }
}

async function run(job: DesignJob): Promise<DesignJobAnswer> {
  if (job.kind === 'ping') return { id: job.id, pong: true };
  const decoded = decodeOrFailure(job.encoded);
  if ('failure' in decoded) return { id: job.id, outcome: { failure: decoded.failure } };
  if (job.kind === 'digest') {
    const digest = digestOf(decoded.design);
    return { id: job.id, outcome: digest ? { digest } : { failure: { reason: 'unreadable', message: 'The design has no list of systems.' } } };
  }
  if (job.kind === 'roof-plan') return { id: job.id, plan: roofPlan(decoded.design!, job.systemUuid) };
  // Loaded on the first image only: sharp is not needed to decode.
  const { systemImageSvg } = await import('../systems/system-image.ts');
  return { id: job.id, svg: systemImageSvg(decoded.design!, job.systemUuid, job.width, job.height) };
}

parentPort?.on('message', (job: DesignJob) => {
  run(job).then(
    (answer) => parentPort!.postMessage(answer),
    (error: unknown) => parentPort!.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies DesignJobAnswer),
  );
});

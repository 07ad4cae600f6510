// One worker thread per process decodes every design (design-worker.ts), one job at
// a time: a request waits for its answer while the thread that serves requests
// keeps answering the others. The worker is started on the first job and does not
// keep the process alive; if it dies (e.g. out of memory on a hostile design), its
// jobs fail with a clear error and the next job starts a new one.
import { Worker } from 'node:worker_threads';
import type { DesignOutcome } from './design-digest.ts';
import type { DesignJob, DesignJobAnswer } from './design-worker.ts';
import type { RoofPlan } from './roof-plan.ts';

/** Enough heap to parse a design of MAX_DESIGN_JSON_BYTES of JSON; past it the worker dies, not the host. */
const WORKER_HEAP_MB = 1024;

type Pending = { resolve: (answer: DesignJobAnswer) => void; reject: (error: Error) => void };
type JobInput = DesignJob extends infer Job ? (Job extends DesignJob ? Omit<Job, 'id'> : never) : never;

let worker: Worker | null = null;
let nextJobId = 1;
const pending = new Map<number, Pending>();

function startWorker(): Worker {
  const started = new Worker(new URL('./design-worker-entry.js', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  started.unref();
  started.on('message', (answer: DesignJobAnswer) => {
    const job = pending.get(answer.id);
    pending.delete(answer.id);
    job?.resolve(answer);
  });
  const failAll = (error: Error) => {
    if (worker === started) worker = null;
    for (const job of pending.values()) job.reject(error);
    pending.clear();
  };
  started.on('error', (error) => failAll(new Error(`The design worker stopped: ${error.message}`)));
  started.on('exit', (code) => failAll(new Error(`The design worker exited (code ${code}) while decoding a design.`)));
  return started;
}

function runJob(job: JobInput): Promise<DesignJobAnswer> {
  worker ??= startWorker();
  const id = nextJobId++;
  const running = worker;
  return new Promise<DesignJobAnswer>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    // A job in flight keeps the process alive (a request waits for it); an idle worker does not.
    running.ref();
    running.postMessage({ ...job, id } as DesignJob);
  }).finally(() => {
    if (pending.size === 0) running.unref();
  });
}

/**
 * Starts the design worker, resolving once it answers: a host that serves requests
 * calls it when it starts listening, so the first design asked for does not wait for
 * the worker to load (seconds on a busy machine).
 */
export async function warmDesignWorker(): Promise<void> {
  await runJob({ kind: 'ping' });
}

/** The digest of an encoded design, or why it has none; decoded in the design worker. */
export async function decodeInWorker(encoded: string): Promise<DesignOutcome> {
  const answer = await runJob({ kind: 'digest', encoded });
  if ('error' in answer) throw new Error(answer.error);
  if (!('outcome' in answer)) throw new Error('The design worker answered a design with something else.');
  return answer.outcome;
}

/** The SVG plan of one system (systems/system-image.ts), drawn in the design worker from the whole design. */
export async function systemImageSvgInWorker(encoded: string, systemUuid: string, width: number, height: number): Promise<string> {
  const answer = await runJob({ kind: 'image-svg', encoded, systemUuid, width, height });
  if ('error' in answer) throw new Error(answer.error);
  if ('outcome' in answer && 'failure' in answer.outcome) throw new Error(answer.outcome.failure.message);
  if (!('svg' in answer)) throw new Error('The design worker answered an image with something else.');
  return answer.svg;
}

/** One system's roof plan in metres (roof-plan.ts), for the generated documents; worked out in the design worker. */
export async function roofPlanInWorker(encoded: string, systemUuid: string): Promise<RoofPlan> {
  const answer = await runJob({ kind: 'roof-plan', encoded, systemUuid });
  if ('error' in answer) throw new Error(answer.error);
  if ('outcome' in answer && 'failure' in answer.outcome) throw new Error(answer.outcome.failure.message);
  if (!('plan' in answer)) throw new Error('The design worker answered a roof plan with something else.');
  return answer.plan;
}

// What came of posting a webhook delivery (delivery-worker.ts): the outcome of an
// attempt, the sentence its log shows for a failure, and the recorder that writes a
// lane's outcomes in batches while the next deliveries are posted.
import type { DeliveryRow } from '../store/tables.ts';
import { PrivateAddressError } from './address-guard.ts';

export type Outcome = { successful: true; notes: string } | { successful: false; notes: string; permanent: boolean };

export interface Attempted {
  orgId: number;
  delivery: DeliveryRow;
  outcome: Outcome;
  at: Date;
}

/**
 * Writes a lane's outcomes in the background, a batch at a time: the outcome of one
 * delivery is recorded while the next is posted, and whatever piled up meanwhile
 * goes in the next batch.
 */
export class OutcomeRecorder {
  private waiting: Attempted[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly write: (attempts: readonly Attempted[]) => Promise<void>) {}

  add(attempt: Attempted): void {
    this.waiting.push(attempt);
    if (this.waiting.length === 1) this.writing = this.writing.then(() => this.writeWaiting());
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Resolves when every outcome added is written; throws the first write's failure. */
  async flushed(): Promise<void> {
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  private async writeWaiting(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0 || this.failure !== undefined) return;
    try {
      await this.write(batch);
    } catch (error) {
      // Left claimed: the claim lapses (or a restart drops it) and the deliveries are posted again.
      this.failure = error;
    }
  }
}

export function describeFailure(error: unknown, privateEndpointAdvice: string): Outcome {
  let privateAddress: PrivateAddressError | undefined;
  // The guard's error may come wrapped: the connection's, then undici's.
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4 && !privateAddress; at = at.cause, depth++) {
    if (at instanceof PrivateAddressError) privateAddress = at;
  }
  if (privateAddress) {
    return {
      successful: false,
      permanent: true,
      // One sentence: what happened and what to do (issue 28: a test's result reads as one sentence).
      notes: `refused: ${privateAddress.message}; ${privateEndpointAdvice}`,
    };
  }
  const code = (error as { code?: string }).code;
  if (code === 'ETIMEDOUT') return { successful: false, permanent: false, notes: 'timed out waiting for the endpoint' };
  return { successful: false, permanent: false, notes: (error as Error).message || `connection error: ${code}` };
}


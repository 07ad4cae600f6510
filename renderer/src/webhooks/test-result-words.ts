// A test delivery's result as one sentence a person reads (issue 28, item 5): what
// happened and, when it failed, why or what to do; never a status next to a reason
// that contradicts it ("no answer in 3 ms" beside "refused").
import type { WebhookTestResultJson } from '../../../shared/schemas/webhook.ts';

type TestResult = Pick<WebhookTestResultJson, 'successful' | 'status' | 'notes' | 'duration_ms'>;

/** The worker's reason for a failure with no answer, in words (delivery-worker.ts describeFailure). */
function reasonInWords(notes: string): string {
  const reason = notes.trim().replace(/\.$/, '');
  if (reason.startsWith('refused: ')) return reason.slice('refused: '.length);
  if (/ECONNREFUSED/.test(reason)) return 'nothing answered at that address (the connection was refused); check the endpoint’s address and port, and that the receiving service is running';
  if (/ENOTFOUND|EAI_AGAIN/.test(reason)) return 'the endpoint’s name was not found; check its spelling';
  if (/timed out/.test(reason)) return 'the endpoint did not answer in time';
  return reason === '' ? 'the endpoint did not answer' : reason;
}

export function testResultSentence(result: TestResult): string {
  if (result.successful) return `Delivered: the endpoint answered HTTP ${result.status} in ${result.duration_ms} ms.`;
  if (result.status !== null) {
    const body = result.notes.replace(/^HTTP \d{3}:?\s*/, '').trim();
    const shown = body.length > 120 ? `${body.slice(0, 119)}…` : body;
    return `Not delivered: the endpoint answered HTTP ${result.status}${shown ? ` (“${shown}”)` : ''}.`;
  }
  return `Not delivered: ${reasonInWords(result.notes)}.`;
}

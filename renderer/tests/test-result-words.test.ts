import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testResultSentence } from '../src/webhooks/test-result-words.ts';
import { LOCAL_WEBHOOKS_ADVICE, LOCAL_WEBHOOKS_SETTING } from '../../shared/local-webhooks.ts';

test('a test delivery reads as one sentence: what happened, then why or what to do, with no time beside a refusal', () => {
  assert.equal(testResultSentence({ successful: true, status: 200, notes: 'HTTP 200', duration_ms: 35 }), 'Delivered: the endpoint answered HTTP 200 in 35 ms.');
  assert.equal(testResultSentence({ successful: false, status: 503, notes: 'HTTP 503: busy', duration_ms: 12 }), 'Not delivered: the endpoint answered HTTP 503 (“busy”).');
  const refused = testResultSentence({
    successful: false,
    status: null,
    notes: `refused: the endpoint resolves to a non-public address (127.0.0.1); ${LOCAL_WEBHOOKS_ADVICE}`,
    duration_ms: 3,
  });
  assert.equal(refused, `Not delivered: the endpoint resolves to a non-public address (127.0.0.1); to deliver to it, turn on “${LOCAL_WEBHOOKS_SETTING}” in Settings.`);
  assert.doesNotMatch(refused, /\d+ ms|no answer/);
  // One sentence: a single full stop, at the end.
  assert.equal(refused.split(/\.(\s|$)/).filter((part) => part.trim() !== '').length, 1);
  assert.match(testResultSentence({ successful: false, status: null, notes: 'connect ECONNREFUSED 127.0.0.1:9', duration_ms: 1 }), /^Not delivered: nothing answered at that address/);
});

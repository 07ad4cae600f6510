// The sentences people read about the remote: every one names the server, says
// what happens next, and hides codes like ECONNRESET.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeChangeFailure,
  describeSignInFailure,
  describeSyncStop,
  describeUnsentChanges,
  describeWait,
  RemoteBusyError,
  RemoteUnreachableError,
  SignInRequiredError,
} from './remote-errors.ts';

const URL = 'https://solar.example.com';

test('an unreachable server is "not answering", with when SolarDesk tries again, and no error code', () => {
  const sentence = describeSyncStop(new RemoteUnreachableError('ECONNRESET: socket hang up'), URL, 30_000);
  assert.equal(sentence, 'The server at https://solar.example.com is not answering (the connection was cut). SolarDesk tries again in 30 s.');
  assert.doesNotMatch(describeSyncStop(new RemoteUnreachableError('ENOTFOUND: getaddrinfo ENOTFOUND solar.example.com'), URL, 120_000), /ENOTFOUND/);
  assert.match(describeSyncStop(new RemoteUnreachableError('network error: odd'), URL, 5_000), /is not answering\. SolarDesk tries again in 5 s\.$/);
});

test('a refused token asks to sign in again; busy and throttled say the server asked to wait', () => {
  assert.equal(
    describeSyncStop(new SignInRequiredError('the remote refused the token ({"detail":"Invalid token."})'), URL, null),
    'Your sign-in to https://solar.example.com has expired or was withdrawn. Sign in again on the Sync screen; your changes wait on this computer.',
  );
  assert.equal(
    describeSyncStop(new RemoteBusyError('throttled by the remote for 60 s', 60_000), URL, 60_000),
    'The server at https://solar.example.com asked to wait: a request quota is used up for now. SolarDesk tries again in 60 s.',
  );
  assert.equal(
    describeSyncStop(new RemoteBusyError('the remote failed (HTTP 503): {"detail":"down"}', undefined), URL, 5_000),
    'The server at https://solar.example.com had a problem (HTTP 503) and asked to wait. SolarDesk tries again in 5 s.',
  );
});

test('waits are said as people say them', () => {
  assert.deepEqual([describeWait(400), describeWait(30_000), describeWait(150_000), describeWait(6 * 3600_000)], ['1 s', '30 s', '3 min', '6 h']);
});

test('a failed sign-in says what to check', () => {
  assert.equal(
    describeSignInFailure(URL, 'the remote refused the sign-in: Unable to log in with provided credentials.'),
    'Sign-in failed: https://solar.example.com refused that username and password. Check them and try again.',
  );
  assert.match(describeSignInFailure(URL, 'cannot reach https://solar.example.com: connect ECONNREFUSED 127.0.0.1:9. Check the URL and your connection.'), /^Sign-in failed: the server at https:\/\/solar\.example\.com is not answering \(nothing accepts connections there\)\. Check the address/);
});

test('the question before signing out counts changes and deletions', () => {
  assert.equal(
    describeUnsentChanges(URL, { pending: 3, heldDeletes: 1 }),
    '3 changes have not reached https://solar.example.com yet and 1 deletion waits for you. Sign out anyway? They stay on this computer and go up when you sign in to https://solar.example.com again.',
  );
  assert.match(describeUnsentChanges(URL, { pending: 0, heldDeletes: 2 }), /^2 deletions wait for you\. Sign out anyway\?/);
});

test('why one change did not go up reads as the end of a sentence', () => {
  assert.equal(describeChangeFailure('HTTP 400: {"title":["This field may not be blank."]}'), 'the server refused it (Title: This field may not be blank)');
  // Fields as the editor names them, not their code names.
  assert.equal(describeChangeFailure('HTTP 400: {"zip":["Enter a valid postal code."]}'), 'the server refused it (Postal code: Enter a valid postal code)');
  assert.equal(describeChangeFailure('HTTP 403: {"detail":"You do not have permission to perform this action."}'), 'the server refused it (You do not have permission to perform this action)');
  assert.equal(describeChangeFailure('ECONNRESET: socket hang up'), 'the server is not answering (the connection was cut)');
  assert.equal(describeChangeFailure('throttled by the remote for 5 s'), 'the server asked to wait 5 s (a request quota is used up for now)');
  assert.equal(describeChangeFailure('the remote failed (HTTP 502): "bad gateway"'), 'the server had a problem (HTTP 502)');
});

// What the bad-input hardening tests (bad-input.hardening.ts: invalid input is
// refused; valid-input.hardening.ts: unusual valid input is taken literally) share:
// the hostile values, a server with the records they aim at (some full of what
// search must take literally), and the attacker that sends each input and checks
// its answer: no 5xx, a DRF error body, refused when it must be, and no write to
// the store when refused.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { acceptedKinds, listOperations, type ApiOperation, type JsonKind, type JsonSchema } from './api-routes.ts';
import { describeRequest, sendChecked } from './checks.ts';
import { RecordMaker, type OrgRecords } from './fixtures.ts';
import { DEMO_USER_KEYS, NO_QUOTAS, jsonRequest, startHardeningServer, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { StoreInspector, type StoreSnapshot } from './store-inspector.ts';
import type { Tally } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';

/** fast-check runs per route and kind of attack; every loop is also bounded in time. */
export const RUNS = { wrongType: 30, notObject: 8, malformed: 25, deep: 4, huge: 2, contentType: 8, multipart: 100, pathTrick: 25, query: 25, search: 150, ordering: 20, validWrites: 80 };
const TIME_LIMIT_MS = 60_000;

export interface Attack {
  label: string;
  request: RawRequest;
  /** True when the input is invalid by construction and must be refused (4xx). */
  mustRefuse: boolean;
}

/** Invalid UTF-8: a bare continuation byte, bytes never used, an overlong '/', a cut-off 3-byte sequence, an encoded surrogate. */
export const INVALID_UTF8 = [[0x80], [0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]].map((bytes) => Buffer.from(bytes));

export const PATH_TRICKS = [
  '..', '.', '%2e%2e', '%2E%2E', '.%2e', '%2e%2e%2f', '..%2f..%2f..%2fetc%2fpasswd', '..%5c..%5cwindows', '%252e%252e%252f', '%c0%ae%c0%ae',
  '%00', '1%00', '%001', '1%0a', '%0d%0a', '%ff', '%', '%zz', '%E0%A4%A', '-1', '0', '1.0', '1e3', '0x1', '%2b1', '%201', '1%20', '1;', "1'",
  '1%27%20OR%201%3D1', '1%20OR%201%3D1--', '%E2%80%AE', '%D9%A1', '%EF%BC%91', 'null', 'undefined', 'NaN', '[]', '%7B%7D', '~', '*', '%2a',
  '9'.repeat(16), '9'.repeat(300), 'a'.repeat(5000), '..;', '%2e', '%u002e',
];

export const META_CHARS = ["'", '"', '%', '_', '\\', ';', '-', '*', '/', '(', ')', '=', ' ', ',', '.', '[', ']', 'a', 'Z', 'o', '0', '1', 'é', 'É', '\u0000', '\t', '😀'];
export const META_STRINGS = [
  "' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE projects; --", '%', '_', '\\', '%%', '\\%', '\\_', '_%_', '%\\', "%' --", '" OR ""="', '1; SELECT * FROM users',
  'title desc', '-title,-id', '(select password_hash from users)', 'id;', '--', '/*', '*/', 'NULL', '\\\\', '%_%', 'a%b_c', '[a-z]', '.*',
];

/** Searches that must find exactly the records made for them (and the rest of the org's that match). */
export const SEARCH_EXAMPLES = ['\u0000', 'a\u0000b', 'Élodie', 'ÄRGER', 'Über', "O'Brien", '100%', 'Solar_Co', '%_', 'back\\slash', "'); DROP", '10%_final \\ draft', 'semi;colon--', 'x_y%z@'];

export const metaString = fc.oneof(
  fc.string({ unit: fc.constantFrom(...META_CHARS), maxLength: 12 }),
  fc.constantFrom(...META_STRINGS),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
);

export const NUMBER_TEXT = /^\s*-?\d{1,15}\s*$/;
export const decodedOrRaw = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** Operations that take a JSON body (DELETE takes none: a body there changes nothing about it). */
export const jsonSchemaOf = (operation: ApiOperation): JsonSchema | null =>
  operation.body?.kind === 'json' && operation.method !== 'DELETE' ? operation.body.schema : null;
/** A property that takes strings (to carry bad text), or any property, or a made-up one. */
export const textProperty = (schema: JsonSchema): string => {
  const properties = Object.entries(schema.properties ?? {});
  const text = properties.find(([, property]) => {
    const kinds = acceptedKinds(property);
    return kinds === 'any' || kinds.has('string');
  });
  return (text ?? properties[0])?.[0] ?? 'value';
};

export const valueOfKind = (kind: JsonKind): fc.Arbitrary<unknown> => {
  switch (kind) {
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 20 });
    case 'integer':
      return fc.integer();
    case 'fraction':
      return fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  }
};

/** A server with every demo user signed in, the org's fixture records, and the store as it was before any input. */
export interface AttackTarget {
  server: HardeningServer;
  inspector: StoreInspector;
  operations: ApiOperation[];
  records: OrgRecords;
  token: string;
  baseline: StoreSnapshot;
  maker: RecordMaker;
}

export async function startAttackTarget(): Promise<AttackTarget> {
  const server = await startHardeningServer({ throttleRates: NO_QUOTAS, logLevel: 'error' });
  // Everyone signs in before the baseline (a sign-in marks the role as logged in).
  for (const user of DEMO_USER_KEYS) await server.tokenFor(user);
  const token = await server.tokenFor('sunriseAdmin');
  const maker = new RecordMaker(server, 'sunriseAdmin', 1);
  const records = await maker.makeAll(2);
  await makeSearchableRecords(server, token, records);
  const operations = await listOperations(server);
  const inspector = new StoreInspector(server.dataDir);
  return { server, inspector, operations, records, token, maker, baseline: inspector.snapshot() };
}

export async function stopAttackTarget(target: AttackTarget | undefined): Promise<void> {
  target?.inspector.close();
  const code = await target?.server.stop();
  if (target) fs.rmSync(path.dirname(target.server.dataDir), { recursive: true, force: true });
  assert.equal(code, 0, 'the server shut down cleanly');
}

/** Records whose text is full of what search must take literally. */
async function makeSearchableRecords(server: HardeningServer, token: string, records: OrgRecords): Promise<void> {
  const send = async (request: RawRequest) => {
    const response = await server.request(request);
    assert.ok(response.status < 300, `${describeRequest(request)}: ${response.status} ${response.text}`);
    return response;
  };
  for (const [first, family, email] of [
    ['Élodie', 'Ärger', 'elodie@example.com'],
    ["O'Brien", '100% Solar_Co', 'obrien+solar@example.com'],
    ['back\\slash', 'semi;colon--', 'x_y%z@example.com'],
    ['Quote "double"', "'); DROP TABLE contacts; --", 'drop@example.com'],
  ]) {
    await send(jsonRequest('POST', '/api/orgs/1/contacts/', { first_name: first, family_name: family, email }, token));
  }
  await send(jsonRequest('PATCH', apiPaths.project(1, records.project), { title: '50%_off \\ "quoted" \'single\' Über' }, token));
  const tag = await send(jsonRequest('POST', '/api/orgs/1/file_tags/', { title: 'Über' }, token));
  await send(jsonRequest('PATCH', apiPaths.privateFile(1, records.file), { title: 'Rate 10%_final \\ draft', file_tags: [tag.json.id] }, token));
}

export interface Attacker {
  /** Sends an attack and applies every check; returns the answer. */
  attack(attempt: Attack): Promise<RawResponse>;
  /** `examples` always run, before the random inputs. */
  runProperty<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, check: (value: T) => Promise<void>, examples?: T[]): Promise<void>;
  withToken(request: RawRequest): RawRequest;
}

/** The attacker at `target`, counting its inputs in `tally`; its random inputs come from `seed`. */
export function attackerOf(target: AttackTarget, tally: Tally, seed: number): Attacker {
  const { server, inspector, token } = target;
  return {
    async attack(attempt) {
      const version = inspector.dataVersion();
      const response = await sendChecked(server, attempt.request);
      tally.inputs++;
      if (attempt.mustRefuse) {
        assert.ok(response.status >= 400, `${attempt.label}: accepted (${response.status}) ${describeRequest(attempt.request)}: ${response.text.slice(0, 300)}`);
      }
      if (response.status >= 400) {
        assert.equal(inspector.dataVersion(), version, `${attempt.label}: answered ${response.status} but wrote to the store: ${describeRequest(attempt.request)}`);
      }
      return response;
    },
    async runProperty(arbitrary, numRuns, check, examples = []) {
      await fc.assert(fc.asyncProperty(arbitrary, check), {
        numRuns,
        seed,
        examples: examples.map((example) => [example]),
        interruptAfterTimeLimit: TIME_LIMIT_MS,
        markInterruptAsFailure: false,
      });
    },
    withToken: (request) => ({ ...request, headers: { authorization: `Bearer ${token}`, ...request.headers } }),
  };
}

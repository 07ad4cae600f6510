// Bad input against every route of the OpenAPI document: property-based requests
// (fast-check) with wrong types, bodies that are not objects, malformed JSON,
// invalid UTF-8, lone surrogates, deep nesting, bodies over the limit, wrong
// content types, broken multipart, path tricks in every path parameter, hostile
// query strings and broken HTTP framing. The server must answer each (no hang,
// no crash), never with a 5xx, always with a DRF error body, refuse what it must,
// and write nothing when it refuses: the store's commit counter (throttles off,
// so nothing else commits) must not move. Then: search and ordering take SQL and
// LIKE metacharacters literally (checked against the store itself), and unusual
// but valid writes store exactly what was sent, and nothing else changes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../engine/http/app.ts';
import { acceptedKinds, fillPath, listOperations, operationName, refusedKinds, type ApiOperation, type JsonKind, type JsonSchema } from './api-routes.ts';
import { describeRequest, outputTail, sendChecked } from './checks.ts';
import { RecordMaker, multipartBytes, multipartRequest, pathValues, type OrgRecords } from './fixtures.ts';
import { DEMO_USER_KEYS, NO_QUOTAS, jsonRequest, rawStatus, startHardeningServer, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { StoreInspector, diffSnapshots, type StoreSnapshot } from './store-inspector.ts';
import { newTally, reportTally, runSeed } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { searchTerms } from '../../shared/search-terms.ts';
import { naturalSortKey } from '../../shared/natural-sort.ts';

const seed = runSeed();
const tally = newTally('bad input');
const MiB = 1024 * 1024;
/** fast-check runs per route and kind of attack; every loop is also bounded in time. */
const RUNS = { wrongType: 30, notObject: 8, malformed: 25, deep: 4, huge: 2, contentType: 8, multipart: 100, pathTrick: 25, query: 25, search: 150, ordering: 20, validWrites: 80 };
const TIME_LIMIT_MS = 60_000;

interface Attack {
  label: string;
  request: RawRequest;
  /** True when the input is invalid by construction and must be refused (4xx). */
  mustRefuse: boolean;
}

/** Invalid UTF-8: a bare continuation byte, bytes never used, an overlong '/', a cut-off 3-byte sequence, an encoded surrogate. */
const INVALID_UTF8 = [[0x80], [0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]].map((bytes) => Buffer.from(bytes));

const PATH_TRICKS = [
  '..', '.', '%2e%2e', '%2E%2E', '.%2e', '%2e%2e%2f', '..%2f..%2f..%2fetc%2fpasswd', '..%5c..%5cwindows', '%252e%252e%252f', '%c0%ae%c0%ae',
  '%00', '1%00', '%001', '1%0a', '%0d%0a', '%ff', '%', '%zz', '%E0%A4%A', '-1', '0', '1.0', '1e3', '0x1', '%2b1', '%201', '1%20', '1;', "1'",
  '1%27%20OR%201%3D1', '1%20OR%201%3D1--', '%E2%80%AE', '%D9%A1', '%EF%BC%91', 'null', 'undefined', 'NaN', '[]', '%7B%7D', '~', '*', '%2a',
  '9'.repeat(16), '9'.repeat(300), 'a'.repeat(5000), '..;', '%2e', '%u002e',
];

const META_CHARS = ["'", '"', '%', '_', '\\', ';', '-', '*', '/', '(', ')', '=', ' ', ',', '.', '[', ']', 'a', 'Z', 'o', '0', '1', 'é', 'É', '\u0000', '\t', '😀'];
const META_STRINGS = [
  "' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE projects; --", '%', '_', '\\', '%%', '\\%', '\\_', '_%_', '%\\', "%' --", '" OR ""="', '1; SELECT * FROM users',
  'title desc', '-title,-id', '(select password_hash from users)', 'id;', '--', '/*', '*/', 'NULL', '\\\\', '%_%', 'a%b_c', '[a-z]', '.*',
];

/** Searches that must find exactly the records made for them (and the rest of the org's that match). */
const SEARCH_EXAMPLES = ['\u0000', 'a\u0000b', 'Élodie', 'ÄRGER', 'Über', "O'Brien", '100%', 'Solar_Co', '%_', 'back\\slash', "'); DROP", '10%_final \\ draft', 'semi;colon--', 'x_y%z@'];

const metaString = fc.oneof(
  fc.string({ unit: fc.constantFrom(...META_CHARS), maxLength: 12 }),
  fc.constantFrom(...META_STRINGS),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
);

const NUMBER_TEXT = /^\s*-?\d{1,15}\s*$/;
const decodedOrRaw = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

describe('bad input: every route of the OpenAPI document, attacked', () => {
  let server: HardeningServer;
  let inspector: StoreInspector;
  let operations: ApiOperation[];
  let records: OrgRecords;
  let token: string;
  let baseline: StoreSnapshot;
  let maker: RecordMaker;

  before(async () => {
    server = await startHardeningServer({ throttleRates: NO_QUOTAS, logLevel: 'error' });
    // Everyone signs in before the baseline (a sign-in marks the role as logged in).
    for (const user of DEMO_USER_KEYS) await server.tokenFor(user);
    token = await server.tokenFor('sunriseAdmin');
    maker = new RecordMaker(server, 'sunriseAdmin', 1);
    records = await maker.makeAll(2);
    await makeSearchableRecords();
    operations = await listOperations(server);
    inspector = new StoreInspector(server.dataDir);
    baseline = inspector.snapshot();
  });

  after(async () => {
    inspector?.close();
    const code = await server?.stop();
    if (server) fs.rmSync(path.dirname(server.dataDir), { recursive: true, force: true });
    assert.equal(code, 0, 'the server shut down cleanly');
  });

  /** Records whose text is full of what search must take literally. */
  async function makeSearchableRecords(): Promise<void> {
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

  const pathFor = (operation: ApiOperation) => fillPath(operation.template, pathValues(operation, records));

  /** Answers that were event streams (read up to their headers, then closed). */
  let eventStreams = 0;
  /** Operations at least one attack was aimed at. */
  const attacked = new Set<string>();

  /** Sends an attack and applies every check; returns the answer. */
  async function attack(attempt: Attack): Promise<RawResponse> {
    const version = inspector.dataVersion();
    const response = await sendChecked(server, attempt.request);
    tally.inputs++;
    if (response.eventStream) eventStreams++;
    if (attempt.mustRefuse) {
      assert.ok(response.status >= 400, `${attempt.label}: accepted (${response.status}) ${describeRequest(attempt.request)}: ${response.text.slice(0, 300)}`);
    }
    if (response.status >= 400) {
      assert.equal(inspector.dataVersion(), version, `${attempt.label}: answered ${response.status} but wrote to the store: ${describeRequest(attempt.request)}`);
    }
    return response;
  }

  /** `examples` always run, before the random inputs. */
  async function runProperty<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, check: (value: T) => Promise<void>, examples: T[] = []): Promise<void> {
    await fc.assert(fc.asyncProperty(arbitrary, check), {
      numRuns,
      seed,
      examples: examples.map((example) => [example] as [T]),
      interruptAfterTimeLimit: TIME_LIMIT_MS,
      markInterruptAsFailure: false,
    });
  }

  /** Runs `numRuns` attacks at each operation that `build` makes attacks for. */
  async function attackEach(numRuns: number, build: (operation: ApiOperation) => fc.Arbitrary<Attack> | null): Promise<number> {
    let routes = 0;
    for (const operation of operations) {
      const arbitrary = build(operation);
      if (!arbitrary) continue;
      routes++;
      attacked.add(operationName(operation));
      await runProperty(arbitrary, numRuns, async (attempt) => void (await attack(attempt)));
    }
    return routes;
  }

  const withToken = (request: RawRequest): RawRequest => ({ ...request, headers: { authorization: `Bearer ${token}`, ...request.headers } });
  const jsonAttack = (operation: ApiOperation, label: string, body: string | Buffer, contentType = 'application/json'): Attack => ({
    label: `${label} ${operationName(operation)}`,
    request: withToken({ method: operation.method, path: pathFor(operation), headers: { 'content-type': contentType }, body }),
    mustRefuse: true,
  });
  /** Operations that take a JSON body (DELETE takes none: a body there changes nothing about it). */
  const jsonSchemaOf = (operation: ApiOperation): JsonSchema | null =>
    operation.body?.kind === 'json' && operation.method !== 'DELETE' ? operation.body.schema : null;
  /** A property that takes strings (to carry bad text), or any property, or a made-up one. */
  const textProperty = (schema: JsonSchema): string => {
    const properties = Object.entries(schema.properties ?? {});
    const text = properties.find(([, property]) => {
      const kinds = acceptedKinds(property);
      return kinds === 'any' || kinds.has('string');
    });
    return (text ?? properties[0])?.[0] ?? 'value';
  };

  const valueOfKind = (kind: JsonKind): fc.Arbitrary<unknown> => {
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

  test('every route refuses wrong types, non-objects, malformed JSON, deep nesting and oversize bodies', async () => {
    const wrongTypes = await attackEach(RUNS.wrongType, (operation) => {
      const schema = jsonSchemaOf(operation);
      const fields = Object.entries(schema?.properties ?? {}).filter(([, property]) => refusedKinds(property).length > 0);
      if (!schema || fields.length === 0) return null;
      const known = new Set(Object.keys(schema.properties ?? {}));
      const wrongField = fc.constantFrom(...fields).chain(([name, property]) =>
        fc.oneof(...refusedKinds(property).map(valueOfKind)).map((value) => [name, value] as const),
      );
      return fc
        .record({
          wrong: fc.uniqueArray(wrongField, { minLength: 1, maxLength: 3, selector: ([name]) => name }),
          unknown: fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }).filter((key) => !known.has(key) && key !== '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
        })
        .map(({ wrong, unknown }) => jsonAttack(operation, 'wrong type', JSON.stringify({ ...unknown, ...Object.fromEntries(wrong) })));
    });

    await attackEach(RUNS.notObject, (operation) =>
      jsonSchemaOf(operation)
        ? fc
            .oneof(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }), fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
            .map((value) => jsonAttack(operation, 'not an object', JSON.stringify(value)))
        : null,
    );

    await attackEach(RUNS.malformed, (operation) => {
      const schema = jsonSchemaOf(operation);
      if (!schema) return null;
      const field = JSON.stringify(textProperty(schema));
      const valid = `{${field}: "hardening", "other": [1, 2, {"a": null}]}`;
      return fc.oneof(
        fc.integer({ min: 1, max: valid.length - 1 }).map((cut) => jsonAttack(operation, 'cut-off JSON', valid.slice(0, cut))),
        fc
          .tuple(fc.constantFrom(...INVALID_UTF8), fc.string({ unit: 'grapheme-ascii', maxLength: 5 }))
          .map(([bytes, text]) => jsonAttack(operation, 'invalid UTF-8', Buffer.concat([Buffer.from(`{${field}: "${text.replace(/["\\]/g, '')}`), bytes, Buffer.from('x"}')]))),
        fc.constantFrom('\\ud800', '\\udc00', '\\ud83dx', 'a\\udfffb').map((escape) => jsonAttack(operation, 'lone surrogate', `{${field}: "${escape}"}`)),
        fc
          .constantFrom(`{${field}: NaN}`, `{${field}: Infinity}`, `{${field}: undefined}`, `{'x': 'y'}`, `{${field}: "x",}`, `{${field}: "x" /* c */}`, `{"a": 1}{"b": 2}`, `{${field}: "x"} trailing`, `{${field}: 0x10}`, `{${field}: "tab\there"}`)
          .map((text) => jsonAttack(operation, 'not JSON', text)),
      );
    });

    const deep = await attackEach(RUNS.deep, (operation) => {
      const schema = jsonSchemaOf(operation);
      if (!schema) return null;
      const field = JSON.stringify(textProperty(schema));
      return fc.record({ depth: fc.integer({ min: MAX_JSON_DEPTH + 1, max: 30_000 }), arrays: fc.boolean() }).map(({ depth, arrays }) => {
        const nested = arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
        return jsonAttack(operation, `nested ${depth} deep`, `{${field}: ${nested}}`);
      });
    });

    await attackEach(RUNS.huge, (operation) => {
      const schema = jsonSchemaOf(operation);
      if (!schema) return null;
      const field = JSON.stringify(textProperty(schema));
      return fc.integer({ min: 2 * MiB + 1, max: 3 * MiB }).map((size) => jsonAttack(operation, `${size}-byte body`, `{${field}: "${'x'.repeat(size)}"}`));
    });

    await attackEach(RUNS.contentType, (operation) => {
      const schema = jsonSchemaOf(operation);
      if (!schema) return null;
      const body = JSON.stringify({ [textProperty(schema)]: 'hardening' });
      return fc
        .constantFrom('text/plain', 'text/html', 'application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream', 'image/png', 'application/jsonp', 'multipart/form-data; boundary=x')
        .map((contentType) => jsonAttack(operation, `Content-Type ${contentType}`, body, contentType));
    });
    tally.notes.push(`wrong types sent to ${wrongTypes} JSON routes; nesting past ${MAX_JSON_DEPTH} levels to ${deep}`);
  });

  test('broken multipart bodies are refused, and leave no file and no temp file behind', async () => {
    const multipartOperations = operations.filter((operation) => operation.body?.kind === 'multipart');
    assert.ok(multipartOperations.length > 0, 'the OpenAPI document lists the multipart upload');
    for (const operation of multipartOperations) {
      attacked.add(operationName(operation));
      const urlPath = pathFor(operation);
      const broken = fc.record({
        variant: fc.constantFrom(
          'no boundary', 'other boundary', 'cut off', 'no file part', 'file under another name', 'long title', 'bad project',
          'bad tags', 'too many fields', 'garbage part headers', 'empty body', 'only the closing line', 'json content type, cut off',
        ),
        bytes: fc.uint8Array({ maxLength: 4096 }).map((array) => Buffer.from(array)),
        cut: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        project: fc.constantFrom('abc', '999999', '/api/orgs/2/projects/49/', '../../1', '1; DROP TABLE projects', '-1', '0', '%2e%2e'),
      });
      await runProperty(broken, RUNS.multipart, async ({ variant, bytes, cut, project }) => {
        const file = { fileName: 'broken.bin', bytes };
        let multipart = multipartBytes({}, file);
        switch (variant) {
          case 'no boundary':
            multipart = { ...multipart, contentType: 'multipart/form-data' };
            break;
          case 'other boundary':
            multipart = { ...multipart, contentType: 'multipart/form-data; boundary=not-the-one-used' };
            break;
          case 'cut off':
          case 'json content type, cut off':
            multipart = {
              contentType: variant === 'cut off' ? multipart.contentType : 'application/json',
              body: multipart.body.subarray(0, Math.max(1, Math.floor(multipart.body.length * cut))),
            };
            break;
          case 'no file part':
            multipart = multipartBytes({ title: 'no file here' }, null);
            break;
          case 'file under another name':
            multipart = multipartBytes({}, { ...file, partName: 'file' });
            break;
          case 'long title':
            multipart = multipartBytes({ title: 't'.repeat(256 + Math.floor(cut * 2000)) }, file);
            break;
          case 'bad project':
            multipart = multipartBytes({ project }, file);
            break;
          case 'bad tags':
            multipart = multipartBytes({ file_tags: 'no such tag,99999' }, file);
            break;
          case 'too many fields':
            multipart = multipartBytes(Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`field${index}`, 'x'])), file);
            break;
          case 'garbage part headers': {
            const boundary = 'garbage';
            multipart = { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat([Buffer.from(`--${boundary}\r\nNot-A-Header\r\n\r\n`), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]) };
            break;
          }
          case 'empty body':
            multipart = { ...multipart, body: Buffer.alloc(0) };
            break;
          case 'only the closing line':
            multipart = { ...multipart, body: Buffer.from(`--${/boundary=(.*)$/.exec(multipart.contentType)![1]}--\r\n`) };
            break;
        }
        await attack({ label: `multipart: ${variant}`, request: multipartRequest(urlPath, token, multipart), mustRefuse: true });
      });
    }
    // Refused uploads leave nothing in DATA/tmp/ (cut-off ones are cleaned up as the connection closes).
    const tmp = path.join(server.dataDir, 'tmp');
    const deadline = Date.now() + 10_000;
    while (fs.readdirSync(tmp).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const left = fs.readdirSync(tmp).map((name) => `${name} (${fs.statSync(path.join(tmp, name)).size} bytes)`);
    assert.deepEqual(left, [], 'no temp files left by refused uploads');
  });

  test('path tricks in every path parameter name nothing', async () => {
    const trick = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...PATH_TRICKS) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
      { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('.', '/', '\\', '%', '2', 'e', 'E', 'f', 'F', '0', 'c', 'a', ';', '5'), minLength: 1, maxLength: 24 }) },
    );
    const routes = await attackEach(RUNS.pathTrick, (operation) => {
      if (operation.pathParams.length === 0) return null;
      const values = pathValues(operation, records);
      return fc
        .record({ param: fc.constantFrom(...operation.pathParams), value: trick })
        // A trick must not be another spelling of something real: digits name records, and so do these.
        .filter(({ param, value }) => {
          const decoded = decodedOrRaw(value);
          return (
            !/^\d+$/.test(decoded) &&
            !/^[0-9a-f]{32}$/.test(decoded) &&
            // Two letters may be another country (the parameter was `iso2`, now `country`: AU, 36 or BA alike).
            !((param === 'iso2' || param === 'country') && /^[A-Za-z]{2}$/.test(decoded)) &&
            decoded !== values[param] &&
            decoded.replace(/\//g, '') !== ''
          );
        })
        .map(({ param, value }) => {
          const request: RawRequest = withToken({ method: operation.method, path: fillPath(operation.template, { ...values, [param]: value }) });
          if (operation.body?.kind === 'json') Object.assign(request, { headers: { ...request.headers, 'content-type': 'application/json' }, body: '{}' });
          return { label: `path trick in {${param}} of ${operationName(operation)}`, request, mustRefuse: true };
        });
    });
    tally.notes.push(`path tricks in the parameters of ${routes} routes`);
  });

  test('hostile query strings on every GET route', async () => {
    const rawTricks = fc.constantFrom('%ff', '%', '%zz', '%00', '%c0%af', '%E0%A4%A', 'a%2', '%2e%2e%2f', '%0d%0aX-Injected:%201');
    const value = fc.oneof(
      { weight: 4, arbitrary: metaString.map(encodeURIComponent) },
      { weight: 1, arbitrary: rawTricks },
      { weight: 1, arbitrary: fc.integer({ min: 201, max: 3000 }).map((length) => 'q'.repeat(length)) },
      { weight: 1, arbitrary: fc.constantFrom('-1', '0', '99999999999999999999', '1.5', 'true', '[]', '{}') },
    );
    await attackEach(RUNS.query, (operation) => {
      if (operation.method !== 'GET') return null;
      const names = [...operation.queryParams, 'unknown_param', 'format'];
      return fc.array(fc.tuple(fc.constantFrom(...names), value), { minLength: 1, maxLength: 5 }).map((pairs) => {
        // A valid image size renders and stores a system image: a write, checked with the valid writes, not here.
        const query = pairs.map(([name, text]) => `${encodeURIComponent(name)}=${(name === 'width' || name === 'height') && NUMBER_TEXT.test(decodedOrRaw(text)) ? 'x' : text}`).join('&');
        return { label: `query ${operationName(operation)}`, request: withToken({ method: 'GET', path: `${pathFor(operation)}?${query}` }), mustRefuse: false };
      });
    });
    // The change stream never ends: each attack on it counted as answered at its headers
    // and was closed (hardening-server.ts). Closing must give its slot back (a user may
    // hold 4 streams, 429 beyond): once the server has seen the closes, a stream opens.
    assert.ok(eventStreams > 0, 'the change stream was opened by some of the attacks');
    const deadline = Date.now() + 10_000;
    let stream: RawResponse;
    do stream = await attack({ label: 'a stream after the attacks', request: withToken({ method: 'GET', path: apiPaths.changeStream(1) }), mustRefuse: false });
    while (stream.status === 429 && Date.now() < deadline);
    assert.equal(stream.status, 200, `the streams closed by the attacks were given back: ${stream.text.slice(0, 200)}`);
    assert.ok(stream.eventStream, 'a text/event-stream');
    tally.notes.push(`${eventStreams} change streams opened by hostile query strings, each closed at its headers`);
  });

  test('broken HTTP framing: the server answers 4xx or closes, and stays up', async () => {
    const target = apiPaths.project(1, records.project);
    const head = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
    const auth = `Authorization: Bearer ${token}`;
    const cases: Array<[string, Buffer]> = [
      ['body shorter than Content-Length', Buffer.concat([head([`PATCH ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth, 'Content-Type: application/json', 'Content-Length: 100']), Buffer.from('{"notes": "x"}')])],
      ['negative Content-Length', head([`PATCH ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth, 'Content-Type: application/json', 'Content-Length: -1'])],
      ['Content-Length not a number', head([`PATCH ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth, 'Content-Length: abc'])],
      ['bad chunk size', Buffer.concat([head([`PATCH ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth, 'Content-Type: application/json', 'Transfer-Encoding: chunked']), Buffer.from('zz\r\n{}\r\n0\r\n\r\n')])],
      ['Content-Length and Transfer-Encoding together', Buffer.concat([head([`PATCH ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth, 'Content-Type: application/json', 'Content-Length: 4', 'Transfer-Encoding: chunked']), Buffer.from('0\r\n\r\n{"notes": "smuggled"}')])],
      ['a NUL in a header', head([`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', `${auth}\u0000x`])],
      ['a 20 KB header', head([`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth, `X-Big: ${'b'.repeat(20_000)}`])],
      ['garbage request line', head(['FOO BAR', 'Host: 127.0.0.1'])],
      ['unknown method', head([`BREW ${target} HTTP/1.1`, 'Host: 127.0.0.1', auth])],
      ['HTTP/9.9', head([`GET ${target} HTTP/9.9`, 'Host: 127.0.0.1', auth])],
      ['absolute-form target', head([`GET http://evil.example${target} HTTP/1.1`, 'Host: evil.example', auth])],
      ['spaces in the target', head([`GET /api/orgs/1/projects/1 2/ HTTP/1.1`, 'Host: 127.0.0.1', auth])],
    ];
    for (const [label, bytes] of cases) {
      const version = inspector.dataVersion();
      const answer = await server.rawExchange(bytes);
      tally.inputs++;
      const status = rawStatus(answer);
      assert.ok(status === 0 || (status >= 200 && status < 500), `${label}: ${answer.slice(0, 300)}`);
      assert.ok(server.alive(), `${label} killed the server\n${outputTail(server)}`);
      // None of them may write (the absolute-form GET is a read).
      assert.equal(inspector.dataVersion(), version, `${label} wrote to the store`);
    }
  });

  test('events and their calendar routes: what cannot be true is refused on its field, and stores nothing', async () => {
    // Another org's contact and person, and ids that name nothing, read from the store itself.
    const otherContact = inspector.all<{ id: number }>('select id from contacts where org_id = 2 order by id limit 1')[0]!.id;
    const otherRole = inspector.all<{ id: number }>('select id from roles where org_id = 2 order by id limit 1')[0]!.id;
    const project = apiPaths.project(1, records.project);
    const valid = { title: 'Hardening visit', project, start: '2027-02-01T09:00:00+10:00', end: '2027-02-01T10:00:00+10:00' };
    // [what, body, the field the 400 names]; each is sent as a create and as a change of the fixture event.
    const refused: Array<[string, Record<string, unknown>, string]> = [
      ['a start that is not a date', { start: 'next Tuesday' }, 'start'],
      ['a start on a day that does not exist', { start: '2027-02-30T09:00:00Z' }, 'start'],
      ['a start at an hour that does not exist', { start: '2027-02-01T25:00:00Z' }, 'start'],
      ['an end that is not a date', { end: '01/02/2027 10am' }, 'end'],
      ['a completion date that is not a date', { completion_date: 'yesterday' }, 'completion_date'],
      ['an end before the start', { start: '2027-02-01T10:00:00Z', end: '2027-02-01T09:59:59Z' }, 'end'],
      // 10:00 at +10:00 is 00:00 UTC: an end at 23:59 UTC the day before reads later but is earlier.
      ['an end that reads later but is earlier, in another zone', { start: '2027-02-01T10:00:00+10:00', end: '2027-01-31T23:59:00Z' }, 'end'],
      ['a negative duration', { duration: -60 }, 'duration'],
      ['a duration that is not one', { duration: '1h30' }, 'duration'],
      ['a fractional task status', { task_status: 1.5 }, 'task_status'],
      ['a negative task status', { task_status: -1 }, 'task_status'],
      ['an unknown event type', { event_type_id: 999_999 }, 'event_type_id'],
      ['a team member that is no role', { team_members: [apiPaths.role(1, 999_999)] }, 'team_members'],
      ["a team member of another org", { team_members: [apiPaths.role(2, otherRole)] }, 'team_members'],
      ['a team member that is not a reference', { team_members: ['../../1; DROP TABLE roles'] }, 'team_members'],
      ['team members that are not a list', { team_members: apiPaths.role(1, records.role) }, 'team_members'],
      ["a contact of another org", { contact: apiPaths.contact(2, otherContact) }, 'contact'],
      ['a contact that does not exist', { contact: apiPaths.contact(1, 999_999) }, 'contact'],
      ['a project that is an object', { project: { id: records.project } }, 'project'],
      ['a title that is a list', { title: ['Site visit'] }, 'title'],
      ['a completion flag that is not a boolean', { is_complete: 'maybe' }, 'is_complete'],
      ['a start that is an object', { start: { date: '2027-02-01' } }, 'start'],
      ['a place that is an object', { location_override: { street: 1 } }, 'location_override'],
    ];
    let sent = 0;
    for (const [what, body, field] of refused) {
      for (const [method, urlPath, payload] of [
        ['POST', apiPaths.events(1), { ...valid, ...body }],
        ['PATCH', apiPaths.event(1, records.event), body],
      ] as const) {
        const response = await attack({ label: `${what} (${method})`, request: jsonRequest(method, urlPath, payload, token), mustRefuse: true });
        sent++;
        assert.equal(response.status, 400, `${what} (${method}): ${response.text.slice(0, 300)}`);
        assert.ok(Array.isArray((response.json as Record<string, unknown>)[field]), `${what} (${method}): the 400 names ${field}: ${response.text.slice(0, 300)}`);
      }
    }
    // An end before the start the event already has: the PATCH carries only the end.
    const stored = await attack({ label: 'an end before the stored start', request: jsonRequest('PATCH', apiPaths.event(1, records.event), { end: '2027-01-04T08:00:00Z' }, token), mustRefuse: true });
    assert.equal(stored.status, 400, stored.text);
    assert.ok(Array.isArray((stored.json as Record<string, unknown>).end), stored.text);
    // Huge bodies: a title over the body limit is 413 on every event write.
    for (const [method, urlPath] of [['POST', apiPaths.events(1)], ['PATCH', apiPaths.event(1, records.event)], ['PUT', apiPaths.event(1, records.event)]] as const) {
      const huge = await attack({ label: `a 3 MiB title (${method})`, request: jsonRequest(method, urlPath, { ...valid, title: 'x'.repeat(3 * MiB) }, token), mustRefuse: true });
      assert.equal(huge.status, 413, `${method}: ${huge.text.slice(0, 200)}`);
      sent++;
    }
    // The .ics of an event that does not exist, of an id that is no id, and a feed secret that is far too long.
    for (const urlPath of [apiPaths.eventCalendarFile(1, 999_999), '/api/orgs/1/events/1e3/ics/', apiPaths.calendarFeed('x'.repeat(150)), apiPaths.calendarFeed("' OR 1=1 --")]) {
      const response = await attack({ label: `GET ${urlPath.slice(0, 60)}`, request: jsonRequest('GET', urlPath, undefined, token), mustRefuse: true });
      assert.equal(response.status, 404, `${urlPath.slice(0, 60)}: ${response.text.slice(0, 200)}`);
      sent++;
    }
    tally.notes.push(`${sent + 1} event and calendar requests that cannot be true refused on their field, nothing stored`);
  });

  test('every route of the OpenAPI document was attacked', () => {
    assert.deepEqual(operations.map(operationName).filter((name) => !attacked.has(name)), []);
    tally.notes.push(`all ${operations.length} routes of the OpenAPI document attacked`);
  });

  test('after all refused input the store is exactly as it was', () => {
    const changes = diffSnapshots(baseline, inspector.snapshot());
    assert.deepEqual(changes, [], 'refused requests changed nothing');
    assert.doesNotMatch(server.output(), /unhandled error/, 'no request ended in an unhandled error');
  });

  test('search takes SQL and LIKE metacharacters literally; ordering never filters', async () => {
    const asciiLower = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
    // SQLite's lower() folds ASCII letters only; the engine lowers both sides in SQL, so that is the match.
    const contains = (haystack: string, needle: string) => asciiLower(haystack).includes(asciiLower(needle));
    type Row = Record<string, string | number | null>;
    const contactText = (row: Row) => `${row.first_name} ${row.family_name} ${row.email} ${row.phone}`;
    const lists: Array<{ path: string; expected: (search: string) => number[]; texts: () => string[] }> = [
      {
        path: '/api/orgs/1/contacts/',
        texts: () => inspector.all<Row>('select * from contacts where org_id = 1').map(contactText),
        // Issue 27: every word (shared/search-terms.ts) must be in the contact's text, each anywhere in it.
        expected: (search) =>
          inspector
            .all<Row>('select * from contacts where org_id = 1')
            .filter((row) => searchTerms(search).every((term) => contains(contactText(row), term)))
            .map((row) => Number(row.id)),
      },
      {
        path: '/api/orgs/1/projects/',
        texts: () => inspector.all<Row>('select title, address, locality, identifier from projects where org_id = 1').flatMap((row) => Object.values(row).map(String)),
        // Issue 20: every word (shared/search-terms.ts) must be in one of the fields, each in any.
        expected: (search) => {
          const contacts = inspector.all<Row>('select pc.project_id, c.* from project_contacts pc join contacts c on c.id = pc.contact_id');
          return inspector
            .all<Row>('select * from projects where org_id = 1')
            .filter((row) =>
              searchTerms(search).every(
                (term) =>
                  [row.title, row.address, row.locality, row.identifier].some((text) => contains(String(text ?? ''), term)) ||
                  contacts.some((contact) => contact.project_id === row.id && contains(contactText(contact), term)),
              ),
            )
            .map((row) => Number(row.id));
        },
      },
      {
        path: '/api/orgs/1/private_files/',
        texts: () => inspector.all<Row>('select title from private_files where org_id = 1').map((row) => String(row.title)),
        expected: (search) =>
          inspector
            .all<Row>('select * from private_files where org_id = 1')
            .filter((row) => ['title', 'system_uuid', 'input_data', 'input_data_hash', 'file_hash', 'status', 'status_message'].some((column) => contains(String(row[column] ?? ''), search)))
            .map((row) => Number(row.id)),
      },
    ];
    const idsOf = (response: RawResponse) => (response.json as Array<{ id: number }>).map((item) => item.id).sort((a, b) => a - b);
    for (const list of lists) {
      const texts = list.texts();
      // Pieces of what is stored (so searches also find things), and pure metacharacters.
      const piece = fc.record({ text: fc.constantFrom(...texts), start: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }).map(({ text, start, length }) => {
        const from = start % Math.max(1, text.length);
        return text.slice(from, from + length);
      });
      await runProperty(fc.oneof(piece, metaString), RUNS.search, async (search) => {
        // A NUL is refused, as DRF does (SQLite's LIKE would stop at it).
        const hasNul = search.includes('\u0000');
        const response = await attack({ label: `search ${list.path}`, request: withToken({ method: 'GET', path: `${list.path}?limit=1000&search=${encodeURIComponent(search)}` }), mustRefuse: hasNul });
        if (hasNul) return;
        assert.equal(response.status, 200, `search ${JSON.stringify(search)}: ${response.text.slice(0, 200)}`);
        // (An empty search is no filter: every text contains "", and a search of no words has no term to miss, so the oracle agrees.)
        assert.deepEqual(idsOf(response), list.expected(search).sort((a, b) => a - b), `search ${JSON.stringify(search)} on ${list.path}`);
      }, SEARCH_EXAMPLES);
    }
    // The tag filter compares titles the same way: a non-ASCII title matches itself.
    const tagged = await attack({ label: 'file_tags filter', request: withToken({ method: 'GET', path: `${apiPaths.privateFiles(1)}?file_tags=${encodeURIComponent('Über')}` }), mustRefuse: false });
    assert.deepEqual(idsOf(tagged), [records.file], 'the file tagged Über is found by its tag title');

    for (const operation of operations.filter((candidate) => candidate.method === 'GET' && candidate.queryParams.includes('ordering') && candidate.isOrgScoped)) {
      const listPath = `${pathFor(operation)}?${new URLSearchParams({ ...operation.requiredQuery, limit: '1000' })}`;
      const all = await attack({ label: 'list', request: withToken({ method: 'GET', path: listPath }), mustRefuse: false });
      assert.equal(all.status, 200, `${listPath}: ${all.text.slice(0, 200)}`);
      await runProperty(metaString, RUNS.ordering, async (ordering) => {
        const response = await attack({ label: `ordering ${operationName(operation)}`, request: withToken({ method: 'GET', path: `${listPath}&ordering=${encodeURIComponent(ordering)}` }), mustRefuse: false });
        assert.equal(response.status, 200, `ordering ${JSON.stringify(ordering)}: ${response.text.slice(0, 200)}`);
        assert.deepEqual(idsOf(response), idsOf(all), `ordering ${JSON.stringify(ordering)} on ${listPath} returns the same records`);
      });
    }
    assert.deepEqual(diffSnapshots(baseline, inspector.snapshot()), [], 'searching changed nothing');
  });

  test('unusual but valid writes store exactly what was sent, and nothing else changes', async () => {
    const project = Number(await maker.make('project'));
    const afterFixture = inspector.snapshot();
    const expectedProject: Record<string, string> = {};
    const contacts = new Map<number, Record<string, string>>();
    const files = new Set<number>();
    const uploads = new Set<string>();
    const text = fc.oneof(
      metaString,
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
      fc.constantFrom('a\u0000b', '\u202Egnp.exe', 'e\u0301\u0301\u0301', '𝕳𝖆𝖗𝖉𝖊𝖓𝖎𝖓𝖌', '<script>alert(1)</script>', '${7*7}{{7*7}}', 'x'.repeat(100_000)),
    );
    const fileName = fc.oneof(
      fc.constantFrom('../../../../etc/passwd', '..\\..\\boot.ini', '/abs/path.txt', 'C:\\Windows\\win.ini', '..', '.', 'a\u0000b.txt', '%2e%2e%2fx.txt', 'CON', 'nul.txt',
        '\u202Etxt.exe', 'ÉTÉ ☀️ 日本語.pdf', 'a'.repeat(600), 'semi;colon.txt', ' leading and trailing .txt '),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((name) => !/["\r\n]/.test(name)),
    );
    // Each write must log exactly its own changes (docs/http-api.md "Change feed"): one
    // change_log row per record whose view it changed, in its own transaction.
    type Logged = { org_id: number; model: string; op: string; record_id: number; project_id: number | null };
    const loggedRows = new Set<string>();
    const newestLogged = () => inspector.all<{ id: number | null }>('select max(id) as id from change_log')[0]!.id ?? 0;
    let lastLogged = newestLogged();
    const expectLogged = (expected: Logged[], label: string) => {
      const rows = inspector.all<Logged & { id: number }>('select id, org_id, model, op, record_id, project_id from change_log where id > ? order by id', lastLogged);
      assert.deepEqual(rows.map(({ id: _id, ...row }) => row), expected, `${label} logged exactly its own changes`);
      for (const row of rows) loggedRows.add(String(row.id));
      lastLogged = rows.at(-1)?.id ?? lastLogged;
    };
    const dataRoot = path.dirname(server.dataDir);
    const outside = () => fs.readdirSync(dataRoot).sort();
    const outsideBefore = outside();

    const write = fc.oneof(
      fc.record({ kind: fc.constant('project' as const), field: fc.constantFrom('notes', 'title', 'address', 'site_notes'), value: text }),
      fc.record({ kind: fc.constant('contact' as const), first_name: text, family_name: text, email: fc.constantFrom('', 'a@b.example', "o'brien@example.com", 'x%_\\@example.com') }),
      fc.record({ kind: fc.constant('file' as const), fileName, title: fc.oneof(fc.constant(''), text.map((value) => value.slice(0, 255))), bytes: fc.uint8Array({ maxLength: 3000 }) }),
      fc.record({ kind: fc.constant('upload' as const), fileName, bytes: fc.uint8Array({ minLength: 1, maxLength: 3000 }) }),
    );
    await runProperty(write, RUNS.validWrites, async (input) => {
      switch (input.kind) {
        case 'project': {
          const response = await attack({ label: 'project write', request: jsonRequest('PATCH', apiPaths.project(1, project), { [input.field]: input.value }, token), mustRefuse: false });
          assert.equal(response.status, 200, response.text.slice(0, 300));
          const stored = (await sendChecked(server, jsonRequest('GET', apiPaths.project(1, project), undefined, token))).json[input.field];
          assert.equal(stored, input.value, `${input.field} comes back exactly as sent`);
          expectedProject[input.field] = input.value;
          expectLogged([{ org_id: 1, model: 'project', op: 'update', record_id: project, project_id: project }], 'the project write');
          break;
        }
        case 'contact': {
          const sent = { first_name: input.first_name, family_name: input.family_name, email: input.email };
          const response = await attack({ label: 'contact write', request: jsonRequest('POST', '/api/orgs/1/contacts/', sent, token), mustRefuse: false });
          assert.equal(response.status, 201, response.text.slice(0, 300));
          const stored = (await sendChecked(server, jsonRequest('GET', apiPaths.contact(1, response.json.id), undefined, token))).json;
          assert.deepEqual({ first_name: stored.first_name, family_name: stored.family_name, email: stored.email }, sent);
          contacts.set(response.json.id, sent);
          expectLogged([{ org_id: 1, model: 'contact', op: 'create', record_id: response.json.id, project_id: null }], 'the new contact');
          break;
        }
        case 'file':
        case 'upload': {
          const bytes = Buffer.from(input.bytes);
          let stored: RawResponse;
          if (input.kind === 'file') {
            const multipart = multipartBytes(input.title ? { title: input.title } : {}, { fileName: input.fileName, bytes });
            stored = await attack({ label: 'file upload', request: multipartRequest('/api/orgs/1/private_files/', token, multipart), mustRefuse: false });
            assert.equal(stored.status, 201, stored.text.slice(0, 300));
            if (input.title.trim()) assert.equal(stored.json.title, input.title.trim(), 'the title is kept (trimmed)');
          } else {
            const started = await attack({ label: 'chunked upload', request: jsonRequest('POST', '/api/orgs/1/private_files/uploads/', { filename: input.fileName }, token), mustRefuse: false });
            if (input.fileName.trim() === '') {
              assert.equal(started.status, 400, 'a blank file name is refused');
              expectLogged([], 'the refused upload');
              break;
            }
            assert.equal(started.status, 201, started.text.slice(0, 300));
            uploads.add(started.json.upload_id);
            const part = await attack({ label: 'part', request: { ...withToken({ method: 'PUT', path: apiPaths.fileUploadPart(1, started.json.upload_id, 1) }), body: bytes }, mustRefuse: false });
            assert.equal(part.status, 200, part.text.slice(0, 300));
            expectLogged([], 'an upload not yet complete');
            stored = await attack({ label: 'complete', request: withToken({ method: 'POST', path: apiPaths.fileUploadComplete(1, started.json.upload_id) }), mustRefuse: false });
            assert.equal(stored.status, 201, stored.text.slice(0, 300));
          }
          files.add(stored.json.id);
          expectLogged([{ org_id: 1, model: 'private_file', op: 'create', record_id: stored.json.id, project_id: null }], `the ${input.kind}`);
          const row = inspector.all<{ file_name: string; file_hash: string; filesize: number }>('select file_name, file_hash, filesize from private_files where id = ?', stored.json.id)[0]!;
          // eslint-disable-next-line no-control-regex -- control characters are what must not be in a stored name
          assert.doesNotMatch(row.file_name, /[/\\\u0000-\u001f\u007f]/, `stored name ${JSON.stringify(row.file_name)} has no path or control characters`);
          assert.ok(row.file_name !== '' && row.file_name !== '.' && row.file_name !== '..' && row.file_name.length <= 255, JSON.stringify(row.file_name));
          const sha256 = createHash('sha256').update(bytes).digest('hex');
          assert.equal(row.file_hash, sha256);
          assert.equal(row.filesize, bytes.length);
          const blob = path.join(server.dataDir, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), sha256);
          assert.ok(fs.readFileSync(blob).equals(bytes), 'the blob holds exactly the bytes sent');
          const link = new URL(stored.json.file_contents as string);
          const downloaded = await sendChecked(server, { method: 'GET', path: `${link.pathname}${link.search}` });
          assert.equal(downloaded.status, 200);
          assert.ok(downloaded.body.equals(bytes), 'the download is exactly the bytes sent');
          assert.doesNotMatch(String(downloaded.headers['content-disposition']), /[\r\n]/);
          break;
        }
      }
      assert.deepEqual(outside(), outsideBefore, 'nothing was written next to the data folder');
    });

    // The store holds exactly these writes: the fixture project, its fields, the new contacts, files and uploads.
    const unexplained = diffSnapshots(afterFixture, inspector.snapshot()).filter((change) => {
      const key = Number(change.key);
      switch (change.table) {
        case 'projects': {
          if (key !== project || !change.before || !change.after) return true;
          const changedColumns = Object.keys(change.after).filter((column) => JSON.stringify(change.before![column]) !== JSON.stringify(change.after![column]));
          const attributes = JSON.parse(String(change.after.attributes)) as Record<string, unknown>;
          const columns = change.after as Record<string, unknown>;
          const matches = Object.entries(expectedProject).every(([field, value]) => (field in columns ? columns[field] : attributes[field]) === value);
          // title_sort: the title's sort key (shared/natural-sort.ts), written with every title.
          const keyed = columns.title_sort === naturalSortKey(String(columns.title));
          return !matches || !keyed || changedColumns.some((column) => !['title', 'title_sort', 'address', 'attributes', 'modified_date'].includes(column));
        }
        case 'contacts':
          return change.before !== null || !contacts.has(key);
        case 'private_files':
          return change.before !== null || !files.has(key);
        case 'file_uploads':
          return !uploads.has(change.key);
        case 'file_upload_parts':
          return !uploads.has(String(change.after?.upload_id ?? change.before?.upload_id));
        case 'change_log':
          return change.before !== null || !loggedRows.has(change.key);
        default:
          return true;
      }
    });
    assert.deepEqual(unexplained, [], 'every change in the store was made by a valid write of this test');
    tally.notes.push(`${Object.keys(expectedProject).length} project fields, ${contacts.size} contacts, ${files.size} files written with unusual text and names, each read back exactly and each logged in change_log as exactly its own change (${loggedRows.size} rows)`);
    assert.ok(server.alive(), outputTail(server));
    assert.doesNotMatch(server.output(), /unhandled error/, 'no request ended in an unhandled error');
  });

  test('summary', (t) => {
    tally.notes.push(`seed ${seed} (HARDENING_SEED=${seed} replays this run)`);
    reportTally(t, tally);
  });
});

// Bad input against every route of the OpenAPI document: property-based requests
// (fast-check) with wrong types, bodies that are not objects, malformed JSON,
// invalid UTF-8, lone surrogates, deep nesting, bodies over the limit, wrong
// content types, broken multipart, path tricks in every path parameter, hostile
// query strings and broken HTTP framing. The server must answer each (no hang,
// no crash), never with a 5xx, always with a DRF error body, refuse what it must,
// and write nothing when it refuses: the store's commit counter (throttles off,
// so nothing else commits) must not move. Unusual but valid input (search,
// ordering, writes) is valid-input.hardening.ts; the values and the attacker both
// use are attack-kit.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../engine/http/app.ts';
import { fillPath, operationName, refusedKinds, type ApiOperation } from './api-routes.ts';
import { outputTail } from './checks.ts';
import { multipartBytes, multipartRequest, pathValues, type OrgRecords } from './fixtures.ts';
import { jsonRequest, rawStatus, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { diffSnapshots, type StoreInspector, type StoreSnapshot } from './store-inspector.ts';
import { newTally, reportTally, runSeed } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../testing/hang-guards.ts';
import {
  INVALID_UTF8,
  NUMBER_TEXT,
  PATH_TRICKS,
  RUNS,
  attackerOf,
  decodedOrRaw,
  jsonSchemaOf,
  metaString,
  startAttackTarget,
  stopAttackTarget,
  textProperty,
  valueOfKind,
  type Attack,
  type Attacker,
  type AttackTarget,
} from './attack-kit.ts';

const seed = runSeed();
const tally = newTally('bad input');
const MiB = 1024 * 1024;

describe('bad input: every route of the OpenAPI document, attacked', () => {
  let target: AttackTarget | undefined;
  let attacker: Attacker;
  let server: HardeningServer;
  let inspector: StoreInspector;
  let operations: ApiOperation[];
  let records: OrgRecords;
  let token: string;
  let baseline: StoreSnapshot;

  before(async () => {
    target = await startAttackTarget();
    ({ server, inspector, operations, records, token, baseline } = target);
    attacker = attackerOf(target, tally, seed);
  });

  after(() => stopAttackTarget(target));

  const pathFor = (operation: ApiOperation) => fillPath(operation.template, pathValues(operation, records));

  /** Answers that were event streams (read up to their headers, then closed). */
  let eventStreams = 0;
  /** Operations at least one attack was aimed at. */
  const attacked = new Set<string>();

  /** Sends an attack through the kit's checks, counting the event streams among the answers. */
  async function attack(attempt: Attack): Promise<RawResponse> {
    const response = await attacker.attack(attempt);
    if (response.eventStream) eventStreams++;
    return response;
  }
  const runProperty = <T,>(arbitrary: fc.Arbitrary<T>, numRuns: number, check: (value: T) => Promise<void>) => attacker.runProperty(arbitrary, numRuns, check);

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

  const withToken = (request: RawRequest): RawRequest => attacker.withToken(request);
  const jsonAttack = (operation: ApiOperation, label: string, body: string | Buffer, contentType = 'application/json'): Attack => ({
    label: `${label} ${operationName(operation)}`,
    request: withToken({ method: operation.method, path: pathFor(operation), headers: { 'content-type': contentType }, body }),
    mustRefuse: true,
  });

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
    const deadline = Date.now() + STATE_HANG_GUARD_MS;
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
    const deadline = Date.now() + STATE_HANG_GUARD_MS;
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

  test('summary', (t) => {
    tally.notes.push(`seed ${seed} (HARDENING_SEED=${seed} replays this run)`);
    reportTally(t, tally);
  });
});

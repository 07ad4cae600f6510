// Unusual but valid input against the API: search and ordering take SQL and LIKE
// metacharacters literally (checked against the store itself), and unusual but
// valid writes (odd text, hostile file names) store exactly what was sent, each
// logged as exactly its own change, and nothing else changes. Invalid input is
// bad-input.hardening.ts; the values and the attacker both use are attack-kit.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { fillPath, operationName, type ApiOperation } from './api-routes.ts';
import { outputTail, sendChecked } from './checks.ts';
import { multipartBytes, multipartRequest, pathValues, type OrgRecords, type RecordMaker } from './fixtures.ts';
import { jsonRequest, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { diffSnapshots, type StoreInspector, type StoreSnapshot } from './store-inspector.ts';
import { newTally, reportTally, runSeed } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { searchTerms } from '../../shared/search-terms.ts';
import { naturalSortKey } from '../../shared/natural-sort.ts';
import {
  RUNS,
  SEARCH_EXAMPLES,
  attackerOf,
  metaString,
  startAttackTarget,
  stopAttackTarget,
  type Attack,
  type Attacker,
  type AttackTarget,
} from './attack-kit.ts';

const seed = runSeed();
const tally = newTally('valid input');

describe('valid input: search, ordering and writes take unusual text literally', () => {
  let target: AttackTarget | undefined;
  let attacker: Attacker;
  let server: HardeningServer;
  let inspector: StoreInspector;
  let operations: ApiOperation[];
  let records: OrgRecords;
  let token: string;
  let baseline: StoreSnapshot;
  let maker: RecordMaker;

  before(async () => {
    target = await startAttackTarget();
    ({ server, inspector, operations, records, token, baseline, maker } = target);
    attacker = attackerOf(target, tally, seed);
  });

  after(() => stopAttackTarget(target));

  const pathFor = (operation: ApiOperation) => fillPath(operation.template, pathValues(operation, records));
  const attack = (attempt: Attack) => attacker.attack(attempt);
  const runProperty = <T,>(arbitrary: fc.Arbitrary<T>, numRuns: number, check: (value: T) => Promise<void>, examples: T[] = []) => attacker.runProperty(arbitrary, numRuns, check, examples);
  const withToken = (request: RawRequest): RawRequest => attacker.withToken(request);

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

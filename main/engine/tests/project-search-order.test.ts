// Issue 20: project search matches every word, each in any of the searched fields
// (title, address, locality, identifier, the project's contacts), and
// `ordering=title` is natural ("75 Macquarie" before "249 Hill"). Run on SQLite
// by `npm run test:node` and on PostgreSQL by `npm run test:postgres`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { fillTitleSortKeys } from '../store/migrations/0012-title-sort.ts';

interface Row {
  id: number;
  title: string;
}

describe('project search by words, natural title order', () => {
  let server: TestServer;
  let token: string;
  const projectsPath = apiPaths.projects(1);
  let quokka12: number;
  let quokka14: number;

  const list = async (query: Record<string, string>) => {
    const response = await server.request('GET', `${projectsPath}?${new URLSearchParams({ limit: '1000', ...query }).toString()}`, { token });
    assert.equal(response.status, 200, response.text);
    return response.json as Row[];
  };
  const idsFor = async (search: string) => (await list({ search })).map((row) => row.id).sort((a, b) => a - b);
  const titlesBy = async (ordering: string, search: string) => (await list({ ordering, search })).map((row) => row.title);
  const create = async (body: Record<string, unknown>) => {
    const response = await server.request('POST', projectsPath, { token, body });
    assert.equal(response.status, 201, response.text);
    return response.json.id as number;
  };

  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    quokka12 = await create({
      title: 'Quokka Lane 12',
      address: '12 Quokka Lane',
      locality: 'Zephyrton',
      identifier: 'QX-771',
      contacts_new: [{ first_name: 'Marigold', family_name: 'Featherstonehaugh', email: 'mf@quokka.example' }],
    });
    quokka14 = await create({
      title: 'Quokka Lane 14',
      address: '14 Quokka Lane',
      locality: 'Elsewhere',
      identifier: 'QX-772',
      contacts_new: [{ first_name: 'Marigold', family_name: 'Smith', email: 'ms@example.net' }],
    });
  });
  after(() => server.close());

  test('every word must be found, each in any field: title, locality, identifier, contacts', async () => {
    assert.deepEqual(await idsFor('quokka zephyrton'), [quokka12], 'title + locality');
    assert.deepEqual(await idsFor('Zephyrton FEATHERSTONEHAUGH'), [quokka12], 'locality + contact family name');
    assert.deepEqual(await idsFor('qx-771 marigold'), [quokka12], 'identifier + contact first name');
    assert.deepEqual(await idsFor('Lane mf@quokka'), [quokka12], 'title + contact email');
    assert.deepEqual(await idsFor('quokka marigold'), [quokka12, quokka14], 'both have both words');
    assert.deepEqual(await idsFor('quokka, marigold'), [quokka12, quokka14], 'commas separate words too');
    assert.deepEqual(await idsFor('quokka nowhere'), [], 'one word found nowhere: no match');
    assert.deepEqual(await idsFor('Lane Quokka'), [quokka12, quokka14], 'words in any order');
  });

  test('a single word, or a phrase found as it is, matches as before; a quoted phrase stays together', async () => {
    assert.deepEqual(await idsFor('featherstonehaugh'), [quokka12]);
    assert.deepEqual(await idsFor('Quokka Lane 12'), [quokka12], 'the phrase of a title');
    assert.deepEqual(await idsFor('12 Quokka Lane'), [quokka12], 'the phrase of an address');
    assert.deepEqual(await idsFor('"Lane 14"'), [quokka14]);
    assert.deepEqual(await idsFor('"Lane Quokka"'), [], 'quoted words must be found together, in that order');
    assert.deepEqual(await idsFor('%'), [], 'LIKE wildcards stay literal in each word');
    assert.deepEqual((await idsFor(' , ')).length, (await list({})).length, 'no words: no filter');
  });

  test('on the demo data, "Waratah Glenelg" finds 101 Waratah Avenue in Glenelg, and not Waratah Crescent in Geelong West', async () => {
    const titles = (await list({ search: 'Waratah Glenelg' })).map((row) => row.title);
    assert.deepEqual(titles, ['101 Waratah Avenue, Glenelg']);
    const waratah = (await list({ search: 'waratah' })).map((row) => row.title).sort();
    assert.deepEqual(waratah, ['101 Waratah Avenue, Glenelg', '203 Waratah Crescent, Geelong West']);
  });

  test('ordering=title is natural, -title its reverse; a renamed project moves to its new place', async () => {
    for (const title of ['Sortable 249 Hill', 'sortable 75 Macquarie', 'Sortable Unit 10', 'Sortable Unit 9', 'Sortable Émile', 'Sortable eve', 'Sortable 007 Bond']) {
      await create({ title });
    }
    const natural = ['Sortable 007 Bond', 'sortable 75 Macquarie', 'Sortable 249 Hill', 'Sortable Émile', 'Sortable eve', 'Sortable Unit 9', 'Sortable Unit 10'];
    assert.deepEqual(await titlesBy('title', 'sortable'), natural);
    assert.deepEqual(await titlesBy('-title', 'sortable'), [...natural].reverse());

    const hill = (await list({ search: 'Sortable 249 Hill' }))[0]!;
    const renamed = await server.request('PATCH', apiPaths.project(1, hill.id), { token, body: { title: 'Sortable 1 Hill' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual((await titlesBy('title', 'sortable'))[0], 'Sortable 1 Hill');
    assert.deepEqual((await titlesBy('title', 'sortable'))[2], 'sortable 75 Macquarie');
  });

  test('on the demo data, A–Z puts titles that start with a number in numeric order, before the names', async () => {
    const titles = (await list({ ordering: 'title' })).map((row) => row.title);
    const leading = titles.map((title) => /^\d+/.exec(title)?.[0]).filter((digits): digits is string => digits !== undefined).map(Number);
    assert.ok(leading.length > 10, 'the demo has many titles that start with a house number');
    assert.deepEqual(leading, [...leading].sort((a, b) => a - b));
    assert.ok(titles.indexOf('75 Macquarie Crescent, Paddington') < titles.indexOf('249 Hill Avenue, Brunswick'));
    assert.ok(titles.indexOf('249 Hill Avenue, Brunswick') < titles.indexOf('Campbell residence'));
  });

  test('the migration fills the keys of projects that were stored before it', async () => {
    const db = server.engine.context.db;
    await sql`update projects set title_sort = ''`.execute(db);
    await fillTitleSortKeys(db as never);
    const blank = await db.selectFrom('projects').select('id').where('title_sort', '=', '').execute();
    assert.deepEqual(blank, []);
    // (Blank keys would sort by id: the order the projects were made in, not this one.)
    assert.deepEqual(await titlesBy('title', 'sortable'), ['Sortable 1 Hill', 'Sortable 007 Bond', 'sortable 75 Macquarie', 'Sortable Émile', 'Sortable eve', 'Sortable Unit 9', 'Sortable Unit 10']);
  });
});

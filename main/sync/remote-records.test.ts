// parseRemote refuses ids from this computer's provisional range (issue 34, item 3),
// on a record and on the records it carries: a remote's record under such an id
// would overwrite one made offline. Pure parsing: no server needed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRemote } from './remote-records.ts';
import { PROVISIONAL_ID_FLOOR } from './sync-models.ts';

describe('remote ids in the provisional range', () => {
  test('a record under a provisional id is refused, saying why', () => {
    const parsed = parseRemote('project', { id: PROVISIONAL_ID_FLOOR, title: 'Made by the remote' });
    assert.equal(parsed.ok, false);
    assert.ok(!parsed.ok && /range this computer gives records made offline/.test(parsed.reason), JSON.stringify(parsed));
  });

  test('so is a record that carries one (a contact of a project, a tag of a file)', () => {
    const project = parseRemote('project', { id: 12, contacts_data: [{ id: 5 }, { id: PROVISIONAL_ID_FLOOR + 7 }] });
    assert.ok(!project.ok && project.reason.includes(String(PROVISIONAL_ID_FLOOR + 7)), JSON.stringify(project));
    const file = parseRemote('private_file', { id: 3, file_tags_data: [{ id: PROVISIONAL_ID_FLOOR + 1, title: 'x' }] });
    assert.equal(file.ok, false);
  });

  test('ids below the range read as usual', () => {
    const parsed = parseRemote('project', { id: PROVISIONAL_ID_FLOOR - 1, contacts_data: [{ id: 5 }] });
    assert.equal(parsed.ok, true);
  });
});

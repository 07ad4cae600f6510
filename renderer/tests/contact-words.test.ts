// Which existing contact a new one duplicates, and what a contact's delete asks:
// the plain functions behind the duplicate offer and the delete question (the
// Contacts screen, a project's Contacts tab, the New-project form).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiPaths } from '../../shared/api-paths.ts';
import type { ContactJson } from '../../shared/schemas/contact.ts';
import { deleteQuestion, findDuplicate } from '../src/project/contact-words.ts';

function contact(id: number, fields: Partial<ContactJson>): ContactJson {
  return {
    id, org_id: 1, url: apiPaths.contact(1, id), first_name: '', family_name: '', display: '', email: '', phone: '', passport_number: '', licence_number: '',
    custom_contact_info_1: '', custom_contact_info_2: '', identifier: '', user_id: null, type: 0, date_of_birth: null, gender: 0, created_date: '', modified_date: '',
    org: apiPaths.org(1), user: null, ...fields,
  };
}

const zara = contact(1, { first_name: 'Zara', family_name: 'Wang', display: 'Zara Wang', email: 'zara.wang@example.com', phone: '0491 574 594', gender: 1 });
const daniel = contact(2, { first_name: 'Daniel', family_name: 'Wang', display: 'Daniel Wang', email: 'dan.wang@example.com', phone: '+61 412-345-678', gender: 2 });

describe('findDuplicate', () => {
  test('the same email in another letter case, with spaces around it, is her', () => {
    assert.deepEqual(findDuplicate([daniel, zara], '  Zara.Wang@Example.com ', ''), { contact: zara, matched: 'email' });
  });
  test('the same phone written another way is him; the email is looked at first', () => {
    assert.deepEqual(findDuplicate([zara, daniel], 'someone@example.com', '61412345678'), { contact: daniel, matched: 'phone' });
    assert.deepEqual(findDuplicate([zara, daniel], 'dan.wang@example.com', '0491574594'), { contact: daniel, matched: 'email' });
  });
  test('a part of an email or a phone, or a short number, is nobody', () => {
    assert.equal(findDuplicate([zara, daniel], 'zara.wang@example', ''), null);
    assert.equal(findDuplicate([zara, daniel], '', '574 594'), null);
    assert.equal(findDuplicate([contact(3, { phone: '594' })], '', '594'), null);
    assert.equal(findDuplicate([zara, daniel], '', ''), null);
  });
});

describe('deleteQuestion', () => {
  test('names every project she is on, and says she will be taken off them', () => {
    assert.equal(
      deleteQuestion(zara, ['12 Example Street', '3 Hill Road', '9 Bay View']),
      'Delete Zara Wang? She is on 3 projects: “12 Example Street”, “3 Hill Road” and “9 Bay View”, and will be taken off them. This cannot be undone.',
    );
    assert.equal(deleteQuestion(daniel, ['3 Hill Road']), 'Delete Daniel Wang? He is on one project: “3 Hill Road”, and will be taken off it. This cannot be undone.');
  });
  test('a contact on no project, and one whose gender is not given', () => {
    assert.equal(deleteQuestion(contact(4, { email: 'pat@example.com' }), []), 'Delete pat@example.com? They are on no project. This cannot be undone.');
  });
});

import { useEffect, useId, useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import type { ContactRecordJson } from '../../../../shared/schemas/contact.ts';
import { apiDone, messageOf } from '../../api/api-client.ts';
import { requireBridge } from '../../bridge-client.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { useEscapeKey } from '../common/use-escape-key.ts';
import { ContactForm, type ContactDraft } from '../project/ContactForm.tsx';
import { contactLine, contactName, deleteQuestion } from '../../project/contact-words.ts';
import { useContactSearch } from './contact-search.ts';
import { projectIdOf, useProjectTitles } from './project-titles.ts';
import './contacts.css';

/** The change kinds that may change who is listed, or her projects and their titles. */
const CONTACT_KINDS = new Set(['contacts', 'projects', 'sync', 'unknown']);
const TITLE_KINDS = new Set(['projects', 'sync', 'unknown']);

/** Enough for a screen of people; a search narrows it. */
const LIST_LIMIT = 200;

interface ContactProject {
  id: number;
  title: string;
}

function projectsOf(contact: ContactRecordJson, titles: ReadonlyMap<number, string>): ContactProject[] {
  return contact.projects.flatMap((url) => {
    const id = projectIdOf(url);
    return id === null ? [] : [{ id, title: titles.get(id) ?? `Project ${id}` }];
  });
}

/**
 * The org's people: found by every word of name, email and phone (the contacts
 * list's `search`), each with the projects she is on (a click opens one), edited in
 * place and deleted after a question that names her projects. It only calls the
 * local engine, so it works in either workspace and offline; changes sync as any.
 */
export function ContactsView({ orgId }: { orgId: number }) {
  const searchId = useId();
  const [text, setText] = useState('');
  const [revision, setRevision] = useState(0);
  const [titlesRevision, setTitlesRevision] = useState(0);
  const [editingId, setEditingId] = useState<number | null>(null);
  const [deletingId, setDeletingId] = useState<number | null>(null);
  useEscapeKey(() => setDeletingId(null), deletingId !== null);
  const answer = useContactSearch(orgId, text, { limit: LIST_LIMIT, searchEmpty: true, revision });
  const titles = useProjectTitles(orgId, titlesRevision);
  const toast = useUiStore((state) => state.toast);
  const refresh = () => setRevision((value) => value + 1);

  // What sync or another window changes shows here too: the list is asked again (the
  // answer on screen stays until the new one comes, so nothing flickers).
  useEffect(
    () =>
      requireBridge().subscribe('records.changed', (change) => {
        if (change.kinds.some((kind) => CONTACT_KINDS.has(kind))) setRevision((value) => value + 1);
        if (change.kinds.some((kind) => TITLE_KINDS.has(kind))) setTitlesRevision((value) => value + 1);
      }),
    [],
  );

  const openProject = (projectId: number) => {
    useUiStore.getState().show('projects');
    useUiStore.getState().showTab('contacts');
    void useProjectStore.getState().open(orgId, projectId);
  };
  // A refusal is thrown on to the form, which shows the engine's messages beside the boxes.
  const update = async (contact: ContactRecordJson, draft: ContactDraft) => {
    await apiDone('PATCH', apiPaths.contact(orgId, contact.id), { body: draft });
    setEditingId(null);
    refresh();
  };
  const remove = async (contact: ContactRecordJson) => {
    try {
      await apiDone('DELETE', apiPaths.contact(orgId, contact.id));
      setDeletingId(null);
      toast(`${contactName(contact)} was deleted.`);
      refresh();
    } catch (error) {
      toast(`${contactName(contact)} was not deleted: ${messageOf(error)}. Try again.`, 'error');
    }
  };

  const contacts = answer?.contacts ?? [];
  return (
    <div className="contacts-view">
      <div className="contacts-head">
        <h2>Contacts</h2>
        <div className="field contacts-search">
          <label htmlFor={searchId}>Search by name, email or phone</label>
          <input id={searchId} type="search" autoComplete="off" value={text} onChange={(event) => setText(event.target.value)} placeholder="Any words, in any order" />
        </div>
        {answer && !answer.error && (
          <span className="field-hint" data-testid="contact-count" role="status">
            {contacts.length === LIST_LIMIT ? `The first ${LIST_LIMIT} people: type a word to narrow them` : contacts.length === 1 ? '1 person' : `${contacts.length} people`}
          </span>
        )}
      </div>
      {answer === null && <LoadingState label="Loading contacts…" />}
      {answer?.error && (
        <p className="field-error" role="alert">
          {answer.error} Try again in a moment.
        </p>
      )}
      {answer && !answer.error && contacts.length === 0 && (
        <EmptyState title={answer.words ? `Nobody matches “${answer.words}”` : 'No contacts yet'}>
          {answer.words ? 'Try fewer words, or part of an email or phone number.' : 'Contacts are added from a project’s Contacts tab or with a new project.'}
        </EmptyState>
      )}
      <ul className="card-list contacts-list" aria-label="Contacts">
        {contacts.map((contact) => {
          const projects = projectsOf(contact, titles);
          return (
            <li key={contact.id} className="card contacts-card" data-testid="contacts-row">
              {editingId === contact.id ? (
                <ContactForm initial={contact} submitLabel="Save contact" onSubmit={(draft) => update(contact, draft)} onCancel={() => setEditingId(null)} />
              ) : (
                <div className="card-row contacts-card-row">
                  <div className="contacts-card-text">
                    <strong>{contactName(contact)}</strong>
                    <div className="muted">{contactLine(contact) || 'No email or phone'}</div>
                    <div className="contacts-projects">
                      {projects.length === 0 ? (
                        <span className="muted">On no project</span>
                      ) : (
                        projects.map((project) => (
                          <button key={project.id} type="button" className="link-button contacts-project" title={`Open “${project.title}”`} onClick={() => openProject(project.id)}>
                            {project.title}
                          </button>
                        ))
                      )}
                    </div>
                  </div>
                  <div className="card-actions">
                    <button type="button" className="button" onClick={() => setEditingId(contact.id)} aria-label={`Edit ${contactName(contact)}`}>
                      Edit
                    </button>
                    <button type="button" className="button button-danger" onClick={() => setDeletingId(contact.id)} aria-label={`Delete ${contactName(contact)}`}>
                      Delete
                    </button>
                  </div>
                </div>
              )}
              {deletingId === contact.id && (
                <div className="contacts-delete" role="alertdialog" aria-label={`Delete ${contactName(contact)}?`} data-testid="contact-delete-question">
                  <p>{deleteQuestion(
                      contact,
                      projects.map((project) => project.title),
                    )}</p>
                  <div className="form-actions">
                    <button type="button" className="button button-danger" onClick={() => void remove(contact)}>
                      Delete {contactName(contact)}
                    </button>
                    <button type="button" className="button" autoFocus onClick={() => setDeletingId(null)}>
                      Keep
                    </button>
                  </div>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

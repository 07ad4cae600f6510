import './ContactsTab.css';
import { useEffect, useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import type { ContactJson } from '../../../../shared/schemas/contact.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { apiDone, messageOf } from '../../api/api-client.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ContactForm, type ContactDraft } from './ContactForm.tsx';

const CONTACT_DRAFT = 'contact:';
const UNDO_MS = 10_000;

function editingOf(draftKey: string | undefined): number | 'new' | null {
  if (!draftKey) return null;
  const id = draftKey.slice(CONTACT_DRAFT.length);
  return id === 'new' ? 'new' : Number(id);
}

function nameOf(contact: ContactJson): string {
  return contact.display || `${contact.first_name} ${contact.family_name}`.trim() || 'the contact';
}

/** The project's contacts: add (contacts_new), edit (the contact's own endpoint), remove (contacts without it). */
export function ContactsTab({ project }: { project: ProjectDetailJson }) {
  // A contact form left unsubmitted (a draft of the project) opens again where it was.
  const draftedForm = useProjectStore((state) => Object.keys(state.drafts).find((key) => key.startsWith(CONTACT_DRAFT)));
  const [editingId, setEditingId] = useState<number | 'new' | null>(() => editingOf(draftedForm));
  const [removed, setRemoved] = useState<{ contact: ContactJson; urls: string[] } | null>(null);
  const save = useProjectStore((state) => state.save);
  const reload = useProjectStore((state) => state.reload);
  const clearDraft = useProjectStore((state) => state.clearDraft);
  const toast = useUiStore((state) => state.toast);

  // The undo offer lasts a few seconds.
  useEffect(() => {
    if (!removed) return;
    const timer = setTimeout(() => setRemoved(null), UNDO_MS);
    return () => clearTimeout(timer);
  }, [removed]);

  const closeForm = (id: number | 'new') => {
    clearDraft(`${CONTACT_DRAFT}${id}`);
    setEditingId(null);
  };
  const add = async (draft: ContactDraft) => {
    if (await save({ contacts_new: [draft] })) closeForm('new');
  };
  const update = async (contact: ContactJson, draft: ContactDraft) => {
    try {
      await apiDone('PATCH', apiPaths.contact(project.org_id, contact.id), { body: draft });
      await reload();
      closeForm(contact.id);
    } catch (error) {
      toast(messageOf(error), 'error');
    }
  };
  // Removing takes the contact off the project at once (the contact stays in the org's
  // contacts), and Undo puts it back in its place for a few seconds after.
  const remove = async (contact: ContactJson) => {
    const urls = project.contacts_data.map((other) => other.url);
    if (await save({ contacts: urls.filter((url) => url !== contact.url) })) setRemoved({ contact, urls });
  };
  const undo = async () => {
    if (!removed) return;
    const present = new Set(useProjectStore.getState().project?.contacts_data.map((other) => other.url) ?? []);
    const urls = removed.urls.filter((url) => url === removed.contact.url || present.has(url));
    if (await save({ contacts: urls })) setRemoved(null);
  };

  return (
    <div className="contacts-tab">
      {removed && (
        <div className="undo-bar" role="status" data-testid="contact-undo">
          <span>
            Removed {nameOf(removed.contact)} from this project. The contact is still in your contacts.
          </span>
          <button type="button" className="button" onClick={() => void undo()}>
            Undo
          </button>
        </div>
      )}
      {project.contacts_data.length === 0 && editingId !== 'new' && <EmptyState title="No contacts on this project yet" />}
      <ul className="card-list">
        {project.contacts_data.map((contact) => (
          <li key={contact.id} className="card" data-testid="contact-card">
            {editingId === contact.id ? (
              <ContactForm
                initial={contact}
                draftKey={`${CONTACT_DRAFT}${contact.id}`}
                submitLabel="Save contact"
                onSubmit={(draft) => update(contact, draft)}
                onCancel={() => closeForm(contact.id)}
              />
            ) : (
              <div className="card-row">
                <div>
                  <strong>{nameOf(contact)}</strong>
                  <div className="muted">{[contact.email, contact.phone].filter(Boolean).join(' · ') || 'No email or phone'}</div>
                </div>
                <div className="card-actions">
                  <button type="button" className="button" onClick={() => setEditingId(contact.id)}>
                    Edit
                  </button>
                  <button type="button" className="button button-danger" onClick={() => void remove(contact)}>
                    Remove
                  </button>
                </div>
              </div>
            )}
          </li>
        ))}
      </ul>
      {editingId === 'new' ? (
        <div className="card">
          <ContactForm draftKey={`${CONTACT_DRAFT}new`} submitLabel="Add contact" onSubmit={add} onCancel={() => closeForm('new')} />
        </div>
      ) : (
        <button type="button" className="button button-primary" onClick={() => setEditingId('new')}>
          Add a contact
        </button>
      )}
    </div>
  );
}

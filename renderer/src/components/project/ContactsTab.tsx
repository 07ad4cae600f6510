import { useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import type { ContactJson } from '../../../../shared/schemas/contact.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { apiDone, messageOf } from '../../api/api-client.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ContactForm, type ContactDraft } from './ContactForm.tsx';

/** The project's contacts: add (contacts_new), edit (the contact's own endpoint), remove (contacts without it). */
export function ContactsTab({ project }: { project: ProjectDetailJson }) {
  const [editingId, setEditingId] = useState<number | 'new' | null>(null);
  const save = useProjectStore((state) => state.save);
  const reload = useProjectStore((state) => state.reload);
  const toast = useUiStore((state) => state.toast);

  const add = async (draft: ContactDraft) => {
    if (await save({ contacts_new: [draft] })) setEditingId(null);
  };
  const update = async (contact: ContactJson, draft: ContactDraft) => {
    try {
      await apiDone('PATCH', apiPaths.contact(project.org_id, contact.id), { body: draft });
      await reload();
      setEditingId(null);
    } catch (error) {
      toast(messageOf(error), 'error');
    }
  };
  const remove = async (contact: ContactJson) => {
    await save({ contacts: project.contacts_data.filter((other) => other.id !== contact.id).map((other) => other.url) });
  };

  return (
    <div className="contacts-tab">
      {project.contacts_data.length === 0 && editingId !== 'new' && <EmptyState title="No contacts on this project yet" />}
      <ul className="card-list">
        {project.contacts_data.map((contact) => (
          <li key={contact.id} className="card" data-testid="contact-card">
            {editingId === contact.id ? (
              <ContactForm initial={contact} submitLabel="Save contact" onSubmit={(draft) => update(contact, draft)} onCancel={() => setEditingId(null)} />
            ) : (
              <div className="card-row">
                <div>
                  <strong>{contact.display || `${contact.first_name} ${contact.family_name}`}</strong>
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
          <ContactForm submitLabel="Add contact" onSubmit={add} onCancel={() => setEditingId(null)} />
        </div>
      ) : (
        <button type="button" className="button button-primary" onClick={() => setEditingId('new')}>
          Add a contact
        </button>
      )}
    </div>
  );
}

import './ContactsTab.css';
import { useEffect, useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import type { ContactJson } from '../../../../shared/schemas/contact.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { apiDone } from '../../api/api-client.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { contactLine, contactName } from '../../project/contact-words.ts';
import { ContactSearchBox } from '../contacts/ContactSearchBox.tsx';
import { DuplicateOffer } from '../contacts/DuplicateOffer.tsx';
import { ContactForm, type ContactDraft } from './ContactForm.tsx';

const CONTACT_DRAFT = 'contact:';
const UNDO_MS = 10_000;

function editingOf(draftKey: string | undefined): number | 'new' | null {
  if (!draftKey) return null;
  const id = draftKey.slice(CONTACT_DRAFT.length);
  return id === 'new' ? 'new' : Number(id);
}

/**
 * The project's contacts: add a new one (contacts_new, offering an existing person
 * with the same email or phone instead), attach an existing one found as you type
 * and detach one (the `contacts` list of URLs), edit (the contact's own endpoint).
 */
export function ContactsTab({ project }: { project: ProjectDetailJson }) {
  // A contact form left unsubmitted (a draft of the project) opens again where it was.
  const draftedForm = useProjectStore((state) => Object.keys(state.drafts).find((key) => key.startsWith(CONTACT_DRAFT)));
  const [editingId, setEditingId] = useState<number | 'new' | null>(() => editingOf(draftedForm));
  const [removed, setRemoved] = useState<{ contact: ContactJson; urls: string[] } | null>(null);
  const [isAttaching, setAttaching] = useState(false);
  const save = useProjectStore((state) => state.save);
  const reload = useProjectStore((state) => state.reload);
  const clearDraft = useProjectStore((state) => state.clearDraft);
  const toast = useUiStore((state) => state.toast);
  const attachedUrls = project.contacts_data.map((other) => other.url);

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
  // A refusal is thrown on to the form, which shows the engine's messages beside the boxes.
  const update = async (contact: ContactJson, draft: ContactDraft) => {
    await apiDone('PATCH', apiPaths.contact(project.org_id, contact.id), { body: draft });
    await reload();
    closeForm(contact.id);
  };
  // An existing contact joins the project: the project's `contacts` with her URL added.
  const attach = async (contact: ContactJson) => {
    if (attachedUrls.includes(contact.url)) return;
    if (await save({ contacts: [...attachedUrls, contact.url] })) {
      setAttaching(false);
      toast(`${contactName(contact)} is now on this project.`);
      return true;
    }
    return false;
  };
  const takeExisting = async (contact: ContactJson) => {
    if (attachedUrls.includes(contact.url)) {
      toast(`${contactName(contact)} is already on this project.`);
      closeForm('new');
    } else if (await attach(contact)) closeForm('new');
  };
  // Removing takes the contact off the project at once (the contact stays in the org's
  // contacts), and Undo puts it back in its place for a few seconds after.
  const remove = async (contact: ContactJson) => {
    const urls = attachedUrls;
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
            Removed {contactName(removed.contact)} from this project. The contact is still in your contacts.
          </span>
          <button type="button" className="button" onClick={() => void undo()}>
            Undo
          </button>
        </div>
      )}
      {project.contacts_data.length === 0 && editingId !== 'new' && !isAttaching && <EmptyState title="No contacts on this project yet" />}
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
                  <strong>{contactName(contact)}</strong>
                  <div className="muted">{contactLine(contact) || 'No email or phone'}</div>
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
      {editingId === 'new' && (
        <div className="card">
          <ContactForm
            draftKey={`${CONTACT_DRAFT}new`}
            submitLabel="Add contact"
            onSubmit={add}
            onCancel={() => closeForm('new')}
            below={(draft) => <DuplicateOffer orgId={project.org_id} email={draft.email ?? ''} phone={draft.phone ?? ''} onUse={(contact) => void takeExisting(contact)} />}
          />
        </div>
      )}
      {isAttaching && (
        <div className="card contact-attach" data-testid="contact-attach">
          <ContactSearchBox
            orgId={project.org_id}
            label="Find a contact by name, email or phone"
            nobodyHint="Try one word, or add a new contact."
            leaveOut={attachedUrls}
            autoFocus
            onChoose={(contact) => void attach(contact)}
          />
          <div className="form-actions">
            <button type="button" className="button" onClick={() => setAttaching(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {editingId !== 'new' && !isAttaching && (
        <div className="form-actions">
          <button type="button" className="button button-primary" onClick={() => setEditingId('new')}>
            Add a contact
          </button>
          <button type="button" className="button" onClick={() => setAttaching(true)}>
            Add an existing contact
          </button>
        </div>
      )}
    </div>
  );
}

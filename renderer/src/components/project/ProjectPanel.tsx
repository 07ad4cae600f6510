import './ProjectPanel.css';
import { useState } from 'react';
import { isPartnerProject } from '../../project/sharing.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { ActivityList } from '../activity/ActivityList.tsx';
import { type ProjectTab, useUiStore } from '../../stores/ui-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { ErrorState } from '../common/ErrorState.tsx';
import { BookVisitButton } from '../schedule/BookVisit.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { DesignTab } from '../design/DesignTab.tsx';
import { ContactsTab } from './ContactsTab.tsx';
import { DetailsTab } from './DetailsTab.tsx';
import { DocumentsButton } from './DocumentsMenu.tsx';
import { DraftBanner } from './DraftBanner.tsx';
import { FilesTab } from './FilesTab.tsx';
import { NotesTab } from './NotesTab.tsx';
import { SaveIndicator } from './SaveIndicator.tsx';
import { StagePicker } from './StagePicker.tsx';
import { WindowFileDrop } from './WindowFileDrop.tsx';
import { PinToggle } from './PinToggle.tsx';
import { SharePanel } from './ShareControl.tsx';
import { SharingMarker } from './SharingMarker.tsx';

const TABS: { tab: ProjectTab; label: string }[] = [
  { tab: 'details', label: 'Details' },
  { tab: 'contacts', label: 'Contacts' },
  { tab: 'notes', label: 'Notes' },
  { tab: 'files', label: 'Files' },
  { tab: 'design', label: 'Design' },
  { tab: 'activity', label: 'Activity' },
];

export function ProjectPanel() {
  const project = useProjectStore((state) => state.project);
  const status = useProjectStore((state) => state.status);
  const error = useProjectStore((state) => state.error);
  const tab = useUiStore((state) => state.projectTab);
  const showTab = useUiStore((state) => state.showTab);
  const session = useSessionStore((state) => state.session);
  const [sharingProjectId, setSharingProjectId] = useState<number | null>(null);

  if (status === 'error') return <ErrorState message={error ?? ''} onRetry={() => void useProjectStore.getState().reload()} />;
  if (!project) return <LoadingState label="Opening the project…" />;
  // A partner's project (shared with this org) is read-only here: its owner changes it.
  const isReadOnly = isPartnerProject(project, session?.orgId);
  const canShare = !isReadOnly && session?.isAdmin === true;
  const isSharing = canShare && sharingProjectId === project.id;
  const owner = project.org_name || `organisation ${project.org_id}`;
  const heading = project.title || project.address || `Project ${project.id}`;
  const subheading = [project.identifier, [project.address, project.locality, project.state, project.zip].filter(Boolean).join(', ')].filter(Boolean).join(' · ');
  return (
    <article className="project-panel" data-testid="project-panel" data-read-only={isReadOnly || undefined}>
      {!isReadOnly && <WindowFileDrop projectId={project.id} projectTitle={project.title || project.address} />}
      <header className="project-header">
        <div>
          {/* In a short window each is one line (ProjectPanel.css): the tooltip has it whole. */}
          <h1 title={heading}>{heading}</h1>
          <p className="muted" title={subheading}>
            {subheading}
          </p>
        </div>
        <div className="header-actions">
          <SharingMarker project={project} />
          <PinToggle project={project} />
          {!isReadOnly && <StagePicker project={project} />}
          {!isReadOnly && <BookVisitButton project={project} />}
          {!isReadOnly && <DocumentsButton project={project} />}
          {canShare && (
            <button type="button" className="button" aria-expanded={isSharing} onClick={() => setSharingProjectId(isSharing ? null : project.id)}>
              Share…
            </button>
          )}
          {!isReadOnly && <SaveIndicator />}
        </div>
      </header>
      {isReadOnly && (
        <p className="read-only-banner" role="note" data-testid="read-only-banner">
          {owner} shares this project with {session?.orgName ?? 'your organisation'}: it is read-only here. To change it, ask {owner}.
        </p>
      )}
      {isSharing && <SharePanel project={project} onClose={() => setSharingProjectId(null)} />}
      {!isReadOnly && <DraftBanner />}
      <div className="tabs" role="tablist" aria-label="Project sections">
        {TABS.map((item) => (
          <button
            key={item.tab}
            type="button"
            role="tab"
            aria-selected={tab === item.tab}
            className={`tab${tab === item.tab ? ' is-active' : ''}`}
            onClick={() => showTab(item.tab)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div className="tab-body" role="tabpanel">
        {/* A disabled fieldset disables every input and button of the tab at once. */}
        <fieldset className="tab-fieldset" disabled={isReadOnly}>
          {tab === 'details' && <DetailsTab project={project} />}
          {tab === 'contacts' && <ContactsTab project={project} />}
          {tab === 'notes' && <NotesTab project={project} />}
          {tab === 'files' && <FilesTab project={project} />}
          {tab === 'design' && <DesignTab project={project} />}
          {tab === 'activity' && session && <ActivityList orgId={session.orgId} projectId={project.id} />}
        </fieldset>
      </div>
    </article>
  );
}

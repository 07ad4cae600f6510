// An admin shares the open project with a connected organisation, or stops sharing
// it (hosted-docs-facts.md section 11: PATCH the project's `shared_with`). The
// partner sees it in its own list, read-only; a permissions role (role_type 1) can
// narrow what it sees, else the connection's default applies.
import './ShareControl.css';
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { apiPaths } from '../../../../shared/api-paths.ts';
import { permissionsRoleJsonSchema, type PermissionsRoleJson } from '../../../../shared/schemas/permissions-role.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { apiOk, messageOf } from '../../api/api-client.ts';
import { orgNamesOf, shareEntries, withShare } from '../../project/sharing.ts';
import { connectionState, partnerOrgId, useConnectionsStore } from '../../stores/connections-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

export function SharePanel({ project, onClose }: { project: ProjectDetailJson; onClose(): void }) {
  const connections = useConnectionsStore((state) => state.connections);
  const names = useConnectionsStore((state) => state.partnerNames);
  const toast = useUiStore((state) => state.toast);
  const [roles, setRoles] = useState<PermissionsRoleJson[]>([]);
  const [rolesError, setRolesError] = useState<string | null>(null);
  const [partnerId, setPartnerId] = useState('');
  const [permission, setPermission] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setSaving] = useState(false);

  useEffect(() => {
    void useConnectionsStore.getState().load(project.org_id);
    apiOk(z.array(permissionsRoleJsonSchema), 'GET', apiPaths.permissionsRoles(project.org_id), { query: { limit: 1000 } }).then(
      (all) => setRoles(all.filter((role) => role.role_type === 1)),
      (failure) => setRolesError(messageOf(failure)),
    );
  }, [project.org_id]);

  const entries = shareEntries(project.shared_with).filter((entry) => entry.isShared);
  const sharedIds = new Set(entries.map((entry) => entry.orgId));
  const choices = connections
    .filter((connection) => connectionState(connection) === 'active')
    .map((connection) => ({ id: partnerOrgId(connection), name: connection.org_name }))
    .filter((choice): choice is { id: number; name: string } => choice.id !== null && !sharedIds.has(choice.id));
  const roleTitle = (url: string | null) => (url === null ? 'the connection’s default permissions' : (roles.find((role) => role.url === url)?.title ?? 'a permissions role'));

  const write = async (orgId: number, change: { isShared: boolean; permission?: string | null }, done: string) => {
    setSaving(true);
    setError(null);
    const saved = await useProjectStore.getState().save({ shared_with: withShare(project.shared_with, orgId, change) });
    setSaving(false);
    if (saved) {
      toast(done);
      setPartnerId('');
    } else setError(useProjectStore.getState().saveError ?? 'The project was not shared. Try again.');
  };

  return (
    <section className="share-panel card" aria-label="Sharing" data-testid="share-panel">
      <div className="card-row">
        <h2>Sharing</h2>
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
      {entries.length === 0 ? (
        <p className="muted">Not shared with any partner.</p>
      ) : (
        <ul className="card-list">
          {entries.map((entry) => {
            const name = orgNamesOf([entry.orgId], names);
            return (
              <li key={entry.orgId} className="card-row" data-testid="share-entry">
                <span className="connection-name" title={`${name}, with ${roleTitle(entry.permission)}`}>
                  <strong>{name}</strong> <span className="muted">with {roleTitle(entry.permission)}</span>
                </span>
                <button type="button" className="button" disabled={isSaving} onClick={() => void write(entry.orgId, { isShared: false }, `${name} no longer sees this project.`)}>
                  Stop sharing
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {choices.length === 0 ? (
        <p className="muted">
          {connections.length === 0 ? 'Connect with a partner organisation first (Settings › Connections).' : 'Every active connection already sees this project.'}
        </p>
      ) : (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const orgId = Number(partnerId);
            const name = choices.find((choice) => choice.id === orgId)?.name ?? `organisation ${orgId}`;
            void write(orgId, { isShared: true, permission: permission === '' ? null : permission }, `Shared with ${name}.`);
          }}
        >
          <select aria-label="Partner to share with" value={partnerId} onChange={(event) => setPartnerId(event.target.value)}>
            <option value="">Pick a connected organisation…</option>
            {choices.map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.name}
              </option>
            ))}
          </select>
          <select aria-label="Permissions for the partner" value={permission} onChange={(event) => setPermission(event.target.value)}>
            <option value="">Connection’s default permissions</option>
            {roles.map((role) => (
              <option key={role.id} value={role.url}>
                {role.title}
              </option>
            ))}
          </select>
          <button type="submit" className="button button-primary" disabled={isSaving || partnerId === ''}>
            Share
          </button>
        </form>
      )}
      {rolesError && <p className="muted small">Permission roles could not be read ({rolesError}); the connection’s default applies.</p>}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

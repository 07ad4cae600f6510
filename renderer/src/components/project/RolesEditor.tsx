import './RolesEditor.css';
import { parseOrgReference } from '../../../../shared/api-paths.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import type { RoleJson } from '../../../../shared/schemas/role.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';

const WRITABLE_ROLES = [
  { field: 'assigned_role', label: 'Assigned to' },
  { field: 'assigned_installer_role', label: 'Installer' },
  { field: 'assigned_site_inspector_role', label: 'Site inspector' },
] as const;

const READ_ONLY_ROLES = [
  { field: 'assigned_designer_role_data', label: 'Designer' },
  { field: 'assigned_salesperson_role_data', label: 'Salesperson' },
] as const;

/**
 * Why designer and salesperson are shown, not set: service.md 2.1 "Roles" makes only
 * the first three references writable; the other two are returned by the service,
 * which assigns them itself (activity 96/97, "assigned to designer/salesperson").
 */
const READ_ONLY_REASON = 'Chosen in the office’s online account; SolarDesk shows who it is but cannot change it.';

/** The three writable role references (service.md 2.1 "Roles"); designer and salesperson are shown, not set. */
export function RolesEditor({ project }: { project: ProjectDetailJson }) {
  const roles = useOrgStore((state) => state.roles);
  const save = useProjectStore((state) => state.save);
  return (
    <div className="field-grid roles-grid">
      {WRITABLE_ROLES.map(({ field, label }) => {
        const current = parseOrgReference(project[field], 'roles')?.id ?? '';
        return (
          <div className="field" key={field}>
            <label htmlFor={`role-${field}`}>{label}</label>
            <select
              id={`role-${field}`}
              value={current}
              title={roles.filter((role) => role.id === current).map((role) => `${role.display} — ${role.job_title}`)[0] ?? 'Nobody'}
              onChange={(event) => {
                const role = roles.find((candidate) => candidate.id === Number(event.target.value));
                void save({ [field]: role ? role.url : null });
              }}
            >
              <option value="">Nobody</option>
              {roles.map((role) => (
                <option key={role.id} value={role.id}>
                  {role.display} — {role.job_title}
                </option>
              ))}
            </select>
          </div>
        );
      })}
      {READ_ONLY_ROLES.map(({ field, label }) => {
        const role = project[field] as RoleJson | null | undefined;
        return (
          <div className="field" key={field}>
            <span className="label">{label}</span>
            <span className="read-only" data-testid={`read-only-${field}`}>
              {role ? `${role.display} — ${role.job_title}` : 'Nobody'}
            </span>
            <span className="field-hint">{READ_ONLY_REASON}</span>
          </div>
        );
      })}
    </div>
  );
}

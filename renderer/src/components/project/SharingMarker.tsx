// "Shared with <partners>" on a project this org shares, "Shared by <owner>" on a
// partner's project (read-only here). Names of partners come from the org's
// connections; the owner's name from the project itself (`org_name`).
import { isPartnerProject, orgNamesOf, sharedOrgIds } from '../../project/sharing.ts';
import { useConnectionsStore } from '../../stores/connections-store.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { Badge } from '../common/Badge.tsx';

interface SharedProject {
  org_id: number;
  org_name: string;
  shared_with: unknown;
}

/** What the marker says, or null for a project neither shared nor a partner's. */
export function useSharingText(project: SharedProject): { text: string; isPartners: boolean } | null {
  const signedInOrgId = useSessionStore((state) => state.session?.orgId);
  const names = useConnectionsStore((state) => state.partnerNames);
  if (isPartnerProject(project, signedInOrgId)) return { text: `Shared by ${project.org_name || `organisation ${project.org_id}`}`, isPartners: true };
  const orgIds = sharedOrgIds(project.shared_with);
  if (orgIds.length === 0) return null;
  return { text: `Shared with ${orgNamesOf(orgIds, names)}`, isPartners: false };
}

export function SharingMarker({ project }: { project: SharedProject }) {
  const sharing = useSharingText(project);
  if (!sharing) return null;
  return (
    <span className="sharing-marker" data-testid="sharing-marker" title={sharing.isPartners ? `${sharing.text}: read-only here` : sharing.text}>
      <Badge tone={sharing.isPartners ? 'warning' : 'info'}>{sharing.text}</Badge>
    </span>
  );
}

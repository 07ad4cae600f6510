// A further org with an admin for Teams tests (connected orgs and sharing): the
// demo has three orgs, and a connection between two of them is what most tests
// need; this adds a fourth (or fifth) with a plan and an admin who holds a token.
import type { TestServer } from './test-server.ts';
import { ALL_PERMISSIONS, addRole, createOrg, setPlan, type RolePermissions } from '../orgs/org-service.ts';
import { createUser, issueToken } from '../auth/accounts.ts';

export interface PartnerOrg {
  id: number;
  name: string;
  /** The admin's token. */
  admin: string;
}

export async function addPartnerOrg(server: TestServer, name: string, email: string, permissions: RolePermissions = ALL_PERMISSIONS): Promise<PartnerOrg> {
  const { db, clock } = server.engine.context;
  const org = await createOrg(db, clock, { name });
  await setPlan(db, clock, org.id, { plan: 'api_access', startsOn: '2025-01-01' });
  const user = await createUser(db, clock, { email, password: 'partner password 1' });
  await addRole(db, clock, org.id, { user_id: user.id }, permissions);
  return { id: org.id, name, admin: await issueToken(db, clock, user.id) };
}

/** Another user in an existing org, with a token. */
export async function addOrgUser(server: TestServer, orgId: number, email: string, permissions: RolePermissions): Promise<string> {
  const { db, clock } = server.engine.context;
  const user = await createUser(db, clock, { email, password: 'partner password 1' });
  await addRole(db, clock, orgId, { user_id: user.id }, permissions);
  return issueToken(db, clock, user.id);
}

// Connected orgs (service.md 4.4 names the endpoints; the record is SolarDesk's,
// described in docs/files.md): one org asks another to connect, naming it exactly
// by id (or URL) and name; the other sees the request as pending until it answers.
import { z } from 'zod';
import { requiredString } from './coercing-fields.ts';

export const CONNECTION_STATUSES = ['pending', 'accepted', 'declined'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const connectedOrgCreateSchema = z.object({
  connected_org: z
    .union([z.string(), z.number()], { error: 'This field is required: the other organisation\'s id or URL.' })
    .describe("the other organisation's id or URL (/api/orgs/<id>/)"),
  connected_org_name: requiredString().describe("the other organisation's name, exactly"),
});
export type ConnectedOrgCreate = z.output<typeof connectedOrgCreateSchema>;

export const connectedOrgPatchSchema = z.object({
  status: z.enum(['accepted', 'declined'], { error: 'Send "accepted" or "declined".' }),
});

export const connectedOrgJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org: z.string().describe('URL of the organisation that asked'),
  org_id: z.number().int(),
  org_name: z.string(),
  connected_org: z.string().describe('URL of the organisation that was asked'),
  connected_org_id: z.number().int(),
  connected_org_name: z.string(),
  status: z.enum(CONNECTION_STATUSES),
  direction: z.enum(['outgoing', 'incoming']).describe('outgoing: this organisation asked; incoming: it was asked'),
  requested_by: z.string().describe('URL of the user who asked'),
  created_date: z.string(),
  modified_date: z.string(),
});
export type ConnectedOrgJson = z.infer<typeof connectedOrgJsonSchema>;

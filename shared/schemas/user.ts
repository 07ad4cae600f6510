// A signed-in user (compatibility.md "Authentication"): in the token endpoints'
// answers and PATCH /auth/users/<id>/.
import { z } from 'zod';

export const userJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  email: z.string(),
  username: z.string().describe('the email: the API signs in by email'),
  first_name: z.string(),
  family_name: z.string(),
  phone: z.string(),
  is_machine_user: z.boolean().describe('its tokens never expire'),
  is_staff: z.boolean(),
});
export type UserJson = z.infer<typeof userJsonSchema>;

/** POST /api-token-auth/ and GET /api/fetch_token/: a token, its user, and the orgs the user belongs to. */
export const tokenJsonSchema = z.object({
  token: z.string(),
  user: userJsonSchema,
  org_id: z.number().int().nullable().describe('the org the token was asked for, else the first membership'),
  role_id: z.number().int().nullable(),
  orgs: z.array(z.object({ id: z.number().int(), name: z.string(), url: z.string(), role_id: z.number().int() })),
});
export type TokenJson = z.infer<typeof tokenJsonSchema>;

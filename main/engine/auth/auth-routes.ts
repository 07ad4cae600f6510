// Sign-in and token routes (compatibility.md "Authentication"), which live outside
// the org scope.
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { UserRow } from '../store/tables.ts';
import { forbidden, nonFieldError, notFound } from '../http/errors.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { booleanField, requiredString } from '../../../shared/schemas/coercing-fields.ts';
import { idParam } from '../http/list-query.ts';
import { tokenJsonSchema, userJsonSchema, type TokenJson } from '../../../shared/schemas/user.ts';
import { findUserByEmail, issueToken, serializeUser } from './accounts.ts';
import { checkUserAccess, signIn, updateUser } from './user-service.ts';
import { verifyPassword } from './passwords.ts';
import { authenticate } from './actor.ts';

const BAD_CREDENTIALS = 'Unable to log in with provided credentials.';
const tags = ['auth'];

/**
 * The signed-in caller of a token route, found in onRequest: before the query and
 * body are validated, as DRF authenticates before it parses, so a request without
 * a valid token is 401 whatever else is wrong with it (not a 400 that tells a
 * stranger about the route).
 */
const callers = new WeakMap<FastifyRequest, UserRow>();
const signedIn = (context: EngineContext) => async (request: FastifyRequest) => {
  callers.set(request, await authenticate(context, request));
};
function callerOf(request: FastifyRequest): UserRow {
  const caller = callers.get(request);
  if (!caller) throw new Error('callerOf() on a route without the signedIn hook');
  return caller;
}

async function memberships(context: EngineContext, userId: number) {
  return context.db
    .selectFrom('roles')
    .innerJoin('orgs', 'orgs.id', 'roles.org_id')
    .select(['orgs.id as org_id', 'orgs.name as org_name', 'roles.id as role_id', 'roles.is_admin'])
    .where('roles.user_id', '=', userId)
    .orderBy('roles.id')
    .execute();
}

/** The token endpoints' answer: `{token, user, org_id, ...}`. */
async function tokenResponse(context: EngineContext, user: UserRow, token: string, orgId?: number): Promise<TokenJson> {
  const orgs = await memberships(context, user.id);
  const chosen = orgId === undefined ? orgs[0] : orgs.find((membership) => membership.org_id === orgId);
  if (orgId !== undefined && !chosen) throw forbidden('You are not a member of this organisation.');
  return {
    token,
    user: serializeUser(context, user),
    org_id: chosen?.org_id ?? null,
    role_id: chosen?.role_id ?? null,
    orgs: orgs.map((membership) => ({
      id: membership.org_id,
      name: membership.org_name,
      url: absoluteUrl(context, apiPaths.org(membership.org_id)),
      role_id: membership.role_id,
    })),
  };
}

export function registerAuthRoutes(app: TypedApp, context: EngineContext): void {
  app.post(
    '/api-token-auth/',
    {
      config: { throttle: 'sign_in' },
      schema: {
        tags,
        summary: 'Sign in: exchange a username and password for a token',
        security: [],
        body: z.object({ username: requiredString(), password: requiredString(), token: z.string().optional() }),
        response: { 200: tokenJsonSchema },
      },
    },
    async (request) => {
      const { username, password } = request.body;
      const user = await findUserByEmail(context.db, username);
      // Verify against a throwaway hash when the user is unknown, so timing does not reveal who has an account.
      const isValid = await verifyPassword(password, user?.password_hash ?? UNKNOWN_USER_HASH);
      if (!user || !isValid) throw nonFieldError(BAD_CREDENTIALS);
      return tokenResponse(context, user, await signIn(context, user));
    },
  );

  app.get(
    '/api/fetch_token/',
    {
      onRequest: signedIn(context),
      schema: {
        tags,
        summary: 'Get a fresh token for the signed-in user',
        querystring: z.object({ org_id: z.string().regex(/^\d{1,15}$/).transform(Number).optional() }),
        response: { 200: tokenJsonSchema },
      },
    },
    async (request) => {
      const user = callerOf(request);
      const response = await tokenResponse(context, user, '', request.query.org_id);
      return { ...response, token: await issueToken(context.db, context.clock, user.id) };
    },
  );

  // A user by either of its URLs: the hosted service's /api/global_users/<id>/ (a private
  // file's `user`, facts section 15) and ours, /auth/users/<id>/. The same rule as the PATCH.
  for (const [path, summary] of [
    ['/api/global_users/:user_id/', 'A user, as the hosted service names them (a private file\'s `user`)'],
    ['/auth/users/:user_id/', 'A user (the same as /api/global_users/<id>/)'],
  ] as const) {
    app.get(
      path,
      {
        onRequest: signedIn(context),
        schema: { tags, summary: `${summary}: the user themselves or an admin of one of their organisations`, params: z.object({ user_id: idParam }), response: { 200: userJsonSchema } },
      },
      async (request) => {
        const target = await context.db.selectFrom('users').selectAll().where('id', '=', request.params.user_id).executeTakeFirst();
        if (!target) throw notFound();
        await checkUserAccess(context, callerOf(request), target, 'see');
        return serializeUser(context, target);
      },
    );
  }

  app.patch(
    '/auth/users/:user_id/',
    {
      onRequest: signedIn(context),
      schema: {
        tags,
        summary: 'Make a user a machine user (tokens that never expire)',
        params: z.object({ user_id: idParam }),
        body: z.object({ is_machine_user: booleanField().optional() }),
        response: { 200: userJsonSchema },
      },
    },
    async (request) => {
      const target = await context.db.selectFrom('users').selectAll().where('id', '=', request.params.user_id).executeTakeFirst();
      if (!target) throw notFound();
      return serializeUser(context, await updateUser(context, callerOf(request), target, request.body));
    },
  );
}

// A valid scrypt hash of a random password nobody knows.
const UNKNOWN_USER_HASH =
  'scrypt$32768$8$1$2uXx5Yz8m8b0XJk1mY5k9A==$0vXq8b8JcJ3m2bq1O0k7WcV8c6m2yP5r0p3lXGz1u8I=';

// `solardesk admin <subcommand>`: sets up a real server without the demo data.
// Works on the data folder directly, so it runs with the server up or down; a
// running server sees a plan change within its plan cache time (60 s).
import path from 'node:path';
import { createEngine, type Engine } from '../engine/engine.ts';
import { createUser, findUserByEmail, issueToken, setMachineUser } from '../engine/auth/accounts.ts';
import { addRole, createOrg, findOrg, type RolePermissions, setPlan } from '../engine/orgs/org-service.ts';
import { API_PLAN_NAMES, isApiPlan } from '../../shared/plans.ts';
import { CliError, parseOptions, readStoreOptions } from './cli-args.ts';
import type { BlobBackend } from '../engine/files/blob-backend.ts';

const DATA_OPTION = `  --data DIR            The server’s data folder (default ./data)
  --database URL        The server’s PostgreSQL store, when it has one: postgres://USER:PASS@HOST:PORT/DB
                        (or set SOLARDESK_DATABASE_URL)`;
const PERMISSION_OPTIONS = `  --admin               May manage the org's people and settings (implies every permission below)
  --pro                 A Pro user: may use private files
  --all-projects        Sees every project (otherwise only projects where they hold an assigned role)
  --all-files           The org-wide files permission
  --export              The projects_export permission
  --job-title TEXT      Shown on the role`;

const PERMISSION_FLAGS = {
  admin: { type: 'boolean' },
  pro: { type: 'boolean' },
  'all-projects': { type: 'boolean' },
  'all-files': { type: 'boolean' },
  export: { type: 'boolean' },
  'job-title': { type: 'string' },
} as const;

const SUBCOMMANDS = {
  'create-org': {
    summary: 'Create an organisation (with the default workflow)',
    help: `Usage: solardesk admin create-org --name NAME [--id N] [--data DIR | --database URL]

Creates an organisation and prints its id. It has no API plan until set-plan gives it one.

  --name NAME           The organisation's name
  --id N                A fixed id (default: the next free one)
${DATA_OPTION}`,
    options: { name: { type: 'string' }, id: { type: 'string' } },
  },
  'create-user': {
    summary: 'Create a user with a password, optionally as a member of an org',
    help: `Usage: solardesk admin create-user --email EMAIL (--password P | --password-stdin) [--org N [permissions]] [--data DIR | --database URL]

Creates a user who signs in with EMAIL and the password, and prints the user id.
With --org, also adds them to that org with the permissions given.

  --email EMAIL         Their sign-in name
  --password P          Their password (visible to other users of this machine; prefer --password-stdin)
  --password-stdin      Read the password from the first line of standard input
  --first-name TEXT, --family-name TEXT, --phone TEXT
  --org N               Add them to org N
${PERMISSION_OPTIONS}
${DATA_OPTION}`,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'first-name': { type: 'string' },
      'family-name': { type: 'string' },
      phone: { type: 'string' },
      org: { type: 'string' },
      ...PERMISSION_FLAGS,
    },
  },
  'add-member': {
    summary: 'Give an existing user a role in an org, with permissions',
    help: `Usage: solardesk admin add-member --org N --email EMAIL [permissions] [--data DIR | --database URL]

Adds the user to org N and prints the new role's id.

  --org N               The organisation
  --email EMAIL         The user
${PERMISSION_OPTIONS}
${DATA_OPTION}`,
    options: { org: { type: 'string' }, email: { type: 'string' }, ...PERMISSION_FLAGS },
  },
  'set-plan': {
    summary: 'Set or remove an org’s API plan',
    help: `Usage: solardesk admin set-plan --org N --plan PLAN [--start YYYY-MM-DD] [--end YYYY-MM-DD | --trial] [--data DIR | --database URL]

  --org N               The organisation
  --plan PLAN           ${API_PLAN_NAMES.join(', ')}, or none to remove the plan
  --start YYYY-MM-DD    First day of the plan (default today)
  --end YYYY-MM-DD      Last day of the plan (default: no end)
  --trial               A 30-day free trial from the start date
${DATA_OPTION}`,
    options: { org: { type: 'string' }, plan: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' }, trial: { type: 'boolean' } },
  },
  'issue-token': {
    summary: 'Print a new API token for a user',
    help: `Usage: solardesk admin issue-token --email EMAIL [--machine] [--data DIR | --database URL]

Prints a new token (and nothing else) to standard output. Ordinary tokens expire
after 7 days; --machine makes the user a machine user, whose tokens never expire.

  --email EMAIL         The user
  --machine             Make the user a machine user first
${DATA_OPTION}`,
    options: { email: { type: 'string' }, machine: { type: 'boolean' } },
  },
  'migrate-blobs': {
    summary: 'Copy file contents between a folder and an object store',
    help: `Usage: solardesk admin migrate-blobs --from WHERE --to WHERE [--data DIR | --database URL]

Copies every file's and kept version's contents from one place to another, where
WHERE is a folder (a --blob-dir, or a data folder) or an object store address
(s3://BUCKET/PREFIX?endpoint=URL&region=R&force_path_style=true; credentials from
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY). Each copy is hash-checked; contents
the target already has are skipped, so an interrupted run is finished by running it
again. A server may keep serving meanwhile: a last pass copies files added during the
run. Then restart the servers with the new --blob-store (or --blob-dir).

  --from WHERE          Where the contents are now
  --to WHERE            Where they go
${DATA_OPTION}`,
    options: { from: { type: 'string' }, to: { type: 'string' } },
  },
  show: {
    summary: 'List the orgs, their plans and their members',
    help: `Usage: solardesk admin show [--data DIR | --database URL]

${DATA_OPTION}`,
    options: {},
  },
} as const;

type SubcommandName = keyof typeof SUBCOMMANDS;

export const ADMIN_HELP = `Usage: solardesk admin <subcommand> [options]

Subcommands:
${Object.entries(SUBCOMMANDS)
  .map(([name, command]) => `  ${name.padEnd(12)} ${command.summary}`)
  .join('\n')}

Run "solardesk admin <subcommand> --help" for its options.`;

export async function runAdminCommand(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (!name || name === '--help' || name === '-h') {
    console.log(ADMIN_HELP);
    return name ? 0 : 2;
  }
  if (!(name in SUBCOMMANDS)) throw new CliError(`unknown subcommand "${name}".\n\n${ADMIN_HELP}`);
  const subcommand = SUBCOMMANDS[name as SubcommandName];
  const { values } = parseOptions(rest, { ...subcommand.options, data: { type: 'string' }, database: { type: 'string' } }, subcommand.help);
  if (values.help) {
    console.log(subcommand.help);
    return 0;
  }
  const options = values as Record<string, string | boolean | undefined>;
  // Admin commands edit the store; the server that owns it delivers the webhooks.
  const { database } = readStoreOptions(options);
  const engine = await createEngine({ dataDir: path.resolve(String(options.data ?? 'data')), database, deliverWebhooks: false, dataFolder: 'guest' });
  try {
    await ADMIN_ACTIONS[name as SubcommandName](engine, options);
  } finally {
    await engine.close();
  }
  return 0;
}

type Options = Record<string, string | boolean | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} is required. See --help.`);
  return value.trim();
}

function orgId(options: Options): number {
  const text = required(options, 'org');
  if (!/^\d+$/.test(text)) throw new CliError(`--org takes an org id (a number), not "${text}".`);
  return Number(text);
}

function permissions(options: Options): RolePermissions {
  const isAdmin = options.admin === true;
  return {
    is_admin: isAdmin,
    is_pro: isAdmin || options.pro === true,
    sees_all_projects: isAdmin || options['all-projects'] === true,
    can_access_all_files: isAdmin || options['all-files'] === true,
    can_export_projects: isAdmin || options.export === true,
  };
}

function checkDate(options: Options, name: string): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new CliError(`--${name} takes a date as YYYY-MM-DD, not "${String(value)}".`);
  return value;
}

async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

async function requireOrg(engine: Engine, id: number) {
  const org = await findOrg(engine.context.db, id);
  if (!org) throw new CliError(`there is no org ${id}. "solardesk admin show" lists them.`, 1);
  return org;
}

async function requireUser(engine: Engine, email: string) {
  const user = await findUserByEmail(engine.context.db, email);
  if (!user) throw new CliError(`there is no user "${email}". Create one with "solardesk admin create-user".`, 1);
  return user;
}

const ADMIN_ACTIONS: Record<SubcommandName, (engine: Engine, options: Options) => Promise<void>> = {
  async 'create-org'(engine, options) {
    const name = required(options, 'name');
    const id = options.id === undefined ? undefined : Number(options.id);
    if (id !== undefined && !(Number.isSafeInteger(id) && id > 0)) throw new CliError(`--id takes a positive whole number, not "${String(options.id)}".`);
    if (id !== undefined && (await findOrg(engine.context.db, id))) throw new CliError(`org ${id} already exists.`, 1);
    const org = await createOrg(engine.context.db, engine.context.clock, { name, id });
    console.log(org.id);
  },

  async 'create-user'(engine, options) {
    const email = required(options, 'email');
    const password = options['password-stdin'] ? await readPasswordFromStdin() : required(options, 'password');
    if (password.length < 8) throw new CliError('the password must be at least 8 characters long.');
    if (await findUserByEmail(engine.context.db, email)) throw new CliError(`a user "${email}" already exists.`, 1);
    const org = options.org === undefined ? undefined : await requireOrg(engine, orgId(options));
    const user = await createUser(engine.context.db, engine.context.clock, {
      email,
      password,
      first_name: options['first-name'] as string | undefined,
      family_name: options['family-name'] as string | undefined,
      phone: options.phone as string | undefined,
    });
    if (org) {
      await addRole(engine.context.db, engine.context.clock, org.id, { user_id: user.id, job_title: options['job-title'] as string | undefined }, permissions(options));
    }
    console.log(user.id);
  },

  async 'add-member'(engine, options) {
    const org = await requireOrg(engine, orgId(options));
    const user = await requireUser(engine, required(options, 'email'));
    const role = await addRole(engine.context.db, engine.context.clock, org.id, { user_id: user.id, job_title: options['job-title'] as string | undefined }, permissions(options));
    console.log(role.id);
  },

  async 'set-plan'(engine, options) {
    const org = await requireOrg(engine, orgId(options));
    const planName = required(options, 'plan');
    if (planName !== 'none' && !isApiPlan(planName)) throw new CliError(`--plan takes ${API_PLAN_NAMES.join(', ')} or none, not "${planName}".`);
    if (options.trial && options.end) throw new CliError('give either --end or --trial, not both.');
    const updated = await setPlan(engine.context.db, engine.context.clock, org.id, {
      plan: planName === 'none' ? null : planName,
      startsOn: checkDate(options, 'start'),
      endsOn: checkDate(options, 'end') ?? null,
      isTrial: options.trial === true,
    });
    console.log(
      updated.api_plan
        ? `org ${org.id}: ${updated.api_plan}${updated.plan_is_trial ? ' (trial)' : ''} from ${updated.plan_starts_on}${updated.plan_ends_on ? ` to ${updated.plan_ends_on}` : ''}`
        : `org ${org.id}: no API plan`,
    );
  },

  async 'issue-token'(engine, options) {
    const user = await requireUser(engine, required(options, 'email'));
    if (options.machine) await setMachineUser(engine.context.db, user.id, true);
    console.log(await issueToken(engine.context.db, engine.context.clock, user.id));
  },

  async 'migrate-blobs'(engine, options) {
    const from = required(options, 'from');
    const to = required(options, 'to');
    if (from === to) throw new CliError('--from and --to are the same place: nothing to copy.');
    const { store } = engine;
    // Loaded here: it brings the S3 client, which no other admin command needs.
    const { migrateBlobs, openBlobBackendAt, progressLine } = await import('../engine/files/migrate-blobs.ts');
    let source: BlobBackend;
    let target: BlobBackend;
    try {
      source = openBlobBackendAt(from, store, store.dataDir);
      target = openBlobBackendAt(to, store, store.dataDir);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    console.log(`copying file contents from ${source.location} to ${target.location}`);
    try {
      const result = await migrateBlobs(store.db, source, target, { onProgress: (progress) => console.error(progressLine(progress)) });
      console.log(`copied ${result.copied} (${result.bytesCopied} bytes), ${result.skipped} already there, in ${result.passes} pass${result.passes === 1 ? '' : 'es'}`);
      if (result.missing.length + result.corrupt.length > 0) {
        throw new CliError(
          `${result.missing.length} named contents are missing from ${source.location} and ${result.corrupt.length} do not match their hash there: ${[...result.missing, ...result.corrupt].slice(0, 5).join(', ')}. Those files will not download from the target; restore them from a backup and run this again.`,
          1,
        );
      }
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  },
  async show(engine) {
    const orgs = await engine.context.db.selectFrom('orgs').selectAll().orderBy('id').execute();
    if (orgs.length === 0) console.log('No orgs yet. Create one with "solardesk admin create-org --name NAME".');
    for (const org of orgs) {
      const plan = org.api_plan ? `${org.api_plan}${org.plan_is_trial ? ' trial' : ''} from ${org.plan_starts_on}${org.plan_ends_on ? ` to ${org.plan_ends_on}` : ''}` : 'no API plan';
      console.log(`org ${org.id} "${org.name}": ${plan}`);
      const members = await engine.context.db
        .selectFrom('roles')
        .innerJoin('users', 'users.id', 'roles.user_id')
        .select(['roles.id', 'users.email', 'roles.is_admin', 'roles.is_pro', 'roles.sees_all_projects', 'roles.can_access_all_files', 'roles.can_export_projects'])
        .where('roles.org_id', '=', org.id)
        .orderBy('roles.id')
        .execute();
      for (const member of members) {
        const flags = [
          member.is_admin && 'admin',
          member.is_pro && 'pro',
          member.sees_all_projects && 'all-projects',
          member.can_access_all_files && 'all-files',
          member.can_export_projects && 'export',
        ].filter(Boolean);
        console.log(`  role ${member.id}: ${member.email} [${flags.join(', ')}]`);
      }
    }
  },
};

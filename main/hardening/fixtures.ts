// Records of one org for the hardening suite to aim at, made through the API by
// the org's admin: one of each kind a route's path can name, so every path
// template of the OpenAPI document can be filled with ids that exist.
import { randomBytes } from 'node:crypto';
import type { ApiOperation } from './api-routes.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { jsonRequest, type DemoUser, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { STATE_HANG_GUARD_MS } from '../testing/hang-guards.ts';

export interface OrgRecords {
  org: number;
  /** A project with a design; in Sunrise Solar one the member holds no role on. */
  project: number;
  systemUuid: string;
  /** That system's id in the systems resource (GET .../systems/<id>/). */
  system: number;
  contact: number;
  /** The admin's own role. */
  role: number;
  /** The admin's user id. */
  user: number;
  event: number;
  webhook: number;
  /** A delivery attempt in the org's webhook log (refused: its endpoint is on loopback). */
  webhookLog: number;
  /** A delivery still waiting in the webhook queue (its webhook turned off). */
  webhookQueueModel: number;
  /** The admin's, attached to no project. */
  file: number;
  /** Its signed `file_contents` link, as a path with its query. */
  fileLink: string;
  /** An earlier version of that file (its contents were replaced once). */
  fileVersion: number;
  connection: number;
  /** A Teams permissions role (facts section 11). */
  permissionsRole: number;
  /** The admin's upload, completed. */
  upload: string;
  /** A workflow the admin made (POST), not the default, no project in it. */
  workflow: number;
  /** The org's contract_only document template (issue 29). */
  documentTemplate: number;
}

export type RecordKind = 'project' | 'contact' | 'event' | 'webhook' | 'file' | 'connection' | 'upload' | 'openUpload' | 'workflow' | 'documentTemplate';

/** Document types a fresh template is made for, one each (an org has one template per type); contract_only is the fixture's. */
const FRESH_TEMPLATE_TYPES = ['system_image_only', 'pv_site_plan', 'bill_calculations_csv', 'system_performance_8760', 'financials_report'];

/** A multipart body as bytes, fields first, then the file part (name `file_contents` unless told). */
export function multipartBytes(
  fields: Record<string, string>,
  file: { fileName: string; bytes: Buffer; contentType?: string; partName?: string } | null,
  boundary = `----hardening${randomBytes(8).toString('hex')}`,
): { contentType: string; body: Buffer } {
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.partName ?? 'file_contents'}"; filename="${file.fileName}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

export function multipartRequest(urlPath: string, token: string, multipart: { contentType: string; body: Buffer }): RawRequest {
  return { method: 'POST', path: urlPath, headers: { authorization: `Bearer ${token}`, 'content-type': multipart.contentType }, body: multipart.body };
}

/** Makes records as one org's admin. */
export class RecordMaker {
  private made = 0;
  private templatesMade = 0;

  constructor(
    private readonly server: HardeningServer,
    readonly admin: DemoUser,
    readonly org: number,
  ) {}

  private async send(request: (token: string) => RawRequest, expected: number[] = [200, 201]): Promise<RawResponse> {
    const raw = request(await this.server.tokenFor(this.admin));
    const response = await this.server.request(raw);
    if (!expected.includes(response.status)) throw new Error(`fixture ${raw.method} ${raw.path}: ${response.status} ${response.text.slice(0, 300)}`);
    return response;
  }

  private call(method: string, urlPath: string, body?: unknown): Promise<RawResponse> {
    return this.send((token) => jsonRequest(method, urlPath, body, token));
  }

  /**
   * Removes any connection or request between this org and the org named `name`, either
   * side (facts section 4: DELETE, or DELETE of a pending item_id), so a new request may be made.
   */
  async withdrawConnection(name: string): Promise<void> {
    const listed = (await this.call('GET', apiPaths.connectedOrgs(this.org))).json as Array<{ id: number; org_name: string }>;
    const pending = (await this.call('GET', apiPaths.connectedOrgsPending(this.org))).json as Array<{ item_id: number; org_from_name: string }>;
    const ids = [...listed.filter((row) => row.org_name === name).map((row) => row.id), ...pending.filter((item) => item.org_from_name === name).map((item) => item.item_id)];
    for (const id of ids) await this.send((token) => jsonRequest('DELETE', apiPaths.connectedOrg(this.org, id), undefined, token), [204]);
  }

  /** A fresh request from this org to the org named `name` (never accepted): its id. */
  async askPartner(name: string): Promise<string> {
    await this.withdrawConnection(name);
    return String((await this.call('POST', apiPaths.connectedOrgs(this.org), { org_name: name })).json.id);
  }

  /** A fresh record of the kind; returns what a path names it by. */
  async make(kind: RecordKind, project?: number): Promise<string> {
    const label = `Hardening ${kind} ${this.org}-${++this.made}`;
    switch (kind) {
      case 'project':
        return String((await this.call('POST', apiPaths.projects(this.org), { title: label, address: `${this.made} Fixture Street` })).json.id);
      case 'contact':
        return String((await this.call('POST', apiPaths.contacts(this.org), { first_name: label, email: `fixture${this.made}.org${this.org}@example.com` })).json.id);
      case 'event':
        // A schedule entry (a start), so that its .ics download answers 200 to whoever may see it.
        return String((await this.call('POST', apiPaths.events(this.org), { title: label, project, start: '2027-01-04T09:00:00Z' })).json.id);
      case 'webhook':
        return String(
          (await this.call('POST', apiPaths.webhooks(this.org), { endpoint: `https://hooks.example.invalid/org${this.org}/${this.made}`, enabled: false, debug: false })).json.id,
        );
      case 'file': {
        const multipart = multipartBytes({ title: label }, { fileName: `fixture-${this.org}-${this.made}.txt`, bytes: Buffer.from(`${label}\n`) });
        return String((await this.send((token) => multipartRequest(apiPaths.privateFiles(this.org), token, multipart))).json.id);
      }
      case 'workflow':
        return String((await this.call('POST', apiPaths.workflows(this.org), { title: label, description: 'made by the hardening suite' })).json.id);
      case 'documentTemplate': {
        const documentType = FRESH_TEMPLATE_TYPES[this.templatesMade++];
        if (!documentType) throw new Error('the fixtures ran out of document types for fresh templates');
        return String((await this.call('POST', apiPaths.documentTemplates(this.org), { document_type: documentType, title: label })).json.id);
      }
      case 'connection': {
        // Every org asks Lapsed Solar (org 3), which can never answer: the request stays pending.
        return String((await this.call('POST', apiPaths.connectedOrgs(this.org), { org_name: 'Lapsed Solar' })).json.id);
      }
      case 'openUpload':
      case 'upload': {
        const upload = (await this.call('POST', apiPaths.fileUploads(this.org), { filename: `${label}.bin` })).json.upload_id as string;
        await this.send((token) => ({
          method: 'PUT',
          path: apiPaths.fileUploadPart(this.org, upload, 1),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
          body: Buffer.from(label),
        }));
        if (kind === 'upload') await this.call('POST', apiPaths.fileUploadComplete(this.org, upload));
        return upload;
      }
    }
  }

  /**
   * One row of the webhook log: a webhook on a loopback endpoint (refused by the
   * server's address guard at once, and logged) fired by a new contact, then
   * turned off.
   */
  async makeWebhookLog(): Promise<number> {
    const webhook = (await this.call('POST', apiPaths.webhooks(this.org), { endpoint: 'http://127.0.0.1:9/hardening-log', enabled: true, debug: false, trigger_fields: ['contact.*'] })).json
      .id as number;
    await this.make('contact');
    const deadline = Date.now() + STATE_HANG_GUARD_MS;
    try {
      for (;;) {
        const rows = (await this.call('GET', `${apiPaths.webhookProcessLogs(this.org)}?webhook=${encodeURIComponent(apiPaths.webhook(this.org, webhook))}`)).json as Array<{ id: number }>;
        if (rows[0]) return rows[0].id;
        if (Date.now() > deadline) throw new Error(`no webhook log row in org ${this.org} after ${STATE_HANG_GUARD_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await this.call('PATCH', apiPaths.webhook(this.org, webhook), { enabled: false });
    }
  }

  /**
   * One delivery waiting in the webhook queue: a webhook on a name that never
   * resolves, fired by a new contact and turned off at once, so its delivery stays
   * pending (a failed lookup is retried, never given up within the run).
   */
  async makeWebhookQueueEntry(): Promise<number> {
    const webhook = (await this.call('POST', apiPaths.webhooks(this.org), { endpoint: 'https://queue.hardening.invalid/hook', enabled: true, debug: false, trigger_fields: ['contact.*'] }))
      .json as { id: number; url: string };
    await this.make('contact');
    await this.call('PATCH', apiPaths.webhook(this.org, webhook.id), { enabled: false });
    const entries = (await this.call('GET', `${apiPaths.webhookQueueModels(this.org)}?limit=1000`)).json as Array<{ id: number; webhook: string }>;
    const entry = entries.find((candidate) => candidate.webhook === webhook.url);
    if (!entry) throw new Error(`no waiting delivery in org ${this.org}'s webhook queue`);
    return entry.id;
  }

  /** One record of each kind, plus the ids the org already has. */
  async makeAll(project: number): Promise<OrgRecords> {
    const org = (await this.call('GET', apiPaths.org(this.org))).json as { role_id: number };
    const role = (await this.call('GET', apiPaths.role(this.org, org.role_id))).json as { user: string };
    const systems = (await this.call('GET', apiPaths.systemDetails(this.org, project))).json as { systems: Array<{ uuid: string; id: number }> };
    if (!systems.systems[0]) throw new Error(`project ${project} of org ${this.org} has no system`);
    const file = Number(await this.make('file'));
    const link = new URL((await this.call('GET', apiPaths.privateFile(this.org, file))).json.file_contents as string);
    const newContents = multipartBytes({}, { fileName: `fixture-${this.org}-edited.txt`, bytes: Buffer.from(`edited in org ${this.org}\n`) });
    await this.send((token) => ({ ...multipartRequest(apiPaths.privateFileContents(this.org, file), token, newContents), method: 'PUT' }));
    const versions = (await this.call('GET', apiPaths.privateFileVersions(this.org, file))).json as Array<{ id: number }>;
    return {
      org: this.org,
      project,
      systemUuid: systems.systems[0].uuid,
      system: systems.systems[0].id,
      contact: Number(await this.make('contact')),
      role: org.role_id,
      user: Number(/(\d+)\/?$/.exec(role.user)![1]),
      event: Number(await this.make('event', project)),
      webhook: Number(await this.make('webhook')),
      webhookLog: await this.makeWebhookLog(),
      webhookQueueModel: await this.makeWebhookQueueEntry(),
      file,
      fileLink: `${link.pathname}${link.search}`,
      fileVersion: versions[0]!.id,
      connection: Number(await this.make('connection')),
      permissionsRole: (
        await this.call('POST', apiPaths.permissionsRoles(this.org), {
          role_type: 1,
          title: `Hardening partners ${this.org}`,
          permissions: JSON.stringify({ project: { project: { view: 1, create: 0, edit: 0, delete: 0 } } }),
        })
      ).json.id as number,
      upload: await this.make('upload'),
      workflow: Number(await this.make('workflow')),
      documentTemplate: (await this.call('POST', apiPaths.documentTemplates(this.org), { document_type: 'contract_only', title: `Hardening contract ${this.org}`, terms_text: 'Terms for {customer_name}.' })).json.id as number,
    };
  }
}

/** What an `{id}` names, by the path segment before it. */
const ID_KINDS: Record<string, keyof OrgRecords> = {
  projects: 'project',
  contacts: 'contact',
  roles: 'role',
  events: 'event',
  webhooks: 'webhook',
  webhook_process_logs: 'webhookLog',
  webhook_queue_models: 'webhookQueueModel',
  private_files: 'file',
  connected_orgs: 'connection',
  systems: 'system',
  workflows: 'workflow',
  permissions_role: 'permissionsRole',
  document_templates: 'documentTemplate',
};

/**
 * Values for every path parameter of the operation, from the org's records. A
 * parameter nobody taught this function gets "1" (it is still attacked; the
 * access matrix insists on an expectation of its own for every route).
 */
export function pathValues(operation: ApiOperation, records: OrgRecords): Record<string, string> {
  const values: Record<string, string> = {};
  const segments = operation.template.split('/');
  for (const name of operation.pathParams) {
    const before = segments[segments.indexOf(`{${name}}`) - 1] ?? '';
    const kind = name === 'id' ? ID_KINDS[before] : undefined;
    values[name] =
      name === 'org_id' ? String(records.org)
      : kind !== undefined ? String(records[kind])
      : name === 'user_id' ? String(records.user)
      : name === 'uuid' ? records.systemUuid
      : name === 'upload_id' ? records.upload
      : name === 'version_id' ? String(records.fileVersion)
      : name === 'iso2' ? 'AU'
      // Generated documents (issue 29): the type every org can make for a designed project.
      : name === 'document_type' ? 'proposal'
      // A country by its ISO 3166 numeric code (Australia), as the hosted service names it.
      : name === 'country' ? '36'
      // Bulk entity sharing (facts section 11): one of the documented entity types.
      : name === 'entity_type' ? 'pricing_schemes'
      // The hosted roof type catalogue starts at 6 (facts section 2): 19 is Tile Clay.
      : before === 'roof_types' ? '19'
      : '1';
  }
  return values;
}

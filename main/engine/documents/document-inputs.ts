// What a generated document is made from (issue 29): the project and its contacts,
// the decoded design's system and payment option, the org and its paper size, the
// language; and the record of them a saved document carries (`input_data`), whose
// hash says whether a saved document is still current.
import { createHash } from 'node:crypto';
import type { EngineContext } from '../context.ts';
import type { ContactRow, DocumentTemplateRow, OrgRow, ProjectRow } from '../store/tables.ts';
import { templateFor } from './document-templates.ts';
import type { DesignSystem, PaymentOption } from '../../../shared/design-types.ts';
import { chosenPaymentOption } from '../../../shared/design-figures.ts';
import { DOCUMENT_TYPES, paperSizeOf, type DocumentFormat, type DocumentType, type GenerateDocumentQuery, type PaperSize } from '../../../shared/documents.ts';
import { projectAnnualUsage } from '../../../shared/usage.ts';
import { fieldError, validationError } from '../http/errors.ts';
import { projectDigest } from '../designs/design-cache.ts';
import { loadProjectContacts } from '../contacts/contacts.ts';
import { parseAttributes } from '../projects/project-columns.ts';
import { orgCountry } from '../orgs/org-service.ts';

export interface DocumentInputs {
  type: DocumentType;
  format: DocumentFormat;
  org: OrgRow;
  project: ProjectRow & { design: string };
  attributes: Record<string, unknown>;
  contacts: ContactRow[];
  system: DesignSystem;
  /** The org's template the document is made with; null: the standard layout. */
  template: DocumentTemplateRow | null;
  /** Undefined only when the system has no payment options (the documents say so). */
  option: PaymentOption | undefined;
  annualUsageKwh: number;
  language: string;
  paper: PaperSize;
  /** The saved document's `input_data`, and its hash. */
  inputData: DocumentInputData;
  inputDataHash: string;
}

/** What a saved document was made from (its `input_data`). */
export interface DocumentInputData {
  document_type: DocumentType;
  file_format: DocumentFormat;
  project: number;
  system_uuid: string;
  payment_option_id: number | null;
  document_template: number | null;
  /** The template's modified date: a changed template makes a new document. */
  template_version: string | null;
  language: string;
  /** sha256 of the encoded design: any change of the design makes a new document. */
  design_version: string;
  /** sha256 of the system's prices, incentives and payment option, as printed. */
  prices_version: string;
  /** sha256 of the project's own facts the document prints (customer, site, usage, notes). */
  project_version: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A saved document's `input_data_hash`: the sha256 of its `input_data` as JSON (a file sent with both is checked by it). */
export const inputDataHashOf = (inputData: unknown): string => sha256(JSON.stringify(inputData));


/** The inputs of a document of `type` for the project, or a 400 that says what to send. */
export async function documentInputs(
  context: EngineContext,
  org: OrgRow,
  project: ProjectRow,
  type: DocumentType,
  query: GenerateDocumentQuery,
): Promise<DocumentInputs> {
  const formats: readonly DocumentFormat[] = DOCUMENT_TYPES[type].formats;
  const format = query.file_format ?? formats[0]!;
  if (!formats.includes(format)) {
    throw fieldError('file_format', `A ${type} document is made as ${formats.join(' or ')}; send file_format=${formats[0]} or leave it out.`);
  }
  const template = await templateFor(context, org.id, type, query.document_template_id);
  if (!project.design) throw validationError({ non_field_errors: ['This project has no design, so it has no system to make a document of. Design a system first.'] });
  const digest = await projectDigest(context, project);
  const systems = digest?.systems ?? [];
  if (systems.length === 0) throw validationError({ non_field_errors: ['This project has no system to make a document of. Design a system first.'] });
  const system = query.system_uuid === undefined ? (systems.find((candidate) => candidate.is_sold) ?? systems[0]!) : systems.find((candidate) => candidate.uuid === query.system_uuid);
  if (!system) {
    throw fieldError('system_uuid', `No system of this project has the uuid ${query.system_uuid}. Send one of: ${systems.map((candidate) => candidate.uuid).join(', ')}.`);
  }
  if (query.payment_option_id !== undefined && !system.payment_options.some((candidate) => candidate.id === query.payment_option_id)) {
    const ids = system.payment_options.map((candidate) => candidate.id);
    throw fieldError(
      'payment_option_id',
      ids.length === 0
        ? `The system "${system.name}" has no payment options; leave payment_option_id out.`
        : `The system "${system.name}" has no payment option ${query.payment_option_id}. Send one of: ${ids.join(', ')}.`,
    );
  }
  const option = chosenPaymentOption(system, query.payment_option_id ?? null);
  const attributes = parseAttributes(project.attributes);
  const contacts = (await loadProjectContacts(context.db, [project.id])).get(project.id) ?? [];
  const annualUsageKwh = projectAnnualUsage({
    usage: project.usage === null ? null : JSON.parse(project.usage),
    is_residential: project.is_residential === 1,
    utility_tariff_current_data: attributes.utility_tariff_current_data,
  });
  const language = query.language ?? 'en';
  const paper = paperSizeOf((await orgCountry(context, org.id)) ?? project.country_iso2);
  const projectFacts = {
    title: project.title,
    address: [project.address, project.locality, project.state, project.zip, project.country_iso2],
    contacts: contacts.map((contact) => [contact.first_name, contact.family_name, contact.email, contact.phone]),
    annualUsageKwh,
    notes: [attributes.notes ?? '', attributes.site_notes ?? ''],
    org: org.name,
    paper,
  };
  const inputData: DocumentInputData = {
    document_type: type,
    file_format: format,
    project: project.id,
    system_uuid: system.uuid,
    payment_option_id: option?.id ?? null,
    document_template: template?.id ?? null,
    template_version: template?.modified_date ?? null,
    language,
    design_version: sha256(project.design),
    prices_version: sha256(JSON.stringify([system.pricing, system.incentives, option ?? null])),
    project_version: sha256(JSON.stringify(projectFacts)),
  };
  return {
    type,
    format,
    org,
    project: { ...project, design: project.design },
    attributes,
    contacts,
    system,
    template,
    option,
    annualUsageKwh,
    language,
    paper,
    inputData,
    inputDataHash: inputDataHashOf(inputData),
  };
}

/** "Zoë Ngô" for the project's first contact, else the business name, else the project's title. */
export function customerName(inputs: Pick<DocumentInputs, 'contacts' | 'project'>): string {
  const contact = inputs.contacts[0];
  const name = contact ? `${contact.first_name} ${contact.family_name}`.trim() : '';
  return name || inputs.project.business_name || inputs.project.title;
}

/** The site's address on one line. */
export function siteAddress(project: ProjectRow): string {
  return [project.address, project.locality, [project.state, project.zip].filter(Boolean).join(' '), project.country_iso2].filter(Boolean).join(', ');
}

/** "proposal-0042-system-1.pdf": ASCII only, so every client reads the header. */
export function documentFileName(inputs: Pick<DocumentInputs, 'type' | 'format' | 'project' | 'system'>): string {
  const slug = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, '-')
      .slice(0, 40);
  const parts = [inputs.type.replaceAll('_', '-'), slug(inputs.project.identifier || String(inputs.project.id)), slug(inputs.system.name)].filter(Boolean);
  return `${parts.join('-')}.${inputs.format}`;
}

/** The file's title in the Files tab. */
export function documentTitle(inputs: Pick<DocumentInputs, 'type' | 'system'>): string {
  return `${DOCUMENT_TYPES[inputs.type].title}: ${inputs.system.name}`;
}

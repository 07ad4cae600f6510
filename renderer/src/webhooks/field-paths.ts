// Every documented webhook field path (service.md 6), for the trigger and payload
// pickers: each model's `model.*`, the default lists, and a path for each field
// the records carry. Built from the shared field tables, so it grows with them.
import {
  DETAIL_ONLY_FIELDS,
  LIST_FIELDSET,
  ROLE_REFERENCE_FIELDS,
  STORED_READ_ONLY_FIELDS,
  STUDIO_FIELDSET,
  WRITABLE_PLAIN_FIELDS,
} from '../../../shared/project-fields.ts';
import { contactWriteSchema } from '../../../shared/schemas/contact-write.ts';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS, WEBHOOK_MODELS, type WebhookModel } from '../../../shared/webhook-fields.ts';

const CONTACT_READ_FIELDS = ['id', 'url', 'org_id', 'display', 'user_id', 'created_date', 'modified_date'];
const EVENT_FIELDS = ['id', 'url', 'project', 'project_id', 'event_type', 'title', 'notes', 'user', 'created_date', 'modified_date'];

const projectFields = [
  ...Object.keys(WRITABLE_PLAIN_FIELDS),
  ...Object.keys(STORED_READ_ONLY_FIELDS),
  ...ROLE_REFERENCE_FIELDS,
  ...ROLE_REFERENCE_FIELDS.map((field) => `${field}_data`),
  ...LIST_FIELDSET,
  ...STUDIO_FIELDSET,
  ...DETAIL_ONLY_FIELDS,
  'contacts_data',
  'private_files_data',
  'usage',
];

export const DOCUMENTED_FIELD_PATHS: readonly string[] = [
  ...new Set([
    ...WEBHOOK_MODELS.map((model) => `${model}.*`),
    ...DEFAULT_TRIGGER_FIELDS,
    ...DEFAULT_PAYLOAD_FIELDS,
    ...projectFields.map((field) => `project.${field}`),
    ...[...Object.keys(contactWriteSchema.shape), ...CONTACT_READ_FIELDS].map((field) => `contact.${field}`),
    ...EVENT_FIELDS.map((field) => `event.${field}`),
  ]),
].sort();

/** null when the path names a known model and a field; otherwise why not. */
export function describePathProblem(path: string): string | null {
  const [model, ...rest] = path.trim().split('.');
  if (!WEBHOOK_MODELS.includes(model as WebhookModel)) return `A path starts with a model: ${WEBHOOK_MODELS.join(', ')}.`;
  if (rest.length === 0 || rest.some((segment) => segment === '')) return 'Write model.field, model.* or a deeper path such as project.systems.kw_stc.';
  return null;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The headers field: a JSON object of header names to string values. Returns the problems found. */
export function describeHeadersProblems(text: string): string[] {
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [`Not valid JSON: ${(error as Error).message}`];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return ['Write a JSON object, such as {"X-Api-Key": "abc"}.'];
  return Object.entries(parsed).flatMap(([name, value]) => [
    ...(HEADER_NAME.test(name) ? [] : [`"${name}" is not a valid header name.`]),
    ...(typeof value === 'string' ? [] : [`The value of "${name}" must be a string.`]),
  ]);
}

// A project as the API answers it (service.md 2.1), in its three fieldsets. Built
// from the field tables of shared/project-fields.ts, so a field is listed once:
// the detail holds every field in the order the engine writes them, and the list
// and studio fieldsets pick theirs, in their own order, from it.
import { z } from 'zod';
import {
  CUSTOMER_PROPOSAL_FLAGS,
  HOSTED_FIELD_NAMES,
  LIST_FIELDSET,
  ROLE_REFERENCE_FIELDS,
  ROLE_SUMMARY_PREFIXES,
  STORED_READ_ONLY_FIELDS,
  STUDIO_FIELDSET,
  WRITABLE_PLAIN_FIELDS,
  type FieldKind,
  type HostedFieldName,
  type PlainFieldSpec,
  type RoleReferenceField,
} from '../project-fields.ts';
import { USAGE_DATA_SOURCES, USAGE_ESTIMATES } from '../usage.ts';
import { contactJsonSchema } from './contact.ts';
import { eventJsonSchema } from './event.ts';
import { privateFileJsonSchema } from './private-file.ts';
import { roleJsonSchema } from './role.ts';

/** How each field kind reads in an answer (writes coerce: shared/schemas/coercing-fields.ts). */
const KIND_SCHEMAS = {
  string: () => z.string(),
  nullable_string: () => z.string().nullable(),
  number: () => z.number(),
  nullable_number: () => z.number().nullable(),
  integer: () => z.number().int(),
  nullable_integer: () => z.number().int().nullable(),
  boolean: () => z.boolean(),
  date: () => z.string(),
  nullable_date: () => z.string().nullable(),
  array: () => z.array(z.unknown()),
  nullable_object: () => z.record(z.string(), z.unknown()).nullable(),
  any: () => z.unknown(),
} as const satisfies Record<FieldKind, () => z.ZodType>;
type KindSchema<Kind extends FieldKind> = ReturnType<(typeof KIND_SCHEMAS)[Kind]>;

type PlainFieldShape<Fields extends Record<string, PlainFieldSpec>> = { [Field in keyof Fields]: KindSchema<Fields[Field]['kind']> };
function plainFieldShape<Fields extends Record<string, PlainFieldSpec>>(fields: Fields): PlainFieldShape<Fields> {
  return Object.fromEntries(Object.entries(fields).map(([field, spec]) => [field, KIND_SCHEMAS[spec.kind]()])) as PlainFieldShape<Fields>;
}

/** Each role reference, then its role: `assigned_role`, `assigned_role_data`, `assigned_installer_role`... */
type RoleReferenceShape = { [Field in RoleReferenceField]: z.ZodNullable<z.ZodString> } & {
  [Field in RoleReferenceField as `${Field}_data`]: z.ZodNullable<typeof roleJsonSchema>;
};
const roleReferenceShape = Object.fromEntries(
  ROLE_REFERENCE_FIELDS.flatMap((field) => [
    [field, z.string().nullable()],
    [`${field}_data`, roleJsonSchema.nullable()],
  ]),
) as RoleReferenceShape;

type RoleSummaryPrefix = (typeof ROLE_SUMMARY_PREFIXES)[number];
/** The flat `<prefix>_id/_name/_email/_phone` of the main roles, all null when the role is not assigned. */
type RoleSummaryShape = { [Prefix in RoleSummaryPrefix as `${Prefix}_id`]: z.ZodNullable<z.ZodNumber> } & {
  [Prefix in RoleSummaryPrefix as `${Prefix}_${'name' | 'email' | 'phone'}`]: z.ZodNullable<z.ZodString>;
};
const roleSummaryShape = Object.fromEntries(
  ROLE_SUMMARY_PREFIXES.flatMap((prefix) => [
    [`${prefix}_id`, z.number().int().nullable()],
    ...['name', 'email', 'phone'].map((part) => [`${prefix}_${part}`, z.string().nullable()]),
  ]),
) as RoleSummaryShape;

export const projectWorkflowJsonSchema = z.object({
  id: z.number().int(),
  workflow_id: z.number().int(),
  active_stage_id: z.number().int(),
});
export type ProjectWorkflowJson = z.infer<typeof projectWorkflowJsonSchema>;

export const usageJsonSchema = z.object({
  usage_data_source: z.enum(USAGE_DATA_SOURCES),
  values: z.union([z.number(), z.array(z.number()), z.enum(USAGE_ESTIMATES)]),
});

/** `customer_proposal_data`: null, or these flags (shared/project-fields.ts customerProposalData). */
export const customerProposalDataSchema = z
  .object(Object.fromEntries(CUSTOMER_PROPOSAL_FLAGS.map((flag) => [flag, z.boolean()])) as Record<(typeof CUSTOMER_PROPOSAL_FLAGS)[number], z.ZodBoolean>)
  .nullable()
  .describe('whether the proposal can reach the customer: derived from the contacts and systems on every read');

type HostedNameShape = { [Field in HostedFieldName]: KindSchema<(typeof STORED_READ_ONLY_FIELDS)[(typeof HOSTED_FIELD_NAMES)[Field]]['kind']> };
const hostedNameShape = Object.fromEntries(
  Object.entries(HOSTED_FIELD_NAMES).map(([hosted, ours]) => [hosted, KIND_SCHEMAS[STORED_READ_ONLY_FIELDS[ours].kind]().describe(`the hosted service's name of \`${ours}\` (same value, read-only)`)]),
) as HostedNameShape;

const projectDetailShape = {
  ...plainFieldShape(WRITABLE_PLAIN_FIELDS),
  ...plainFieldShape(STORED_READ_ONLY_FIELDS),
  ...hostedNameShape,
  customer_proposal_data: customerProposalDataSchema,
  country_iso2: z.string(),
  id: z.number().int(),
  url: z.string(),
  org_id: z.number().int(),
  org: z.string(),
  org_name: z.string(),
  country: z.string().nullable(),
  country_name: z.string(),
  roof_type: z.string().nullable(),
  created_date: z.string(),
  modified_date: z.string(),
  share_link: z.string().describe('a link that shows the project without signing in; "" for a connected org whose permissions role does not grant the design'),
  ...roleReferenceShape,
  ...roleSummaryShape,
  assigned_role_accreditation: z.string(),
  contacts: z.array(z.string()),
  contacts_data: z.array(contactJsonSchema),
  private_files: z.array(z.string()),
  private_files_data: z.array(privateFileJsonSchema),
  events: z.array(z.string()),
  events_data: z.array(eventJsonSchema),
  workflow: projectWorkflowJsonSchema,
  workflows: z.array(projectWorkflowJsonSchema),
  active_stage_id: z.number().int(),
  stage: z.number().int().describe(`deprecated: the milestone of the workflow's active stage`),
  stage_warning: z.string(),
  usage: usageJsonSchema.nullable(),
  usage_annual_or_guess: z.number(),
  design: z.string().nullable().describe("null unless the org's plan includes design data"),
};
type ProjectDetailShape = typeof projectDetailShape;
export type ProjectField = keyof ProjectDetailShape;

/** GET /projects/<id>/ and every write's answer: every field. */
export const projectDetailJsonSchema = z.object(projectDetailShape);
export type ProjectDetailJson = z.infer<typeof projectDetailJsonSchema>;

/** A fieldset's fields, in the fieldset's order (which is the order of its answers). */
function fieldsetShape<Field extends ProjectField>(fields: readonly Field[]): Pick<ProjectDetailShape, Field> {
  return Object.fromEntries(fields.map((field) => [field, projectDetailShape[field]])) as Pick<ProjectDetailShape, Field>;
}

/** GET /projects/ (and `fieldset=list`). */
export const projectListJsonSchema = z.object(fieldsetShape(LIST_FIELDSET));
export type ProjectListJson = z.infer<typeof projectListJsonSchema>;

/** GET /projects/?fieldset=studio: a row the project browser shows and filters without a detail fetch. */
export const projectStudioJsonSchema = z.object(fieldsetShape(STUDIO_FIELDSET));
export type ProjectStudioJson = z.infer<typeof projectStudioJsonSchema>;

export interface ProjectJsonByFieldset {
  detail: ProjectDetailJson;
  list: ProjectListJson;
  studio: ProjectStudioJson;
}

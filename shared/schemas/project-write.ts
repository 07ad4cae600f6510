// What a client may write to a project (POST, PATCH, PUT). Built from the field
// tables of shared/project-fields.ts; read-only and unknown keys are dropped, as DRF does.
import { z } from 'zod';
import { ROLE_REFERENCE_FIELDS, WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../project-fields.ts';
import { PROJECT_FIELD_RULES } from '../field-rules.ts';
import { describeUsageProblem, type Usage } from '../usage.ts';
import { integerField, schemaForKind } from './coercing-fields.ts';
import { contactWriteSchema } from './contact-write.ts';

const reference = () =>
  z.union([z.string(), z.number()], { error: 'Incorrect type. Expected URL string.' }).nullable();
const referenceList = () =>
  z.array(z.union([z.string(), z.number()]), { error: 'Expected a list of URLs.' });

const plainFieldSchemas = Object.fromEntries(
  Object.entries(WRITABLE_PLAIN_FIELDS).map(([field, spec]) => [field, schemaForKind(spec.kind).optional()]),
) as Record<WritablePlainField, z.ZodOptional<z.ZodType>>;

const roleReferenceSchemas = Object.fromEntries(ROLE_REFERENCE_FIELDS.map((field) => [field, reference().optional()])) as Record<
  (typeof ROLE_REFERENCE_FIELDS)[number],
  z.ZodOptional<ReturnType<typeof reference>>
>;

const projectRuleSchemas = Object.fromEntries(Object.entries(PROJECT_FIELD_RULES).map(([field, rule]) => [field, rule.optional()])) as {
  [Field in keyof typeof PROJECT_FIELD_RULES]: z.ZodOptional<(typeof PROJECT_FIELD_RULES)[Field]>;
};

export const usageSchema = z.unknown().superRefine((value, context) => {
  const problem = describeUsageProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
}) as unknown as z.ZodType<Usage>;

export const projectWriteSchema = z.object({
  ...plainFieldSchemas,
  // Null is taken as blank: a create without an identifier (absent, null or "") gets a generated one (hosted-docs-facts.md 10).
  identifier: schemaForKind('string')
    .nullable()
    .transform((identifier) => (identifier ?? '') as string)
    .optional(),
  ...roleReferenceSchemas,
  // The fields with a rule beyond their type (latitude in range, a known country...): shared/field-rules.ts.
  ...projectRuleSchemas,
  contacts: referenceList().optional(),
  contacts_new: z.array(contactWriteSchema, { error: 'Expected a list of contact objects.' }).optional(),
  private_files: referenceList().optional(),
  workflow: z
    .object(
      { workflow_id: integerField().optional(), active_stage_id: integerField() },
      { error: 'Expected an object {workflow_id, active_stage_id}.' },
    )
    .optional(),
  active_stage_id: integerField().optional(),
  usage: usageSchema.nullable().optional(),
});

export type ProjectWrite = z.output<typeof projectWriteSchema>;

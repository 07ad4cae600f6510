// GET /api/user_logins/?project_ids=... (facts section 12, hosted docs: Proposal Data):
// the proposal a customer is shown, per project, grouped by the project's org. The
// query, the answer and the nested `proposal_data` payload are defined once here: the
// engine's route is typed by them and the OpenAPI document shows them.
import { z } from 'zod';
import { booleanQueryParam } from './coercing-fields.ts';
import { contactJsonSchema } from './contact.ts';
import { roleJsonSchema } from './role.ts';
import { customerProposalDataSchema, usageJsonSchema } from './project.ts';

/** At most this many projects per request. */
export const MAX_PROPOSAL_PROJECTS = 100;

export const proposalDataQuerySchema = z.object({
  project_ids: z
    .string({ error: 'Name the projects: project_ids=<id>[,<id>...].' })
    .transform((text, ctx) => {
      const parts = text.split(',').map((part) => part.trim());
      const bad = parts.filter((part) => !/^\d{1,15}$/.test(part) || Number(part) === 0);
      if (parts.length === 0 || bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `Project ids are whole numbers separated by commas (project_ids=12,15); not ${bad.map((part) => JSON.stringify(part)).join(', ') || 'empty'}.` });
        return z.NEVER;
      }
      const ids = [...new Set(parts.map(Number))];
      if (ids.length > MAX_PROPOSAL_PROJECTS) {
        ctx.addIssue({ code: 'custom', message: `Ask for at most ${MAX_PROPOSAL_PROJECTS} projects at once; split the list into several requests.` });
        return z.NEVER;
      }
      return ids;
    })
    .describe('comma-separated project ids; the caller must reach every one'),
  expo_enabled: booleanQueryParam().describe('accepted for the hosted service\'s clients; SolarDesk has no Expo pages, so it changes nothing'),
  compress_data: booleanQueryParam().describe('true: each proposal_data is base64 of gzipped JSON (as `design` is), not an object'),
  include_unsold: booleanQueryParam().describe('true: every system of a sold project, not only the sold one (unsold projects always show every system)'),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/, 'Enter a language code such as en, en-AU or pt_BR.')
    .optional()
    .describe("the proposal's language; default the project's language_override, then its language, then en"),
});
export type ProposalDataQuery = z.output<typeof proposalDataQuerySchema>;

const componentSchema = z.object({ manufacturer_name: z.string(), code: z.string(), quantity: z.number() });

export const proposalPaymentOptionSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  payment_type: z.string(),
  payback_year: z.number().int().nullable(),
  net_present_value: z.number(),
  internal_rate_of_return: z.number().nullable(),
  cash_flows: z.array(z.number()).describe('index 0 the upfront payment (negative), then years 1-25'),
  utility_bill_savings_yearly: z.array(z.number()),
  quotation_lines: z.array(z.object({ title: z.string(), amount: z.number() })),
  featured_figures: z.array(z.object({ label: z.string(), value: z.number(), unit: z.string() })),
});

export const proposalSystemSchema = z.object({
  uuid: z.string(),
  id: z.number().int(),
  name: z.string(),
  is_sold: z.boolean(),
  kw_stc: z.number(),
  module_quantity: z.number().int(),
  battery_total_kwh: z.number(),
  price_including_tax: z.number(),
  price_excluding_tax: z.number(),
  tax: z.number(),
  output: z.object({ annual_kwh: z.number(), monthly_kwh: z.array(z.number()) }),
  consumption_annual_kwh: z.number(),
  consumption_offset_percentage: z.number().nullable().describe('output as a percentage of consumption; null without consumption'),
  bills: z.object({ annual_bill_before: z.number(), annual_bill_after: z.number(), currency: z.string() }),
  environmentals: z.object({ co2_tonnes_per_year: z.number(), trees_equivalent: z.number(), cars_off_road: z.number() }),
  modules: z.array(componentSchema),
  inverters: z.array(componentSchema),
  batteries: z.array(componentSchema),
  others: z.array(componentSchema),
  payment_options: z.array(proposalPaymentOptionSchema),
});

/** The nested proposal payload: the systems the customer is shown, with prices, output and payment options. */
export const proposalDataSchema = z.object({
  language: z.string(),
  currency: z.string().nullable().describe("the systems' bill currency (ISO 4217); null without a design"),
  systems: z.array(proposalSystemSchema),
});
export type ProposalData = z.infer<typeof proposalDataSchema>;

export const proposalProjectSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  identifier: z.string(),
  title: z.string(),
  address: z.string(),
  locality: z.string(),
  state: z.string(),
  zip: z.string(),
  county: z.string().nullable(),
  country_iso2: z.string(),
  lat: z.number().nullable(),
  lon: z.number().nullable(),
  contacts: z.array(contactJsonSchema),
  assigned_role: roleJsonSchema.nullable(),
  usage: usageJsonSchema.nullable(),
  system_sold: z.unknown(),
  payment_option_sold: z.unknown(),
  testimonials: z.array(z.unknown()),
  available_customer_actions: z.array(z.unknown()),
  change_orders: z.array(z.unknown()).describe('always empty: SolarDesk has no change orders'),
  custom_data: z.record(z.string(), z.unknown()).nullable(),
  customer_proposal_data: customerProposalDataSchema,
  proposal_data: z.union([proposalDataSchema, z.string().describe('compress_data=true: base64 of gzipped JSON')]),
});
export type ProposalProjectJson = z.infer<typeof proposalProjectSchema>;

export const proposalOrgSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  name: z.string(),
  country_iso2: z.string().nullable().describe("the country most of the org's projects are in; null when none has one"),
  user: z.string().describe('the caller, as /api/global_users/<id>/'),
  logo_public_url: z.string().nullable().describe('always null: SolarDesk keeps no org logos'),
  projects: z.array(proposalProjectSchema),
});
export type ProposalOrgJson = z.infer<typeof proposalOrgSchema>;

export const proposalDataResponseSchema = z.array(proposalOrgSchema);

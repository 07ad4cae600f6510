// The project resource's fields (service.md 2.1), in one place. The engine's
// write schema, its serializer, the list fieldsets and the renderer's editors all
// read these tables, so a field is added or retyped here and nowhere else.

/** How a plain field is typed in responses, and so how a write is coerced. */
export type FieldKind =
  | 'string'
  | 'nullable_string'
  | 'number'
  | 'nullable_number'
  | 'integer'
  | 'nullable_integer'
  | 'boolean'
  | 'date'
  | 'nullable_date'
  | 'array'
  | 'nullable_object'
  | 'any';

export interface PlainFieldSpec {
  readonly kind: FieldKind;
  /** The value a project has before anyone sets the field. */
  readonly default: unknown;
}

/**
 * Writable fields that hold a plain value: the write schema coerces each by its
 * kind (compatibility.md: "lat": "35.12", "is_residential": "1"), and the
 * serializer returns the stored value or the default.
 */
export const WRITABLE_PLAIN_FIELDS = {
  identifier: { kind: 'string', default: '' },
  title: { kind: 'string', default: '' },
  address: { kind: 'string', default: '' },
  locality: { kind: 'string', default: '' },
  county: { kind: 'nullable_string', default: null },
  state: { kind: 'string', default: '' },
  zip: { kind: 'string', default: '' },
  lat: { kind: 'nullable_number', default: null },
  lon: { kind: 'nullable_number', default: null },
  timezone_offset: { kind: 'number', default: 0 },
  business_name: { kind: 'nullable_string', default: null },
  business_identifier: { kind: 'string', default: '' },
  parcel_identifier: { kind: 'string', default: '' },
  meter_identifier: { kind: 'string', default: '' },
  is_residential: { kind: 'boolean', default: true },
  number_of_phases: { kind: 'nullable_integer', default: null },
  number_of_wires: { kind: 'nullable_integer', default: null },
  number_of_storeys: { kind: 'nullable_integer', default: null },
  wind_region: { kind: 'any', default: null },
  has_cellular_coverage: { kind: 'integer', default: 0 },
  contract_date: { kind: 'nullable_date', default: null },
  installation_date: { kind: 'nullable_date', default: null },
  sold_date: { kind: 'nullable_date', default: null },
  valid_until_date: { kind: 'nullable_date', default: null },
  project_sold: { kind: 'any', default: null },
  project_installed: { kind: 'any', default: null },
  system_sold: { kind: 'any', default: null },
  system_installed: { kind: 'any', default: null },
  payment_option_sold: { kind: 'any', default: null },
  is_pricing_locked: { kind: 'boolean', default: false },
  is_lite: { kind: 'boolean', default: false },
  simulate_first_year_only: { kind: 'boolean', default: false },
  auto_apply_max_simulate_years: { kind: 'boolean', default: false },
  allow_email_notifications: { kind: 'boolean', default: true },
  priority: { kind: 'integer', default: 2 },
  stars: { kind: 'array', default: [] },
  shared_with: { kind: 'array', default: [] },
  tags: { kind: 'array', default: [] },
  testimonials: { kind: 'array', default: [] },
  years_to_simulate: { kind: 'integer', default: 20 },
  contract_template_mode: { kind: 'string', default: 'payment-option' },
  language: { kind: 'nullable_string', default: null },
  language_override: { kind: 'nullable_string', default: null },
  notes: { kind: 'string', default: '' },
  site_notes: { kind: 'string', default: '' },
  lead_source: { kind: 'string', default: '' },
  proposal_message: { kind: 'string', default: '' },
  proposal_content: { kind: 'string', default: '' },
  contract_terms: { kind: 'string', default: '' },
  serial_numbers_panels: { kind: 'string', default: '' },
  serial_numbers_inverters: { kind: 'string', default: '' },
  serial_numbers_batteries: { kind: 'string', default: '' },
  custom_project_info_1: { kind: 'string', default: '' },
  custom_project_info_2: { kind: 'string', default: '' },
  custom_project_info_3: { kind: 'string', default: '' },
  custom_project_info_4: { kind: 'string', default: '' },
  custom_project_info_5: { kind: 'string', default: '' },
  custom_data: { kind: 'nullable_object', default: null },
  utility_tariff_current: { kind: 'nullable_string', default: null },
  utility_tariff_proposed: { kind: 'nullable_string', default: null },
  utility_tariff_current_custom: { kind: 'nullable_string', default: null },
  utility_tariff_proposed_custom: { kind: 'nullable_string', default: null },
  temperature_min_override: { kind: 'nullable_number', default: null },
  temperature_max_override: { kind: 'nullable_number', default: null },
  federal_income_tax_rate_percentage: { kind: 'nullable_number', default: null },
  state_income_tax_rate_percentage: { kind: 'nullable_number', default: null },
  power_factor: { kind: 'nullable_number', default: null },
} as const satisfies Record<string, PlainFieldSpec>;

export type WritablePlainField = keyof typeof WRITABLE_PLAIN_FIELDS;

/**
 * How the project editor shows a field where its kind alone would say wrong:
 * an integer that is a yes/no flag, an object edited as named values, and values
 * the service does not document beyond "null or value" (service.md 2.1) or that
 * are set elsewhere, shown read-only with the reason. Every other field gets the
 * control of its kind (switch, number, date, text).
 */
export type FieldEditing =
  | { readonly control: 'flag' }
  | { readonly control: 'named_values' }
  | { readonly control: 'read_only'; readonly reason: string };

const SET_WHEN_SOLD = 'Set by the proposal when the customer signs it.';
const SET_WHEN_INSTALLED = 'Set when the installation is recorded as done.';

export const FIELD_EDITING: Partial<Record<WritablePlainField, FieldEditing>> = {
  // service.md 2.1: an integer, used as 0 = no, 1 = yes.
  has_cellular_coverage: { control: 'flag' },
  custom_data: { control: 'named_values' },
  wind_region: {
    control: 'read_only',
    reason: 'Worked out from the site’s location by the office’s online account; SolarDesk keeps it as it is.',
  },
  project_sold: { control: 'read_only', reason: SET_WHEN_SOLD },
  project_installed: { control: 'read_only', reason: SET_WHEN_INSTALLED },
  system_sold: { control: 'read_only', reason: SET_WHEN_SOLD },
  system_installed: { control: 'read_only', reason: SET_WHEN_INSTALLED },
  payment_option_sold: { control: 'read_only', reason: SET_WHEN_SOLD },
  stars: { control: 'read_only', reason: 'Each person stars projects for themselves in the office’s online account.' },
  shared_with: { control: 'read_only', reason: 'Share with partner companies from the Share… button at the top of the project.' },
  tags: { control: 'read_only', reason: 'Tags are picked from your office’s tag list in its online account.' },
  testimonials: { control: 'read_only', reason: 'Testimonials are picked from your office’s testimonials in its online account.' },
};

/**
 * Read-only fields whose values come from elsewhere (a design import, the hosted
 * service's own features) and are stored as given. A client write to them is
 * ignored, as DRF ignores read-only fields.
 */
export const STORED_READ_ONLY_FIELDS = {
  contract: { kind: 'any', default: null },
  tags_data: { kind: 'array', default: [] },
  testimonials_data: { kind: 'array', default: [] },
  transactions_data: { kind: 'array', default: [] },
  lender_role_connection_status: { kind: 'string', default: 'connection_missing' },
  marketplace_project_id: { kind: 'nullable_string', default: null },
  esign_contract_envelope_id: { kind: 'nullable_string', default: null },
  access: { kind: 'integer', default: 1 },
  last_calculation_error: { kind: 'any', default: null },
  actions: { kind: 'array', default: [] },
  available_customer_actions: { kind: 'array', default: [] },
  systems: { kind: 'array', default: [] },
  configuration: { kind: 'any', default: null },
  configuration_override: { kind: 'any', default: null },
  costing: { kind: 'any', default: null },
  costing_override: { kind: 'any', default: null },
  proposal_template: { kind: 'any', default: null },
  proposal_template_settings: { kind: 'any', default: null },
  premium_imagery_activations: { kind: 'array', default: [] },
  activated_premium_imagery_wallet_product_ids: { kind: 'array', default: [] },
  utility_tariff_current_data: { kind: 'nullable_object', default: null },
  utility_tariff_proposed_data: { kind: 'nullable_object', default: null },
  utility_tariff_current_guess: { kind: 'any', default: {} },
  utility_tariff_or_guess: { kind: 'any', default: {} },
  utility_tariff_proposed_or_guess: { kind: 'any', default: {} },
  temperature_min_max: { kind: 'array', default: [] },
} as const satisfies Record<string, PlainFieldSpec>;

export type StoredReadOnlyField = keyof typeof STORED_READ_ONLY_FIELDS;

/**
 * The hosted service's names of three stored fields (hosted docs: Projects; facts
 * section 15), each shown beside ours with the same value. They are read-only under
 * both names, as ours always were: a write to either is ignored. A remote that sends
 * only the hosted name (the hosted service) fills ours (main/sync/models/project.ts).
 */
export const HOSTED_FIELD_NAMES = {
  docusign_contract_envelope_id: 'esign_contract_envelope_id',
  greenlancer_project_id: 'marketplace_project_id',
  brighte_role_connection_status: 'lender_role_connection_status',
} as const satisfies Record<string, StoredReadOnlyField>;
export type HostedFieldName = keyof typeof HOSTED_FIELD_NAMES;

/**
 * `customer_proposal_data` (hosted docs: Projects): whether the project's proposal can
 * reach its customer, derived from the project on every read, never stored.
 * - has_contacts_active: a contact on the project has an email address (can be sent the proposal);
 * - has_contacts_active_with_login: one of those has a user login (contacts.user_id, or a
 *   user with the contact's email: main/engine/contacts/contact-logins.ts);
 * - has_customer_view: the project has a design with systems (a proposal to show);
 * - has_customer_view_system: one of its systems has a price (what the customer is shown);
 * - ready: has_contacts_active and has_customer_view_system.
 */
export const CUSTOMER_PROPOSAL_FLAGS = [
  'has_contacts_active',
  'has_contacts_active_with_login',
  'has_customer_view',
  'has_customer_view_system',
  'ready',
] as const;
export type CustomerProposalData = Record<(typeof CUSTOMER_PROPOSAL_FLAGS)[number], boolean>;

/** The flags from what a project holds: its contacts (email, login) and its systems summary. */
export function customerProposalData(
  contacts: ReadonlyArray<{ email: string; hasLogin: boolean }>,
  systems: unknown,
): CustomerProposalData {
  const active = contacts.filter((contact) => contact.email.trim() !== '');
  const systemList = Array.isArray(systems) ? (systems as unknown[]) : [];
  const priced = systemList.some((system) => {
    const price = (system as { price_including_tax?: unknown } | null)?.price_including_tax;
    return typeof price === 'number' && price > 0;
  });
  return {
    has_contacts_active: active.length > 0,
    has_contacts_active_with_login: active.some((contact) => contact.hasLogin),
    has_customer_view: systemList.length > 0,
    has_customer_view_system: priced,
    ready: active.length > 0 && priced,
  };
}

/** References to the org's roles. The first three are the documented writable ones. */
export const ROLE_REFERENCE_FIELDS = [
  'assigned_role',
  'assigned_installer_role',
  'assigned_site_inspector_role',
  'assigned_designer_role',
  'assigned_salesperson_role',
] as const;
export type RoleReferenceField = (typeof ROLE_REFERENCE_FIELDS)[number];

/** Roles that also get flat `<prefix>_id/_name/_email/_phone` summaries. */
export const ROLE_SUMMARY_PREFIXES = [
  'assigned_role',
  'assigned_designer_role',
  'assigned_salesperson_role',
] as const satisfies readonly RoleReferenceField[];

/** Returned only on single-project retrieval (service.md 2.1, "Design, systems and pricing"). */
export const DETAIL_ONLY_FIELDS = [
  'events',
  'events_data',
  'actions',
  'available_customer_actions',
  'systems',
  'configuration',
  'configuration_override',
  'costing',
  'costing_override',
  'proposal_template',
  'proposal_template_settings',
  'premium_imagery_activations',
  'activated_premium_imagery_wallet_product_ids',
  'design',
] as const;

/** `fieldset=list` (and the list default): exactly service.md's list fieldset. */
export const LIST_FIELDSET = [
  'id',
  'title',
  'contacts_data',
  'business_name',
  'address',
  'url',
  'contacts',
  'priority',
  'stars',
  'stage',
  'org_id',
  'is_lite',
  'modified_date',
  'created_date',
  'shared_with',
  'org_name',
  'customer_proposal_data',
  'workflow',
  'custom_data',
] as const;

/** `fieldset=studio`: what a project browser needs to show and filter a row without a detail fetch. */
export const STUDIO_FIELDSET = [
  ...LIST_FIELDSET,
  'identifier',
  'locality',
  'county',
  'state',
  'zip',
  'country_iso2',
  'country_name',
  'lat',
  'lon',
  'is_residential',
  'notes',
  'lead_source',
  'active_stage_id',
  'stage_warning',
  'assigned_role',
  'assigned_role_id',
  'assigned_role_name',
  'assigned_installer_role',
  'assigned_site_inspector_role',
  'assigned_designer_role',
  'assigned_salesperson_role',
  'usage',
  'usage_annual_or_guess',
  'installation_date',
  'sold_date',
  'private_files',
] as const;

export const STAGE_WARNING =
  'The stage field is deprecated. It now carries the workflow milestone id; manage the stage with workflow.active_stage_id.';

/** Legacy stage values (service.md section 3): the milestone a workflow stage belongs to. */
export const MILESTONES = [
  { id: 0, title: 'Presale' },
  { id: 1, title: 'Lock Pricing' },
  { id: 2, title: 'Sold' },
  { id: 3, title: 'Installed' },
  { id: 4, title: 'Others' },
] as const;

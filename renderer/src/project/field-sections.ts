// How the editor groups the writable fields of shared/project-fields.ts. Any field
// added there and not placed here still appears, under "Other fields", so the
// editor always covers every writable field.
import { WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../../shared/project-fields.ts';

export interface FieldSection {
  title: string;
  fields: WritablePlainField[];
  /** Sections that most people rarely need start folded. */
  isFolded?: boolean;
}

/** Long text gets a text area. */
export const MULTILINE_FIELDS: ReadonlySet<WritablePlainField> = new Set([
  'notes',
  'site_notes',
  'proposal_message',
  'proposal_content',
  'contract_terms',
  'serial_numbers_panels',
  'serial_numbers_inverters',
  'serial_numbers_batteries',
]);

const PLACED: FieldSection[] = [
  { title: 'Project', fields: ['title', 'identifier', 'priority', 'is_residential', 'lead_source', 'business_name', 'business_identifier'] },
  { title: 'Location', fields: ['address', 'locality', 'county', 'state', 'zip', 'lat', 'lon', 'timezone_offset'] },
  { title: 'Notes', fields: ['notes', 'site_notes'] },
  { title: 'Site', fields: ['number_of_phases', 'number_of_wires', 'number_of_storeys', 'has_cellular_coverage', 'wind_region', 'parcel_identifier', 'meter_identifier'] },
  { title: 'Dates and sale', fields: ['contract_date', 'sold_date', 'installation_date', 'valid_until_date', 'project_sold', 'project_installed', 'system_sold', 'system_installed', 'payment_option_sold', 'is_pricing_locked'] },
  { title: 'Energy and tariff', fields: ['utility_tariff_current', 'utility_tariff_proposed', 'utility_tariff_current_custom', 'utility_tariff_proposed_custom', 'temperature_min_override', 'temperature_max_override', 'power_factor', 'federal_income_tax_rate_percentage', 'state_income_tax_rate_percentage', 'years_to_simulate', 'simulate_first_year_only', 'auto_apply_max_simulate_years'], isFolded: true },
  { title: 'Proposal', fields: ['proposal_message', 'proposal_content', 'contract_terms', 'contract_template_mode', 'language', 'language_override', 'allow_email_notifications', 'is_lite'], isFolded: true },
  { title: 'Serial numbers', fields: ['serial_numbers_panels', 'serial_numbers_inverters', 'serial_numbers_batteries'], isFolded: true },
  { title: 'Custom fields', fields: ['custom_project_info_1', 'custom_project_info_2', 'custom_project_info_3', 'custom_project_info_4', 'custom_project_info_5', 'custom_data'], isFolded: true },
  { title: 'Lists', fields: ['tags', 'stars', 'shared_with', 'testimonials'], isFolded: true },
];

const placed = new Set(PLACED.flatMap((section) => section.fields));
const unplaced = (Object.keys(WRITABLE_PLAIN_FIELDS) as WritablePlainField[]).filter((field) => !placed.has(field));

export const FIELD_SECTIONS: readonly FieldSection[] = unplaced.length > 0 ? [...PLACED, { title: 'Other fields', fields: unplaced, isFolded: true }] : PLACED;

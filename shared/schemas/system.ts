// The systems resource (hosted-docs-facts.md section 1) and the parts of a system
// in systems/details (section 5), as the API answers them. One place for the
// shapes, so the engine's answers and the OpenAPI document agree.
import { z } from 'zod';

/** A component line: what every part list (modules, inverters, batteries, others) carries. */
export const componentJsonSchema = z
  .object({ manufacturer_name: z.string(), code: z.string(), quantity: z.number() })
  .catchall(z.unknown());
export type ComponentJson = z.infer<typeof componentJsonSchema>;

/** `modules` of a system row: the component line and the org's module activation (null: SolarDesk keeps no activations). */
export const systemModuleJsonSchema = z.object({
  module_activation_id: z.number().int().nullable(),
  code: z.string(),
  manufacturer_name: z.string(),
  quantity: z.number(),
});

/** One row of GET .../systems/?fieldset=list, and GET .../systems/<id>/?fieldset=list. */
export const systemListJsonSchema = z.object({
  id: z.number().int().describe("the same id systems/details gives: the project's id x 1000 + the system's number in its design"),
  url: z.string(),
  name: z.string(),
  uuid: z.string().describe('the same uuid as in systems/details and the image path'),
  order: z.number().int().describe("the system's place in the design, from 0"),
  system_lifetime: z.number().int().describe('years the figures cover'),
  inverter_range: z.number().nullable().describe('DC/AC ratio in percent (null without inverters)'),
  dc_optimizer_active: z.boolean(),
  dc_optimizer_efficiency: z.number().nullable(),
  show_customer: z.boolean(),
  is_current: z.boolean(),
  auto_string: z.boolean(),
  discount: z.number(),
  adders_per_system: z.number(),
  adders_per_panel: z.number(),
  adders_per_watt: z.number(),
  kw_stc: z.number(),
  battery_total_kwh: z.number(),
  price_including_tax: z.number(),
  price_excluding_tax: z.number(),
  net_profit: z.number(),
  module_quantity: z.number().int(),
  co2_tons_lifetime: z.number(),
  project: z.string().describe('URL of the project'),
  org: z.string().describe('URL of the org'),
  pricing_scheme: z.string().nullable().describe('URL of the pricing scheme; null: SolarDesk keeps none'),
  output_annual_kwh: z.number(),
  consumption_offset_percentage: z.number().nullable(),
  modules: z.array(systemModuleJsonSchema),
  inverters: z.array(componentJsonSchema),
  batteries: z.array(componentJsonSchema),
  others: z.array(componentJsonSchema),
});
export type SystemListJson = z.infer<typeof systemListJsonSchema>;

/** systems/details `incentives`: one entry per incentive, to the customer or to the installer. */
export const systemIncentiveJsonSchema = z.object({ paid_to_customer: z.boolean(), value: z.number(), title: z.string() });
export type SystemIncentiveJson = z.infer<typeof systemIncentiveJsonSchema>;

/** systems/details `adders`: a discount has a negative total_value; a pure cost has total_value 0 and a positive total_cost. */
export const systemAdderJsonSchema = z.object({
  label: z.string(),
  total_value: z.number(),
  total_cost: z.number(),
  show_customer: z.boolean(),
  quantity: z.number(),
});
export type SystemAdderJson = z.infer<typeof systemAdderJsonSchema>;

/** systems/details `module_groups`. */
export const systemModuleGroupJsonSchema = z.object({
  module_quantity: z.number().int(),
  azimuth: z.number(),
  slope: z.number(),
  layout: z.enum(['portrait', 'landscape']),
});
export type SystemModuleGroupJson = z.infer<typeof systemModuleGroupJsonSchema>;

/** `data.mcs`: the MCS text fields (strings, as the MCS forms take them). */
export const systemMcsJsonSchema = z.object({
  panel_groups: z.array(z.object({ module_quantity: z.string(), azimuth: z.string(), tilt: z.string() })),
  postcode_region: z.string(),
  specific_yield: z.string().describe('kWh per kWp a year'),
  shading_factor: z.string(),
  occupancy: z.string(),
});
export type SystemMcsJson = z.infer<typeof systemMcsJsonSchema>;

/** One entry of systems/details (compatibility.md "Systems" lists the keys clients need). */
export const systemDetailsEntryJsonSchema = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    url: z.string(),
    name: z.string(),
    is_sold: z.boolean(),
    kw_stc: z.number(),
    total_module_quantity: z.number(),
    output_annual_kwh: z.number(),
    price_including_tax: z.number(),
    modules: z.array(componentJsonSchema),
    inverters: z.array(componentJsonSchema),
    batteries: z.array(componentJsonSchema),
    other_components: z.array(componentJsonSchema),
    adders: z.array(systemAdderJsonSchema),
    module_groups: z.array(systemModuleGroupJsonSchema),
    incentives: z.array(systemIncentiveJsonSchema),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the system's data (its custom data and `mcs`), cut by include_parts / exclude_parts; Raw Data API Access only"),
  });

export const systemDetailsJsonSchema = z.object({ systems: z.array(systemDetailsEntryJsonSchema) });
export type SystemDetailsJson = z.infer<typeof systemDetailsJsonSchema>;

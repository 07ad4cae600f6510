// Deterministic demo projects, the seed generator's entry point: a project record
// (project-records.ts) and, unless turned off, its design (project-design.ts), each
// from its own stream of the seed so turning the design off leaves the project
// unchanged. Same (seed, index, options) => byte-identical output: no Math.random,
// no clock (seeded-random.ts). Demo databases, tests and benchmarks all use it.
import type { ProjectDesign } from '../../../shared/design-types.ts';
import type { Country } from './country-economics.ts';
import { generateDesign } from './project-design.ts';
import { generateProjectRecord, type GeneratedProject, type ProjectSite } from './project-records.ts';
import { COUNTRY_STREAMS, DESIGN_STREAM, mixSeed, Rng, SOLD_SYSTEM_STREAM } from './seeded-random.ts';

export interface ProjectOptions {
  /** Default true. */
  withDesign?: boolean;
  /** Default 'AU'. */
  country?: Country;
}

export function generateProject(seed: number, index: number, options: ProjectOptions = {}): GeneratedProject {
  const { project, site } = generateProjectRecord(seed, index, options.country ?? 'AU');
  if (options.withDesign ?? true) project.design = designForProject(seed, index, project, site);
  return project;
}

/** The design at the project's site, sized to its use; once sold, one of its systems is marked sold. */
function designForProject(seed: number, index: number, project: GeneratedProject, site: ProjectSite): ProjectDesign {
  const countryStream = COUNTRY_STREAMS[project.country_iso2];
  const designSeed = mixSeed(seed, index, DESIGN_STREAM, countryStream);
  const sizing = new Rng(mixSeed(seed, index, SOLD_SYSTEM_STREAM, countryStream));
  const design = generateDesign(designSeed, {
    origin: { lat: project.lat, lon: project.lon, elevation_m: site.elevation },
    country: project.country_iso2,
    annualConsumptionKwh: site.annualKwh,
    storeys: site.storeys,
    tariff: {
      pricePerKwh: site.utility.energy_rate_per_kwh,
      feedInPerKwh: site.utility.feed_in_rate_per_kwh,
      fixedChargePerMonth: site.utility.fixed_charge_per_month,
    },
    ...(project.is_residential ? {} : { panelsPerSystem: sizing.int(40, 150) }),
  });
  if (project.sold_date !== null) {
    const sold = sizing.pick(design.systems);
    sold.is_sold = true;
  }
  return design;
}

// The file tag catalogue (hosted-docs-facts.md section 8): one list of tags shared by
// every org, each at `/api/file_tags/<id>/`. The ids are SolarDesk's (the hosted
// pages give titles, not ids): 1 to 50 in the catalogue's order, fixed forever, since
// stored files and sync bases name tags by id. Tags an org makes itself
// (POST /api/orgs/<org>/file_tags/, SolarDesk's extension) get ids from
// ORG_TAG_FIRST_ID up, never inside the catalogue's range. Store migration 0016
// moved the tags of older stores here (docs/files.md, "File tags").

/** Files with this tag also need the projects_export permission (compared without case). */
export const EXPORT_TAG_TITLE = 'Projects Export';
/** The tag of the private file a system image request creates. */
export const SYSTEM_IMAGE_TAG_TITLE = 'System Image';

const CATALOGUE_TITLES = [
  'AC Disconnect Location',
  'Accepted',
  'Bill Calculations Report',
  'Calculation Data',
  'Change Order',
  'Compliance - Assignment Form (CER-RET-016)',
  'Compliance - Compulsory written statements (CER-RET-014)',
  'Compliance - Connection Form',
  'Compliance - Electrical Compliance',
  'Compliance - Onsite Verification (CER-RET-015)',
  'Compliance - Other Document',
  'Custom Form Image',
  'Design Artifact',
  'Design Backup',
  'Energy Generation Report (Lite)',
  'Extra File',
  'Financials Report',
  'Horizon Shading Data',
  'Interval Data',
  'Inverter Location',
  'Mounting Plane Drawing',
  'Mounting Plane Photo',
  "Owner's Manual",
  "Owner's Manual - Array Mounting Certificate",
  "Owner's Manual - Connection Diagram",
  "Owner's Manual - Equipment Documentation",
  "Owner's Manual - Extra File",
  "Owner's Manual - Post-Install Photograph",
  "Owner's Manual - Pre Commissioning Test",
  "Owner's Manual - Test and Commission",
  "Owner's Manual Template - Cover Image",
  "Owner's Manual Template - Symbols",
  'Parcel Data',
  'Project Thumbnail',
  EXPORT_TAG_TITLE,
  'Roof Plan',
  'Sales Proposal',
  'Sales Proposal - Equipment Documentation',
  'Sales Proposal - Extra File',
  'Screenshot',
  'Sent to Lender',
  'Single Line Diagram',
  'Site - Assessment Form',
  'Site - Extra File',
  'Site - Photo',
  'Site - Utility Bill',
  'Site Model',
  'Solar Panelboard Location',
  'Solar Production 8760',
  'System Contract',
  SYSTEM_IMAGE_TAG_TITLE,
  'System Performance 8760',
  'User Feedback',
] as const;

export type CatalogueTagTitle = (typeof CATALOGUE_TITLES)[number];

/** The catalogue: ids 1.. in the hosted pages' order. */
export const FILE_TAG_CATALOGUE: readonly { readonly id: number; readonly title: CatalogueTagTitle }[] = CATALOGUE_TITLES.map((title, index) => ({ id: index + 1, title }));

/** The first id an org's own tag may get: room for the catalogue to grow below it. */
export const ORG_TAG_FIRST_ID = 1001;

/** Every catalogue tag has type "private" (hosted docs: File Tags). */
export const FILE_TAG_TYPE = 'private';

export const isCatalogueTagId = (id: number): boolean => id >= 1 && id < ORG_TAG_FIRST_ID;

export function findCatalogueTag(id: number) {
  return FILE_TAG_CATALOGUE.find((tag) => tag.id === id);
}

/** The catalogue tag with this title, compared without case. */
export function findCatalogueTagByTitle(title: string) {
  const wanted = title.trim().toLowerCase();
  return FILE_TAG_CATALOGUE.find((tag) => tag.title.toLowerCase() === wanted);
}

/** The id of a catalogue title the code names (a typo fails at start, not silently). */
export function catalogueTagId(title: CatalogueTagTitle): number {
  const tag = findCatalogueTagByTitle(title);
  if (!tag) throw new Error(`No file tag "${title}" in the catalogue.`);
  return tag.id;
}

export const isExportTag = (title: string): boolean => title.toLowerCase() === EXPORT_TAG_TITLE.toLowerCase();

/**
 * The tags SolarDesk made for every org before issue 16, and the catalogue tag each
 * became (store migration 0016; docs/files.md "File tags"). Any other title an org
 * had is kept as that org's own tag, or joins the catalogue tag of the same title.
 */
export const PRE_CATALOGUE_TAGS: Readonly<Record<string, CatalogueTagTitle>> = {
  export: EXPORT_TAG_TITLE,
  photo: 'Site - Photo',
  bill: 'Site - Utility Bill',
  contract: 'System Contract',
  'system image': SYSTEM_IMAGE_TAG_TITLE,
};

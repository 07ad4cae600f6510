// The roof types a project's `roof_type` URL may name (GET /api/roof_types/): the
// hosted service's catalogue, ids 6 to 24 (hosted-docs-facts.md section 2). Ids 1
// to 5 name nothing. Stores made before issue 16 used ids 1 to 8 with other
// meanings; store migration 0016 maps them (docs/store.md, "Roof types").
export const ROOF_TYPES = [
  { id: 6, title: 'Composition / Asphalt Shingle' },
  { id: 7, title: 'Flat Concrete' },
  { id: 8, title: 'Flat Foam' },
  { id: 9, title: 'Membrane EPDM' },
  { id: 10, title: 'Membrane PVC' },
  { id: 11, title: 'Membrane TPO' },
  { id: 12, title: 'Metal Decramastic' },
  { id: 13, title: 'Metal Shingle' },
  { id: 14, title: 'Metal Standing Seam' },
  { id: 15, title: 'Metal Stone Coated' },
  { id: 16, title: 'Metal Tin' },
  { id: 17, title: 'Tar and Gravel / Bitumen' },
  { id: 18, title: 'Thatched' },
  { id: 19, title: 'Tile Clay' },
  { id: 20, title: 'Tile Concrete' },
  { id: 21, title: 'Tile Slate' },
  { id: 22, title: 'Wood/Shake Shingle' },
  { id: 23, title: 'Other' },
  { id: 24, title: 'Kliplock' },
] as const;

export type RoofType = (typeof ROOF_TYPES)[number];

export function findRoofType(id: number): RoofType | undefined {
  return ROOF_TYPES.find((roofType) => roofType.id === id);
}

/**
 * SolarDesk's roof type ids before issue 16 -> the hosted id of the same roof (store
 * migration 0016; docs/store.md, "Roof types"). 1 Tile (concrete) -> Tile Concrete;
 * 2 Tile (terracotta) -> Tile Clay; 3 Metal (corrugated), the corrugated iron roof
 * Australians call a tin roof -> Metal Tin; 4 Metal (standing seam) -> Metal Standing
 * Seam; 5 Asphalt shingle -> Composition / Asphalt Shingle; 6 Flat (membrane), which
 * never said which membrane -> Membrane EPDM, the first and most generic of the three
 * (the material does not change how panels are mounted on it); 7 Slate -> Tile Slate;
 * 8 Ground mount, which is no roof -> Other.
 */
export const PRE_HOSTED_ROOF_TYPE_IDS: Readonly<Record<number, number>> = { 1: 20, 2: 19, 3: 16, 4: 14, 5: 6, 6: 9, 7: 21, 8: 23 };

// The roof types a project's `roof_type` URL may name (GET /api/roof_types/).
export const ROOF_TYPES = [
  { id: 1, title: 'Tile (concrete)' },
  { id: 2, title: 'Tile (terracotta)' },
  { id: 3, title: 'Metal (corrugated)' },
  { id: 4, title: 'Metal (standing seam)' },
  { id: 5, title: 'Asphalt shingle' },
  { id: 6, title: 'Flat (membrane)' },
  { id: 7, title: 'Slate' },
  { id: 8, title: 'Ground mount' },
] as const;

export function findRoofType(id: number) {
  return ROOF_TYPES.find((roofType) => roofType.id === id);
}

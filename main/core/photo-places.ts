// Where photos were taken against where projects are (issue 17): the EXIF of each
// photo the app holds, read once per contents from the local blob (never through
// the API, so no quota is spent) and cached by content hash in a small table of the
// workspace's store; the projects' sites; the check of a project's photos.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { blobPath } from '../engine/files/blob-store.ts';
import type { Database } from '../engine/store/tables.ts';
import { PHOTO_FAR_FROM_SITE_M, PHOTO_SITE_MATCH_M, haversineMeters, isUsablePosition, type LatLon } from '../../shared/geo.ts';
import type { PhotoCandidate, ProjectPhotoPlace } from '../../shared/photos.ts';
import { type PhotoExif, isPhotoName, isPhotoType } from './photo-exif.ts';
import { readPhotoExifOffThread } from './media-worker.ts';

/** The cache (store migration 0013): one row per contents (sha256), rebuilt from the blobs at will. */
export class PhotoExifCache {
  private readonly memory = new Map<string, PhotoExif>();

  constructor(private readonly db: Kysely<Database>) {}

  /** The EXIF of these contents: from the cache, else read from `bytes()` and kept. */
  async of(hash: string, bytes: () => Promise<Uint8Array | null>): Promise<PhotoExif | null> {
    const remembered = this.memory.get(hash);
    if (remembered) return remembered;
    const row = await this.db.selectFrom('photo_exif').select(['taken_at', 'lat', 'lon', 'orientation']).where('file_hash', '=', hash).executeTakeFirst();
    if (row) {
      const exif = { takenAt: row.taken_at, lat: row.lat, lon: row.lon, orientation: row.orientation };
      this.memory.set(hash, exif);
      return exif;
    }
    const contents = await bytes();
    if (!contents) return null; // not here (a file on demand not fetched): not read, not cached
    const exif = await readPhotoExifOffThread(contents);
    await this.db
      .insertInto('photo_exif')
      .values({ file_hash: hash, taken_at: exif.takenAt, lat: exif.lat, lon: exif.lon, orientation: exif.orientation })
      .onConflict((conflict) => conflict.column('file_hash').doNothing())
      .execute();
    this.memory.set(hash, exif);
    return exif;
  }
}

/** A blob's bytes if this computer has them (a replica's file on demand may not): never fetched. */
export async function localBlob(fileRoot: string, hash: string): Promise<Uint8Array | null> {
  const file = blobPath(fileRoot, hash);
  if (!fs.existsSync(file)) return null;
  return fsp.readFile(file);
}

/** The first `maxBytes` of a blob if this computer has it (a replica's file on demand may not): never fetched. */
export async function localBlobHead(fileRoot: string, hash: string, maxBytes: number): Promise<Uint8Array | null> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(blobPath(fileRoot, hash), 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export interface ProjectSite extends LatLon {
  projectId: number;
  title: string;
}

/** The org's projects that have a site position. */
export async function projectSites(db: Kysely<Database>, orgId: number): Promise<ProjectSite[]> {
  const rows = await db.selectFrom('projects').select(['id', 'title', 'identifier', 'lat', 'lon']).where('org_id', '=', orgId).execute();
  return rows
    .filter((row) => isUsablePosition({ lat: row.lat ?? undefined, lon: row.lon ?? undefined }))
    .map((row) => ({ projectId: row.id, title: row.title || row.identifier || `Project ${row.id}`, lat: row.lat!, lon: row.lon! }));
}

/** The sites nearest to a position, nearest first. */
export function nearestSites(sites: readonly ProjectSite[], position: LatLon, limit = 3): PhotoCandidate[] {
  return sites
    .map((site) => ({ projectId: site.projectId, title: site.title, distanceM: haversineMeters(site, position) }))
    .sort((a, b) => a.distanceM - b.distanceM)
    .slice(0, limit);
}

/** The sites within PHOTO_SITE_MATCH_M of a position. */
export function sitesInRange(sites: readonly ProjectSite[], position: LatLon): PhotoCandidate[] {
  return nearestSites(sites, position, Number.MAX_SAFE_INTEGER).filter((candidate) => candidate.distanceM <= PHOTO_SITE_MATCH_M);
}

/**
 * Where each photo of a project was taken against its site: the photos with a GPS
 * position, each with its distance, whether it is far (PHOTO_FAR_FROM_SITE_M), and the
 * one other project it matches (PHOTO_SITE_MATCH_M), if exactly one.
 */
export async function checkProjectPhotos(
  db: Kysely<Database>,
  fileRoot: string,
  cache: PhotoExifCache,
  orgId: number,
  projectId: number,
): Promise<ProjectPhotoPlace[]> {
  const project = await db.selectFrom('projects').select(['lat', 'lon']).where('org_id', '=', orgId).where('id', '=', projectId).executeTakeFirst();
  if (!project) return [];
  const site = isUsablePosition({ lat: project.lat ?? undefined, lon: project.lon ?? undefined }) ? { lat: project.lat!, lon: project.lon! } : null;
  const files = await db
    .selectFrom('private_files')
    .select(['id', 'file_name', 'mime_type', 'file_hash'])
    .where('org_id', '=', orgId)
    .where('project_id', '=', projectId)
    .execute();
  let sites: ProjectSite[] | null = null;
  const places: ProjectPhotoPlace[] = [];
  for (const file of files) {
    if (!file.file_hash || !(isPhotoType(file.mime_type) || isPhotoName(file.file_name))) continue;
    const hash = file.file_hash;
    const exif = await cache.of(hash, () => localBlob(fileRoot, hash));
    if (!exif || !isUsablePosition({ lat: exif.lat ?? undefined, lon: exif.lon ?? undefined })) continue;
    const position = { lat: exif.lat!, lon: exif.lon! };
    const distanceM = site ? haversineMeters(site, position) : null;
    const isFar = distanceM !== null && distanceM > PHOTO_FAR_FROM_SITE_M;
    let match: PhotoCandidate | null = null;
    if (isFar) {
      sites ??= await projectSites(db, orgId);
      const inRange = sitesInRange(sites, position);
      if (inRange.length === 1 && inRange[0]!.projectId !== projectId) match = inRange[0]!;
    }
    places.push({ fileId: file.id, takenAt: exif.takenAt, lat: position.lat, lon: position.lon, distanceM, isFar, match });
  }
  return places;
}

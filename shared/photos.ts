// Field photos and their projects (issue 17): what the app says about where a photo
// was taken, the inbox folder's name, and how a batch of attachments reads.

/** The inbox at the workspace's folder root: a camera dump dropped here finds its projects (docs/project-folders.md, "The inbox"). */
export const INBOX_FOLDER = 'Unsorted';

/** A project a photo may belong to, by the distance from its site to where the photo was taken. */
export interface PhotoCandidate {
  projectId: number;
  title: string;
  distanceM: number;
}

/** Where one attached photo was taken against its project's site (photos.check). */
export interface ProjectPhotoPlace {
  fileId: number;
  takenAt: string | null;
  lat: number;
  lon: number;
  /** From the project's site; null when the project has no position. */
  distanceM: number | null;
  /** Farther from the site than PHOTO_FAR_FROM_SITE_M. */
  isFar: boolean;
  /** The one other project whose site is within PHOTO_SITE_MATCH_M of the photo, if exactly one. */
  match: PhotoCandidate | null;
}

/** A file waiting in the inbox, with why it waits and the nearest projects to choose from. */
export interface InboxItem {
  name: string;
  size: number;
  isPhoto: boolean;
  takenAt: string | null;
  /** Why it was not attached by itself, in a sentence. */
  why: string;
  /** Nearest sites first (none when the file has no position). */
  candidates: PhotoCandidate[];
}

/** One file the inbox attached (by its position, or by the user's choice). */
export interface InboxEntry {
  id: string;
  /** Attachments made by one pass over the inbox share a batch. */
  batch: string;
  name: string;
  fileId: number;
  fileHash: string;
  projectId: number;
  projectTitle: string;
  distanceM: number | null;
  how: 'matched' | 'chosen';
  at: string;
  /** Set by Undo: the file went back to the inbox and its private file was deleted. */
  undoneAt: string | null;
}

export interface InboxState {
  /** The inbox folder on disk; null when no folder root is set. */
  folder: string | null;
  waiting: InboxItem[];
  /** Newest first. */
  log: InboxEntry[];
  /** The last automatic pass that attached anything, in a sentence. */
  lastBatch: { at: string; text: string } | null;
  /** Why the inbox is not looked at now (no folder root, the root is missing), or null. */
  problem: string | null;
}

/** "Attached 14 photos from Unsorted: 9 to 12 Smith St, 5 to 3 Hill Rd." */
export function describeBatch(entries: readonly Pick<InboxEntry, 'projectTitle' | 'projectId'>[]): string {
  const byProject = new Map<number, { title: string; count: number }>();
  for (const entry of entries) {
    const known = byProject.get(entry.projectId) ?? { title: entry.projectTitle, count: 0 };
    known.count++;
    byProject.set(entry.projectId, known);
  }
  const parts = [...byProject.values()].sort((a, b) => b.count - a.count || a.title.localeCompare(b.title)).map((part) => `${part.count} to ${part.title}`);
  const noun = entries.length === 1 ? 'photo' : 'photos';
  return `Attached ${entries.length} ${noun} from ${INBOX_FOLDER}: ${parts.join(', ')}.`;
}

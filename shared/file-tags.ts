// File tag titles that carry meaning (service.md 5.3, compatibility.md "Systems"):
// the engine's access rule and system images, the seed and the renderer use these.

/** Files with this tag also need the projects_export permission (compared without case). */
export const EXPORT_TAG_TITLE = 'Export';
/** The tag of the private file a system image request creates. */
export const SYSTEM_IMAGE_TAG_TITLE = 'System Image';
/** The tags a demo org starts with. */
export const STANDARD_TAG_TITLES = [EXPORT_TAG_TITLE, 'Photo', 'Bill', 'Contract', SYSTEM_IMAGE_TAG_TITLE] as const;

export const isExportTag = (title: string): boolean => title.toLowerCase() === EXPORT_TAG_TITLE.toLowerCase();

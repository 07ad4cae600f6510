import { labelOf } from '../../format.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';

/** A record as people know it: a project or a held file by its title (when known), anything else by kind and id. */
export function useRecordLabel(): (model: string, recordId: number) => string {
  const rows = useProjectsStore((state) => state.rows);
  const fileTitles = useSyncStore((state) => state.fileTitles);
  return (model, recordId) => {
    const title = model === 'project' ? rows.find((row) => row.id === recordId)?.title : model === 'private_file' ? fileTitles.get(recordId) : undefined;
    return title || `${labelOf(model)} ${recordId}`;
  };
}

import { labelOf } from '../../format.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';

/** A record as people know it: by its title (a project's from the list, others as the sync store learnt them), else by kind and id. */
export function useRecordLabel(): (model: string, recordId: number) => string {
  const rows = useProjectsStore((state) => state.rows);
  const recordTitles = useSyncStore((state) => state.recordTitles);
  return (model, recordId) => {
    const title = (model === 'project' ? rows.find((row) => row.id === recordId)?.title : undefined) || recordTitles.get(`${model}:${recordId}`);
    return title || `${labelOf(model)} ${recordId}`;
  };
}

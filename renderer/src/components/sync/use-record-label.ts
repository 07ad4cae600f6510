import { labelOf } from '../../format.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';

/** A record as people know it: a project by its title (when the list has it), anything else by kind and id. */
export function useRecordLabel(): (model: string, recordId: number) => string {
  const rows = useProjectsStore((state) => state.rows);
  return (model, recordId) => {
    const project = model === 'project' ? rows.find((row) => row.id === recordId) : undefined;
    return project?.title || `${labelOf(model)} ${recordId}`;
  };
}

import { useEffect } from 'react';
import { useUiStore } from '../../stores/ui-store.ts';
import { ActivityList } from './ActivityList.tsx';

/** The Activity screen: one timeline of what happened and what waits, in every project, newest first. */
export function ActivityView({ orgId }: { orgId: number }) {
  // A notification's entry is brought into sight once; leaving the screen forgets it.
  useEffect(() => () => useUiStore.setState({ focusedActivityId: null }), []);
  return (
    <div className="page" data-testid="activity-view">
      <h1>Activity</h1>
      <p className="muted">What happened here and on the server, and what waits and why. Kept for 90 days.</p>
      <ActivityList orgId={orgId} />
    </div>
  );
}

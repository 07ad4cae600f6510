// The per-file marks of a row: its sync state, and what other parts add (where
// the file is, photo checks...). Each mark is a small component taking the file;
// add it here, so FileRow stays the same.
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { Badge } from '../common/Badge.tsx';

export function FileSyncBadge({ file }: { file: PrivateFileJson }) {
  const isLocalOnly = useSyncStore((state) => state.isLocalOnly);
  const isPending = useSyncStore((state) => state.pending.some((item) => item.model === 'private_file' && item.record_id === file.id));
  if (isLocalOnly) return <Badge title="No remote configured: this machine holds the only copy">Local</Badge>;
  return isPending ? <Badge tone="warning">Waiting to sync</Badge> : <Badge tone="success">Synced</Badge>;
}

export function FileBadges({ file }: { file: PrivateFileJson }) {
  return (
    <span className="file-badges" data-testid="file-badges">
      <FileSyncBadge file={file} />
    </span>
  );
}

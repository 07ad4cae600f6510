import { useState } from 'react';
import { readDownloadHostList } from '../../../../shared/download-hosts.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

/**
 * The hosts a remote's file links may point to besides the remote itself (docs/sync.md
 * "What the agent takes from a remote"). Empty by default: a file whose link names any
 * other host is not fetched, and its error names this setting.
 */
export function DownloadHostsSection({ saved, remoteUrl }: { saved: readonly string[]; remoteUrl: string | null }) {
  const update = useSessionStore((state) => state.updateSettings);
  const toast = useUiStore((state) => state.toast);
  const [text, setText] = useState(saved.join(', '));
  const reading = readDownloadHostList(text);
  const isUnchanged = reading.hosts !== null && reading.hosts.join(',') === saved.join(',');
  const remoteHost = remoteUrl ? safeHost(remoteUrl) : null;
  return (
    <section className="card" data-testid="download-hosts">
      <h2>Download hosts</h2>
      <p className="muted">
        Files are fetched from {remoteHost ? <span className="mono">{remoteHost}</span> : 'the remote you sign in to'} only. If your service keeps its files on another server, name it
        here; a file that comes from anywhere else is not fetched.
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (reading.hosts === null) return;
          void update({ downloadHosts: reading.hosts })
            .then(() => {
              const hosts = useSessionStore.getState().settings?.downloadHosts ?? [];
              setText(hosts.join(', '));
              toast(hosts.length ? `Files may now also come from ${hosts.join(', ')}.` : 'Files now come from the remote only.');
            })
            .catch((error) => toast(messageOf(error), 'error'));
        }}
      >
        <input
          aria-label="Download hosts"
          className="mono"
          placeholder="files.example.com"
          value={text}
          aria-invalid={reading.error !== null}
          aria-describedby="download-hosts-error"
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="button" disabled={reading.hosts === null || isUnchanged}>
          Save
        </button>
      </form>
      {reading.error !== null && (
        <p className="field-error" id="download-hosts-error" role="alert">
          {reading.error}
        </p>
      )}
    </section>
  );
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

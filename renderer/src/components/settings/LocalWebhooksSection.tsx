import { LOCAL_WEBHOOKS_REASON, LOCAL_WEBHOOKS_SETTING } from '../../../../shared/local-webhooks.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

/**
 * Whether this computer delivers webhooks to itself and the local network (issue 28, item 5):
 * off by default, with the reason beside the switch. Signed in, the remote delivers
 * webhooks, so the switch says it does not apply there.
 */
export function LocalWebhooksSection({ isOn, isSynced }: { isOn: boolean; isSynced: boolean }) {
  const update = useSessionStore((state) => state.updateSettings);
  const toast = useUiStore((state) => state.toast);
  return (
    <section className="card" data-testid="local-webhooks">
      <h2>Webhooks</h2>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          className="switch"
          checked={isOn}
          onChange={(event) => {
            const localWebhooks = event.target.checked;
            void update({ localWebhooks })
              .then(() => toast(localWebhooks ? 'Webhooks may now go to this computer and the local network.' : 'Webhooks now go to public addresses only.'))
              .catch((error) => toast(messageOf(error), 'error'));
          }}
        />
        <span>{LOCAL_WEBHOOKS_SETTING}</span>
      </label>
      <p className="muted small">
        {LOCAL_WEBHOOKS_REASON}
        {isSynced ? ' While you are signed in, your office server delivers webhooks and decides this for itself.' : ''}
      </p>
    </section>
  );
}

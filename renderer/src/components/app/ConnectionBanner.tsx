import './ConnectionBanner.css';
import { useUiStore } from '../../stores/ui-store.ts';

/** Browser mode: the connection to `solardesk web` dropped (stopped, or the laptop slept). */
export function ConnectionBanner() {
  const isConnected = useUiStore((state) => state.isConnected);
  if (isConnected) return null;
  return (
    <div className="banner banner-warning" role="status">
      Lost the connection to SolarDesk. Trying again… (is <code>solardesk web</code> still running?)
    </div>
  );
}

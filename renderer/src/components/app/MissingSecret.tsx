import './MissingSecret.css';

/** Browser mode opened without the secret: only the URL SolarDesk printed can open it. */
export function MissingSecret() {
  return (
    <div className="state state-error missing-secret" role="alert">
      <p className="state-title">Open SolarDesk from the address it printed</p>
      <p className="state-body">
        For your safety, SolarDesk in a browser only answers the exact address it printed when it started
        (“SolarDesk is running at …”). That address carries a secret that changes at every launch. Copy it from the
        terminal and open it here.
      </p>
    </div>
  );
}

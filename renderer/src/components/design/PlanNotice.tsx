import './PlanNotice.css';

/** What an org on the API Access plan sees instead of an empty pane (service.md 5). */
export function PlanNotice({ planTitle }: { planTitle: string }) {
  return (
    <div className="state plan-notice" role="note" data-testid="plan-notice">
      <p className="state-title">Design data needs the Raw Data API Access plan</p>
      <p className="state-body">
        This organisation is on the <strong>{planTitle}</strong> plan. On that plan the service leaves out each
        project’s design: the roof model, panel layout, system specifications, pricing and payment options. An
        organisation admin can move to <strong>Raw Data API Access</strong> (a 30-day free trial is available); designs
        appear here within about five minutes of the change.
      </p>
    </div>
  );
}

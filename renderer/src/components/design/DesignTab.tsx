import './DesignTab.css';
import { lazy, Suspense, useState } from 'react';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { StillLoading } from '../common/LoadingState.tsx';
import { useDecodedDesign } from '../../design/design-decoding.ts';
import { PaymentOptions } from './PaymentOptions.tsx';
import { PlanNotice } from './PlanNotice.tsx';
import { PricingSummary } from './PricingSummary.tsx';
import { SystemSpecs } from './SystemSpecs.tsx';
import { projectAnnualUsage } from '../../../../shared/usage.ts';
import { chosenSystem } from '../../../../shared/design-figures.ts';

// three.js is most of the page's code: the 3D view loads with the first design opened,
// not with the app (issue 30: the first screen).
const RoofScene = lazy(async () => ({ default: (await import('./RoofScene.tsx')).RoofScene }));

export function DesignTab({ project }: { project: ProjectDetailJson }) {
  const org = useOrgStore((state) => state.org);
  const decoded = useDecodedDesign(project.design);
  const [systemUuid, setSystemUuid] = useState<string | null>(null);

  if (!decoded) {
    if (org && !org.includes_design_data) return <PlanNotice planTitle={org.api_plan_title} />;
    return <EmptyState title="This project has no design yet">Designs appear here once the project has been designed.</EmptyState>;
  }
  if ('isDecoding' in decoded) return <StillLoading label="Opening the design…" />;
  if ('error' in decoded) return <ErrorState message={decoded.error} />;
  const { design } = decoded;
  const system = chosenSystem(design, systemUuid);

  return (
    <div className="design-tab" data-testid="design-tab">
      {design.systems.length > 1 && (
        <div className="segmented" role="tablist" aria-label="Systems">
          {design.systems.map((candidate) => (
            <button
              key={candidate.uuid}
              type="button"
              role="tab"
              aria-selected={candidate.uuid === system?.uuid}
              className={candidate.uuid === system?.uuid ? 'is-active' : ''}
              onClick={() => setSystemUuid(candidate.uuid)}
            >
              {candidate.name}
              {candidate.is_sold ? ' (sold)' : ''}
            </button>
          ))}
        </div>
      )}
      <div className="design-grid">
        <section className="design-scene" aria-label="Roof">
          <Suspense fallback={<StillLoading label="Loading the 3D view…" />}>
            <RoofScene site={design.site} systemUuid={system?.uuid ?? null} />
          </Suspense>
          <p className="muted scene-caption">
            {/* The size is in the system's facts beside it: said once. */}
            {design.site.autoFacetsGeoJson.features.length} roof facets · {system ? `${system.total_module_quantity} panels` : 'no system'} · drag to turn, scroll to zoom
          </p>
          {design.site.messages.length > 0 && (
            <ul className="design-messages">
              {design.site.messages.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          )}
        </section>
        {system && (
          <section className="design-facts" aria-label="System">
            <SystemSpecs system={system} annualUsageKwh={projectAnnualUsage(project)} />
          </section>
        )}
      </div>
      {system && <PricingSummary system={system} />}
      {system && <PaymentOptions key={system.uuid} system={system} />}
    </div>
  );
}

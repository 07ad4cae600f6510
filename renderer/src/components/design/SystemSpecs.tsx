import './SystemSpecs.css';
import type { ComponentSpec, DesignSystem } from '../../../../shared/design-types.ts';
import { formatNumber, formatPercent } from '../../format.ts';
import { formatKw } from '../../../../shared/design-figures.ts';

/** `annualUsageKwh`: the project's figure (shared/usage.ts projectAnnualUsage), the one Details shows too. */
export function SystemSpecs({ system, annualUsageKwh }: { system: DesignSystem; annualUsageKwh: number }) {
  return (
    <div className="system-specs">
      <h2>{system.name}</h2>
      <dl className="facts">
        <div>
          <dt>Size</dt>
          <dd>{formatKw(system.kw_stc)}</dd>
        </div>
        <div>
          <dt>Output</dt>
          <dd>{formatNumber(system.output.annual_kwh)} kWh/yr</dd>
        </div>
        <div>
          <dt>Usage</dt>
          <dd>{formatNumber(annualUsageKwh)} kWh/yr</dd>
        </div>
        <div>
          <dt>CO₂ avoided</dt>
          <dd>{formatNumber(system.environmentals.co2_tonnes_per_year, 1)} t/yr</dd>
        </div>
      </dl>
      <ComponentList
        title="Modules"
        items={system.modules}
        describe={(module) => `${module.watts} W · ${formatPercent(module.efficiency)} · ${module.length_mm}×${module.width_mm} mm`}
      />
      <ComponentList
        title="Inverters"
        items={system.inverters}
        describe={(inverter) => `${formatNumber(inverter.max_power_kw, 2)} kW AC · ${formatPercent(inverter.efficiency)}`}
      />
      <ComponentList
        title="Batteries"
        items={system.batteries}
        empty="No battery in this system."
        describe={(battery) => `${formatNumber(battery.capacity_kwh, 1)} kWh · ${formatNumber(battery.power_kw, 1)} kW`}
      />
      {system.diagnostics.length > 0 && (
        <>
          <h3>Design notes</h3>
          <ul className="spec-list">
            {system.diagnostics.map((diagnostic) => (
              <li key={diagnostic.message} className={diagnostic.level === 'warning' ? 'warning-text' : undefined}>
                {diagnostic.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** One kind of component: "quantity × manufacturer code" and its figures. */
function ComponentList<Item extends ComponentSpec>({ title, items, describe, empty }: { title: string; items: Item[]; describe: (item: Item) => string; empty?: string }) {
  return (
    <>
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p className="muted">{empty ?? 'None.'}</p>
      ) : (
        <ul className="spec-list">
          {items.map((item) => (
            <li key={item.code}>
              <strong>
                {item.quantity} × {item.manufacturer_name} {item.code}
              </strong>
              <span className="muted">{describe(item)}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

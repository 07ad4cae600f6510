import './PaymentOptions.css';
import { lazy, Suspense, useState } from 'react';
import { StillLoading } from '../common/LoadingState.tsx';
import type { DesignSystem } from '../../../../shared/design-types.ts';
import { chosenPaymentOption, extraFeaturedFigures, paybackText } from '../../../../shared/design-figures.ts';
import { formatMoney, formatNumber, formatPercent } from '../../format.ts';

// uPlot loads with the first chart shown, not with the app (issue 30: the first screen).
const CashFlowChart = lazy(async () => ({ default: (await import('./CashFlowChart.tsx')).CashFlowChart }));

export function PaymentOptions({ system }: { system: DesignSystem }) {
  const [optionId, setOptionId] = useState(system.payment_options[0]?.id ?? null);
  const option = chosenPaymentOption(system, optionId);
  if (!option) return <p className="muted">This system has no payment options.</p>;
  const currency = system.bills.currency;
  return (
    <section className="payment-options" aria-label="Payment options">
      <div className="section-head">
        <h2>Payment options</h2>
        <select aria-label="Payment option" value={option.id} onChange={(event) => setOptionId(Number(event.target.value))}>
          {system.payment_options.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.title}
            </option>
          ))}
        </select>
      </div>
      <dl className="facts" data-testid="payment-facts">
        <div>
          <dt>Payback</dt>
          <dd data-testid="payback-year">{paybackText(option)}</dd>
        </div>
        <div>
          <dt>Net present value</dt>
          <dd>{formatMoney(option.net_present_value, currency)}</dd>
        </div>
        <div>
          <dt>Rate of return</dt>
          <dd>{formatPercent(option.internal_rate_of_return)}</dd>
        </div>
        {extraFeaturedFigures(option).map((figure) => (
          <div key={figure.label}>
            <dt>{figure.label}</dt>
            <dd>
              {figure.unit === 'currency'
                ? formatMoney(figure.value, currency)
                : figure.unit === 'percent'
                  ? formatPercent(figure.value)
                  : figure.unit === 'kwh'
                    ? `${formatNumber(figure.value)} kWh`
                    : `${formatNumber(figure.value, 1)} years`}
            </dd>
          </div>
        ))}
      </dl>
      <Suspense fallback={<StillLoading label="Loading the chart…" />}>
        <CashFlowChart key={option.id} cashFlows={option.cash_flows} paybackYear={option.payback_year} currency={currency} />
      </Suspense>
      {option.quotation_lines.length > 0 && (
        <table className="table compact">
          <tbody>
            {option.quotation_lines.map((line) => (
              <tr key={line.title}>
                <td>{line.title}</td>
                <td className="numeric">{formatMoney(line.amount, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

import './PricingSummary.css';
import type { DesignSystem } from '../../../../shared/design-types.ts';
import { formatMoney } from '../../format.ts';
import { priceLines } from '../../../../shared/design-figures.ts';

/** The price build-up (shared/design-types.ts SystemPricing) and the incentives. */
export function PricingSummary({ system }: { system: DesignSystem }) {
  const { pricing, incentives } = system;
  const rows = priceLines(system);
  const currency = system.bills.currency;
  const money = (amount: number) => formatMoney(amount, currency);
  return (
    <section className="pricing" aria-label="Pricing">
      <div>
        <h2>Pricing</h2>
        <table className="table compact">
          <tbody>
            {rows.map(({ title, amount }) => (
              <tr key={title}>
                <td>{title}</td>
                <td className="numeric">{money(amount)}</td>
              </tr>
            ))}
            <tr className="total">
              <td>Price including tax</td>
              <td className="numeric">{money(pricing.system_price_including_tax)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <div>
        <h2>Incentives</h2>
        {incentives.incentive_to_customer.length + incentives.incentive_to_installer.length === 0 && <p className="muted">None apply.</p>}
        <table className="table compact">
          <tbody>
            {incentives.incentive_to_customer.map((incentive) => (
              <tr key={`customer-${incentive.title}`}>
                <td>{incentive.title} <span className="muted">(to customer)</span></td>
                <td className="numeric">{money(incentive.amount)}</td>
              </tr>
            ))}
            {incentives.incentive_to_installer.map((incentive) => (
              <tr key={`installer-${incentive.title}`}>
                <td>{incentive.title} <span className="muted">(to installer)</span></td>
                <td className="numeric">{money(incentive.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

import './PricingSummary.css';
import type { DesignSystem } from '../../../../shared/design-types.ts';
import { formatMoney } from '../../format.ts';

/** The price build-up (shared/design-types.ts SystemPricing) and the incentives. */
export function PricingSummary({ system }: { system: DesignSystem }) {
  const { pricing, incentives } = system;
  const currency = system.bills.currency;
  const money = (amount: number) => formatMoney(amount, currency);
  const rows: [string, number][] = [
    ['Hardware', pricing.costs.hardware],
    ['Labour', pricing.costs.labor],
    ['Overhead', pricing.costs.overhead],
    ...pricing.adders.map((adder): [string, number] => [adder.title, adder.price]),
    ['Margin', pricing.margin],
    ['Dealer fee', pricing.dealer_fee],
    ['Discount', -pricing.discount],
    ...pricing.price_adjustments.map((adjustment): [string, number] => [adjustment.title, adjustment.amount]),
    ['Tax', pricing.tax],
  ];
  return (
    <section className="pricing" aria-label="Pricing">
      <div>
        <h2>Pricing</h2>
        <table className="table compact">
          <tbody>
            {rows
              .filter(([, amount]) => amount !== 0)
              .map(([title, amount]) => (
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

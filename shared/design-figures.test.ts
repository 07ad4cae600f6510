// The figures the Design tab and the documents share (shared/design-figures.ts),
// on generated designs: the price lines add up to the price, the running total ends
// where the cash flows do, and the system chosen is the sold one unless asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateDesign } from '../main/engine/seed/project-design.ts';
import { chosenPaymentOption, chosenSystem, customerPriceLines, priceLines, runningTotals, systemFigures } from './design-figures.ts';

test('price lines, and the customer\'s price lines, add up to the price including tax, for every system of many designs', () => {
  for (let seed = 1; seed <= 40; seed++) {
    for (const system of generateDesign(seed).systems) {
      const total = priceLines(system).reduce((sum, line) => sum + line.amount, 0);
      assert.ok(Math.abs(total - system.pricing.system_price_including_tax) < 0.01, `seed ${seed} ${system.name}: ${total} != ${system.pricing.system_price_including_tax}`);
      assert.ok(priceLines(system).every((line) => line.amount !== 0));
      const customerTotal = customerPriceLines(system).reduce((sum, line) => sum + line.amount, 0);
      assert.ok(Math.abs(customerTotal - system.pricing.system_price_including_tax) < 0.01, `seed ${seed} ${system.name}: customer lines ${customerTotal}`);
      const titles = customerPriceLines(system).map((line) => line.title);
      assert.ok(!titles.includes('Margin') && !titles.includes('Dealer fee'), "the installer's margin is not the customer's line");
      for (const hidden of system.pricing.adders.filter((adder) => adder.show_customer === false)) assert.ok(!titles.includes(hidden.title), hidden.title);
    }
  }
});

test('the system and payment option chosen, and the figures of them', () => {
  const design = generateDesign(7);
  const sold = design.systems.find((system) => system.is_sold) ?? design.systems[0]!;
  assert.equal(chosenSystem(design)?.uuid, sold.uuid);
  const other = design.systems.at(-1)!;
  assert.equal(chosenSystem(design, other.uuid)?.uuid, other.uuid);
  assert.equal(chosenSystem(design, 'no-such-uuid')?.uuid, sold.uuid);
  const option = chosenPaymentOption(sold)!;
  assert.equal(chosenPaymentOption(sold, option.id)?.id, option.id);
  const figures = systemFigures(sold, option, 5000);
  assert.equal(figures.moduleCount, sold.total_module_quantity);
  assert.equal(figures.priceIncludingTax, sold.pricing.system_price_including_tax);
  assert.equal(figures.offset, sold.output.annual_kwh / 5000);
  assert.equal(systemFigures(sold, option, 0).offset, null);
  assert.equal(figures.paybackYear, option.payback_year);
  const totals = runningTotals(option.cash_flows);
  assert.equal(totals.length, option.cash_flows.length);
  assert.ok(Math.abs(totals.at(-1)! - option.cash_flows.reduce((sum, flow) => sum + flow, 0)) < 1e-6);
});

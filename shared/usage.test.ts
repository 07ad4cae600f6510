// Usage pairs (shared/usage.ts): checked exactly, the annual figure derived.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  annualUsageOrGuess,
  blankBoxTexts,
  boxTextsOf,
  carryUsageBoxes,
  describeUsageProblem,
  parseUsageBox,
  projectAnnualUsage,
  USAGE_SOURCE_LABELS,
  usageFromBoxes,
  usageTariffOf,
} from './usage.ts';

test('usage pairs are checked exactly and the annual figure derived', () => {
  assert.equal(describeUsageProblem({ usage_data_source: 'kwh_monthly', values: Array(12).fill(1) }), null);
  assert.match(describeUsageProblem({ usage_data_source: 'kwh_monthly', values: Array(12).fill(1.5) })!, /12 non-negative integers/);
  assert.match(describeUsageProblem({ usage_data_source: 'nope', values: 1 })!, /must be one of/);
  assert.match(describeUsageProblem(null)!, /Expected an object/);
  assert.equal(annualUsageOrGuess({ usage_data_source: 'kwh_quarterly', values: [1, 2, 3, 4] }, true), 10);
  assert.equal(annualUsageOrGuess(null, true) < annualUsageOrGuess(null, false), true);
});

test('bill boxes take money with cents and send whole dollars; the box at fault gets a message in words', () => {
  assert.deepEqual(parseUsageBox('bill_monthly', '226.40'), { ok: true, value: 226, isRounded: true });
  assert.deepEqual(parseUsageBox('bill_monthly', '$1,226.60'), { ok: true, value: 1227, isRounded: true });
  assert.deepEqual(parseUsageBox('bill_annual', '2400'), { ok: true, value: 2400, isRounded: false });
  assert.deepEqual(parseUsageBox('kwh_monthly', '512.5'), { ok: true, value: 513, isRounded: true });
  assert.equal(parseUsageBox('kwh_monthly', '12x').ok, false);
  assert.equal(parseUsageBox('bill_monthly', '-3').ok, false);
  assert.equal(parseUsageBox('bill_monthly', '').ok, false);

  const texts = Array(12).fill('226.40');
  texts[4] = '22x';
  const bad = usageFromBoxes('bill_monthly', texts);
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.deepEqual(bad.boxErrors.map((error, index) => (error ? index : null)).filter((index) => index !== null), [4]);
    assert.doesNotMatch(bad.boxErrors[4]!, /bill_monthly|integer/);
  }
  const good = usageFromBoxes('bill_monthly', Array(12).fill('226.40'));
  assert.deepEqual(good, { ok: true, usage: { usage_data_source: 'bill_monthly', values: Array(12).fill(226) }, isRounded: true });
  if (good.ok) assert.equal(describeUsageProblem(good.usage), null, 'what the boxes give is what the engine takes');
  assert.deepEqual(usageFromBoxes('estimate', ['High']), { ok: true, usage: { usage_data_source: 'estimate', values: 'High' }, isRounded: false });
});

test('values carry over to another source only where they still make sense', () => {
  const monthly = ['100', '200', '300', '400', '500', '600', '700', '800', '900', '1000', '1100', '1200'];
  assert.deepEqual(carryUsageBoxes('kwh_monthly', monthly, 'kwh_annual'), ['7800']);
  assert.deepEqual(carryUsageBoxes('kwh_monthly', monthly, 'kwh_quarterly'), ['600', '1500', '2400', '3300']);
  assert.deepEqual(carryUsageBoxes('kwh_monthly', monthly, 'kwh_every_second_month'), ['300', '700', '1100', '1500', '1900', '2300']);
  assert.deepEqual(carryUsageBoxes('kwh_quarterly', ['1', '2', '3', '4'], 'kwh_annual'), ['10']);
  // Bills keep their cents when summed.
  assert.deepEqual(carryUsageBoxes('bill_monthly', Array(12).fill('226.40'), 'bill_annual'), ['2716.8']);
  // kWh per day and kWh a month turn into each other by the days of each month.
  assert.deepEqual(carryUsageBoxes('kwh_daily_per_month', Array(12).fill('10'), 'kwh_annual'), ['3650']);
  assert.deepEqual(carryUsageBoxes('kwh_monthly', Array(12).fill('310'), 'kwh_daily_per_month')!.slice(0, 2), ['10', '11.07']);
  // No split of a year into months, no kWh <-> bills, no mixed periods, nothing from boxes at fault.
  assert.equal(carryUsageBoxes('kwh_annual', ['6000'], 'kwh_monthly'), null);
  assert.equal(carryUsageBoxes('kwh_monthly', monthly, 'bill_monthly'), null);
  assert.equal(carryUsageBoxes('kwh_every_second_month', Array(6).fill('1'), 'kwh_quarterly'), null);
  assert.equal(carryUsageBoxes('kwh_monthly', ['1x', ...monthly.slice(1)], 'kwh_annual'), null);
  assert.deepEqual(boxTextsOf({ usage_data_source: 'kwh_quarterly', values: [1, 2, 3, 4] }), ['1', '2', '3', '4']);
  assert.deepEqual(blankBoxTexts('estimate'), ['Medium']);
});

test('one annual figure: bills turned into kWh with the project tariff, the same for every caller', () => {
  const tariff = usageTariffOf({ energy_rate_per_kwh: 0.42, fixed_charge_per_month: 35, currency: 'AUD', utility_name: 'SA Power Networks' });
  assert.deepEqual(tariff, { energy_rate_per_kwh: 0.42, fixed_charge_per_month: 35, currency: 'AUD' });
  assert.equal(usageTariffOf(null), null);
  assert.equal(usageTariffOf({ energy_rate_per_kwh: 0 }), null);
  // The project: 5,138 kWh billed at 0.42 plus 35 a month is 2,578 a year, once 10,308 kWh at the assumed price.
  const bill = { usage_data_source: 'bill_annual' as const, values: 2578 };
  assert.equal(annualUsageOrGuess(bill, true, tariff), 5138);
  assert.equal(annualUsageOrGuess(bill, true, null), 10312);
  assert.equal(
    projectAnnualUsage({ usage: bill, is_residential: true, utility_tariff_current_data: { energy_rate_per_kwh: 0.42, fixed_charge_per_month: 35 } }),
    5138,
  );
  assert.equal(projectAnnualUsage({ usage: { usage_data_source: 'nope' }, is_residential: false }), annualUsageOrGuess(null, false));
  assert.equal(USAGE_SOURCE_LABELS.kwh_monthly.startsWith('kWh'), true);
});

import './CashFlowChart.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { formatMoney } from '../../format.ts';
import { runningTotals } from '../../../../shared/design-figures.ts';
import { useResolvedTheme } from '../app/use-app-theme.ts';

/** The chart's height follows its width (issue 28: 240 px drew a flat strip in a wide pane): readable from a narrow pane to a wide one. */
export function chartHeightFor(width: number): number {
  return Math.min(440, Math.max(240, Math.round(width * 0.42)));
}

function cssColour(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** Draws a dashed line at the payback year, so the eye finds it without reading the axis. */
function paybackMarker(paybackYear: number | null): uPlot.Plugin {
  return {
    hooks: {
      draw: (chart) => {
        if (paybackYear === null) return;
        const x = chart.valToPos(paybackYear, 'x', true);
        const { ctx, bbox } = chart;
        ctx.save();
        ctx.strokeStyle = cssColour('--success', '#2e9d5b');
        ctx.setLineDash([6, 4]);
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(x, bbox.top);
        ctx.lineTo(x, bbox.top + bbox.height);
        ctx.stroke();
        ctx.restore();
      },
    },
  };
}

/** A scale's range that always holds zero, with a little room above and below the data. */
function fromZero(min: number | null, max: number | null): [number, number] {
  const low = Math.min(0, min ?? 0);
  const high = Math.max(0, max ?? 0);
  const pad = (high - low) * 0.05 || 1;
  return [low < 0 ? low - pad : 0, high > 0 ? high + pad : 0];
}

/**
 * Yearly cash flows (bars, left axis) and their running total (line, right axis),
 * from the customer's side: year 0 is the upfront payment. Each has its own scale,
 * so a year's savings are not a sliver beside a total twenty times larger (issue 20).
 * The upfront payment is a bar of its own at year 0, on the running total's scale
 * (on the yearly one it would dwarf every later year), so the total's line visibly
 * starts from it (issue 28, item 18). The legend below reads the final year until a
 * year is pointed at.
 */
export function CashFlowChart({ cashFlows, paybackYear, currency }: { cashFlows: number[]; paybackYear: number | null; currency: string }) {
  const containerRef = useRef<HTMLDivElement>(null);
  // The colours come from the theme's CSS variables, so a theme change redraws.
  const theme = useResolvedTheme();
  const [pointedYear, setPointedYear] = useState<number | null>(null);
  const cumulative = useMemo(() => runningTotals(cashFlows), [cashFlows]);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const years = cashFlows.map((_, year) => year);
    // Year 0 (the upfront payment) is not a yearly bar: it would dwarf every later year. It is the upfront bar, on the total's scale.
    const yearly = cashFlows.map((flow, year) => (year === 0 ? null : flow));
    const upfront = cashFlows.map((flow, year) => (year === 0 ? flow : null));
    const upfrontColour = cssColour('--danger', '#c0392b');
    const text = cssColour('--text-muted', '#667');
    const grid = cssColour('--border', '#ddd');
    const barColour = cssColour('--accent', '#3d7dd8');
    const lineColour = cssColour('--warning', '#d98a1c');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    // Axis ticks in short form (A$75K), so both axes leave the bars room in a narrow pane.
    const short = new Intl.NumberFormat(undefined, { style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1 });
    const money = (_chart: uPlot, ticks: number[]) => ticks.map((tick) => short.format(tick));
    const chart = new uPlot(
      {
        width: Math.max(container.clientWidth, 240),
        height: chartHeightFor(container.clientWidth),
        plugins: [paybackMarker(paybackYear)],
        legend: { show: false },
        cursor: { points: { show: false } },
        // Bars start at zero, so their heights compare; the total's own axis takes its whole range.
        scales: { x: { time: false, range: (_chart, min, max) => [min - 0.6, max + 0.6] }, yearly: { range: (_chart, min, max) => fromZero(min, max) }, total: { range: (_chart, min, max) => fromZero(min, max) } },
        axes: [
          { ...axis, label: 'Year' },
          { ...axis, scale: 'yearly', stroke: barColour, label: 'Each year', size: 66, values: money },
          { ...axis, scale: 'total', side: 1, stroke: lineColour, label: 'Running total', size: 70, grid: { show: false }, values: money },
        ],
        series: [
          {},
          { label: 'Each year', scale: 'yearly', stroke: barColour, fill: cssColour('--accent-soft', 'rgba(61,125,216,0.35)'), paths: uPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } },
          { label: 'Running total', scale: 'total', stroke: lineColour, width: 2, points: { show: false } },
          { label: 'Upfront', scale: 'total', stroke: upfrontColour, fill: upfrontColour, paths: uPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } },
        ],
        hooks: { setCursor: [(current) => setPointedYear(current.cursor.idx ?? null)] },
      },
      [years, yearly, cumulative, upfront],
      container,
    );
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(container.clientWidth, 240), height: chartHeightFor(container.clientWidth) }));
    observer.observe(container);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [cashFlows, cumulative, paybackYear, currency, theme]);

  const finalYear = cashFlows.length - 1;
  const year = pointedYear ?? finalYear;
  return (
    <div className="cashflow">
      <div ref={containerRef} className="cashflow-chart" data-testid="cashflow-chart" aria-label="Cash flow by year" role="img" />
      {finalYear >= 0 && (
        <p className="cashflow-legend" data-testid="cashflow-legend">
          <span className="cashflow-year">
            Year {year}
            {pointedYear === null && finalYear > 0 ? ' (the last; point at the chart for another)' : ''}
          </span>
          <span>
            <i className={`swatch ${year === 0 ? 'swatch-upfront' : 'swatch-bars'}`} aria-hidden="true" /> {year === 0 ? 'Upfront' : 'That year'}: {formatMoney(cashFlows[year] ?? 0, currency)}
          </span>
          <span>
            <i className="swatch swatch-line" aria-hidden="true" /> Running total: {formatMoney(cumulative[year] ?? 0, currency)}
          </span>
          {paybackYear !== null && (
            <span className="muted">
              <i className="swatch swatch-payback" aria-hidden="true" /> payback year
            </span>
          )}
        </p>
      )}
    </div>
  );
}

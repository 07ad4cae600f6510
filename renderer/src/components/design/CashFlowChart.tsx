import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { formatMoney } from '../../format.ts';
import { useResolvedTheme } from '../app/use-app-theme.ts';

const CHART_HEIGHT = 240;

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

/** Yearly cash flows (bars) and their running total (line), from the customer's side: year 0 is the upfront payment. */
export function CashFlowChart({ cashFlows, paybackYear, currency }: { cashFlows: number[]; paybackYear: number | null; currency: string }) {
  const containerRef = useRef<HTMLDivElement>(null);
  // The colours come from the theme's CSS variables, so a theme change redraws.
  const theme = useResolvedTheme();

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const years = cashFlows.map((_, year) => year);
    let running = 0;
    const cumulative = cashFlows.map((flow) => (running += flow));
    const text = cssColour('--text-muted', '#667');
    const grid = cssColour('--border', '#ddd');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const chart = new uPlot(
      {
        width: Math.max(container.clientWidth, 300),
        height: CHART_HEIGHT,
        plugins: [paybackMarker(paybackYear)],
        scales: { x: { time: false } },
        axes: [
          { ...axis, label: 'Year' },
          { ...axis, size: 80, values: (_chart, ticks) => ticks.map((tick) => formatMoney(tick, currency)) },
        ],
        series: [
          { label: 'Year' },
          {
            label: 'Cash flow',
            stroke: cssColour('--accent', '#3d7dd8'),
            fill: cssColour('--accent-soft', 'rgba(61,125,216,0.35)'),
            paths: uPlot.paths.bars!({ size: [0.6, 40] }),
            points: { show: false },
            value: (_chart, value) => (value === null ? '—' : formatMoney(value, currency)),
          },
          {
            label: 'Running total',
            stroke: cssColour('--warning', '#d98a1c'),
            width: 2,
            value: (_chart, value) => (value === null ? '—' : formatMoney(value, currency)),
          },
        ],
      },
      [years, cashFlows, cumulative],
      container,
    );
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(container.clientWidth, 300), height: CHART_HEIGHT }));
    observer.observe(container);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [cashFlows, paybackYear, currency, theme]);

  return <div ref={containerRef} className="cashflow-chart" data-testid="cashflow-chart" aria-label="Cash flow by year" role="img" />;
}

// How every bench reports: min / median / max over its rounds, rates from totals (all
// units over all time of a path, never an average of per-round rates), ratios of such
// rates, and one line saying what was measured.
import { median } from './stats.ts';

/** Thousands separated, `digits` decimals. */
export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : String(n);

/** `min a / median b / max c` of the values (nearest-rank median, the upper of an even count). */
export function spread(values: readonly number[], format: (n: number) => string = (n) => fmt(n)): string {
  if (values.length === 0) return 'no rounds';
  return `min ${format(Math.min(...values))} / median ${format(median(values))} / max ${format(Math.max(...values))}`;
}

/** Seconds `fn` takes, and what it resolved to. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { seconds: (performance.now() - started) / 1000, value };
}

/** One path's rounds: units done (rows, trades, requests) and the seconds each round took. */
export interface Tally {
  readonly name: string;
  readonly rounds: readonly { units: number; seconds: number }[];
  add(units: number, seconds: number): number;
  /** Total units over total seconds. */
  rate(): number;
  units(): number;
  seconds(): number;
  /** Per-round rates, in round order. */
  rates(): number[];
  /** `N units in S s = R unit/s (per round, k rounds: min / median / max)`; `per` names a round. */
  describe(unit: string, per?: string, plural?: string): string;
}

export function tally(name: string): Tally {
  const rounds: { units: number; seconds: number }[] = [];
  const units = () => rounds.reduce((n, r) => n + r.units, 0);
  const seconds = () => rounds.reduce((n, r) => n + r.seconds, 0);
  const rates = () => rounds.map((r) => r.units / r.seconds);
  return {
    name,
    rounds,
    add(u, s) {
      rounds.push({ units: u, seconds: s });
      return u / s;
    },
    rate: () => units() / seconds(),
    units,
    seconds,
    rates,
    describe: (unit, per = 'round', plural = `${per}s`) =>
      `${fmt(units())} ${unit} in ${fmt(seconds(), 2)} s = ${fmt(units() / seconds())} ${unit}/s (per ${per}, ${rounds.length} ${plural}: ${spread(rates())})`,
  };
}

/** a's total-based rate over b's, two decimals. */
export const ratio = (a: Tally | number, b: Tally | number) =>
  fmt((typeof a === 'number' ? a : a.rate()) / (typeof b === 'number' ? b : b.rate()), 2);

/** The one line a reader can trust: what was measured, how, and against what. */
export function measured(text: string): void {
  console.log(`measured: ${text}`);
}

/** The order of `paths` in round `round`: rotated by one each round, so each goes first in turn. */
export function rotation<T>(paths: readonly T[], round: number): T[] {
  const k = round % paths.length;
  return [...paths.slice(k), ...paths.slice(0, k)];
}

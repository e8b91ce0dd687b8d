// Progress of a long indexing run: a bar with percent, blocks/s, trades/s and ETA on a
// terminal; a log line every few seconds otherwise.
import cliProgress from 'cli-progress';
import type { Logger } from '../internal/logger.ts';
import type { BatchSummary } from './index-range.ts';

export function createProgress({
  total,
  logger,
  interactive = process.stderr.isTTY === true,
  logEveryMs = 5000,
}: {
  total: number;
  logger: Logger;
  interactive?: boolean;
  logEveryMs?: number;
}) {
  const started = performance.now();
  let blocks = 0;
  let trades = 0;
  let lastLog = started;
  const rates = () => {
    const seconds = Math.max(0.001, (performance.now() - started) / 1000);
    const blocksPerSecond = blocks / seconds;
    return {
      seconds,
      blocksPerSecond,
      tradesPerSecond: trades / seconds,
      etaSeconds: blocksPerSecond > 0 ? (total - blocks) / blocksPerSecond : Infinity,
    };
  };
  const bar = interactive
    ? new cliProgress.SingleBar(
        {
          format:
            'Backfill |{bar}| {percentage}% | {value}/{total} blocks | {bps} blocks/s | {tps} trades/s | ETA {eta_formatted}',
          hideCursor: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(total, 0, { bps: '0', tps: '0' });
  return {
    update(batch: BatchSummary) {
      blocks += batch.blocks;
      trades += batch.trades;
      const r = rates();
      if (bar) bar.update(blocks, { bps: r.blocksPerSecond.toFixed(0), tps: r.tradesPerSecond.toFixed(0) });
      else if (performance.now() - lastLog >= logEveryMs) {
        lastLog = performance.now();
        logger.info(
          {
            height: batch.toHeight,
            blocks,
            total,
            percent: Number(((100 * blocks) / total).toFixed(1)),
            blocks_per_s: Math.round(r.blocksPerSecond),
            trades_per_s: Math.round(r.tradesPerSecond),
            eta_s: Math.round(r.etaSeconds),
          },
          'Backfill progressed',
        );
      }
    },
    finish() {
      bar?.stop();
      const r = rates();
      return {
        blocks,
        trades,
        seconds: r.seconds,
        blocksPerSecond: r.blocksPerSecond,
        tradesPerSecond: r.tradesPerSecond,
      };
    },
  };
}

// POST /api/wallet/broadcast's dedupe (docs/launchpad-api.md "Wallet"): the same signed
// bytes reach the node once, however many submissions and API processes there are. The
// database decides: the first submission claims the tx hash (INSERT … ON CONFLICT DO
// NOTHING on broadcasts' primary key), broadcasts, and records the node's code and log; every
// other submission of the hash waits for that record and answers with it. A broadcast that
// got no answer from the node, or found the mempool full, or whose verdict could not be
// recorded, leaves no record: the bytes may be submitted again. A claim older than
// `claimTimeoutMs` without a record (its process died) is taken over by the next submission.
import type { ChainClient } from '../../../chain/client.ts';
import { MEMPOOL_FULL_CODE, NodeRefusedError, sendTx, txHashOf } from '../../../chain/signed-tx.ts';
import { storableText } from '../../../db/nul.ts';
import type { Database } from '../../../db/types.ts';
import type { Logger } from '../../../internal/logger.ts';
import { HttpError } from '../../http/errors.ts';
import { nodeUnavailable } from './options.ts';

export interface BroadcastResult {
  tx_hash: string;
  code: number;
  raw_log: string;
}

export interface BroadcastOnceOptions {
  /** A claim without a result this old is taken over (default 30 s, twice the node client's timeout). */
  claimTimeoutMs?: number;
  /** How long a repeat submission waits for the first one's result before a 503 (default 20 s). */
  waitMs?: number;
  pollMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Claim {
  code: number | null;
  raw_log: string;
  age_ms: number;
}

export function createBroadcaster(
  db: Database,
  chain: ChainClient,
  logger: Logger,
  options: BroadcastOnceOptions = {},
) {
  const { claimTimeoutMs = 30_000, waitMs = 20_000, pollMs = 25 } = options;

  /** Broadcasts as the claimant of `hash`, recording the node's verdict or dropping the claim. */
  async function broadcastClaimed(hash: string, txBytes: Uint8Array): Promise<BroadcastResult> {
    let code: number;
    let rawLog: string;
    try {
      const sent = await sendTx(chain, txBytes, 'sync');
      code = sent.code ?? 0;
      // as it is recorded, so that the first answer and every repeat say the same
      rawLog = storableText(sent.log ?? '');
    } catch (error) {
      await release(hash);
      if (error instanceof NodeRefusedError)
        throw new HttpError(502, 'The chain node refused the transaction', [{ message: error.message }]);
      throw nodeUnavailable();
    }
    if (code === MEMPOOL_FULL_CODE) {
      // the node may take the same bytes later: nothing to remember
      await release(hash);
      return { tx_hash: hash, code, raw_log: rawLog };
    }
    try {
      await db.query(`UPDATE broadcasts SET code = $2, raw_log = $3 WHERE tx_hash = $1`, [hash, code, rawLog]);
    } catch (error) {
      logger.warn({ err: error, tx_hash: hash }, 'Could not record a broadcast verdict; answered it unrecorded');
      // the node's verdict stands whether or not it was recorded: answer it, and let the claim
      // go so that a repeat broadcasts again (the node then knows the tx) instead of waiting
      await release(hash);
    }
    return { tx_hash: hash, code, raw_log: rawLog };
  }

  const release = (hash: string) =>
    db.query(`DELETE FROM broadcasts WHERE tx_hash = $1 AND code IS NULL`, [hash]).catch(() => {});

  return async function broadcast(txBytes: Uint8Array): Promise<BroadcastResult> {
    const hash = txHashOf(txBytes);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const claimed = await db.query(
        `INSERT INTO broadcasts (tx_hash, code, raw_log) VALUES ($1, NULL, '') ON CONFLICT (tx_hash) DO NOTHING RETURNING tx_hash`,
        [hash],
      );
      if (claimed.length > 0) return broadcastClaimed(hash, txBytes);
      const [row] = await db.query<Claim>(
        `SELECT code, raw_log, (extract(epoch FROM clock_timestamp() - submitted_at) * 1000)::float8 AS age_ms
         FROM broadcasts WHERE tx_hash = $1`,
        [hash],
      );
      if (row && row.code !== null) {
        await db.query(`UPDATE broadcasts SET repeats = repeats + 1 WHERE tx_hash = $1`, [hash]);
        return { tx_hash: hash, code: Number(row.code), raw_log: row.raw_log };
      }
      if (row && Number(row.age_ms) > claimTimeoutMs) {
        // the claimant is gone: take its claim over, if nobody else did
        const taken = await db.query(
          `UPDATE broadcasts SET submitted_at = clock_timestamp()
           WHERE tx_hash = $1 AND code IS NULL
             AND clock_timestamp() - submitted_at > make_interval(secs => $2)
           RETURNING tx_hash`,
          [hash, claimTimeoutMs / 1000],
        );
        if (taken.length > 0) return broadcastClaimed(hash, txBytes);
      }
      // no row: the claimant's broadcast got no answer and it let go; claim it next time round
      if (Date.now() > deadline)
        throw new HttpError(
          503,
          'Service unavailable',
          undefined,
          { 'Retry-After': 5 },
          { error: 'Service unavailable: the first submission of this transaction is still being broadcast' },
        );
      if (row) await sleep(pollMs);
    }
  };
}

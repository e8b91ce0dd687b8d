// POST /api/wallet/broadcast (docs/launchpad-api.md "Wallet"): `{"tx_bytes": <base64 TxRaw>}`
// checked as the Chain API's broadcast checks it (src/chain/signed-tx.ts), then broadcast
// once per tx hash (broadcast-once.ts) with BROADCAST_MODE_SYNC; the answer
// is CheckTx's code and log.

import { z } from 'zod';
import { SignedTxError, signedTxBytes } from '../../../chain/signed-tx.ts';
import { BODY_LIMIT_BYTES, BodyTooLargeError, readBody } from '../../http/body.ts';
import { badRequest, HttpError } from '../../http/errors.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { type LaunchpadRoute, walletRoute } from '../context.ts';
import type { BroadcastResult } from './broadcast-once.ts';

const INVALID = 'Invalid request body';

export function walletBroadcast(broadcast: (txBytes: Uint8Array) => Promise<BroadcastResult>): Handler {
  return async (req, res) => {
    let raw: Buffer;
    try {
      raw = await readBody(req, BODY_LIMIT_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        throw new HttpError(413, 'Request body too large', [{ message: `at most ${error.limitBytes} bytes` }]);
      throw badRequest(INVALID, [{ message: 'the request body could not be read' }]);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw badRequest(INVALID, [{ message: 'must be JSON: {"tx_bytes": "<base64 of the signed TxRaw>"}' }]);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw badRequest(INVALID, [{ message: 'must be a JSON object: {"tx_bytes": "<base64 of the signed TxRaw>"}' }]);
    let txBytes: Uint8Array;
    try {
      txBytes = signedTxBytes((body as { tx_bytes?: unknown }).tx_bytes);
    } catch (error) {
      if (error instanceof SignedTxError)
        throw badRequest(INVALID, [{ parameter: 'tx_bytes', message: error.message }]);
      throw error;
    }
    sendJson(res, 200, await broadcast(txBytes));
  };
}

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const walletBroadcastRoutes: LaunchpadRoute[] = [
  {
    method: 'post',
    path: '/api/wallet/broadcast',
    tag: 'Wallet',
    summary: 'Broadcasts a signed transaction once',
    description:
      "Broadcast sync. The same signed bytes again return the first submission's result without broadcasting, across API processes; the chain's code says how it went (0 success, 4 unauthorized, 5 insufficient funds, 11 out of gas, 32 sequence mismatch).",
    body: {
      description: 'The signed transaction',
      schema: z.strictObject({ tx_bytes: z.string().describe('base64 of the signed TxRaw') }),
    },
    responses: {
      200: {
        description: "The chain's verdict",
        body: z.strictObject({ tx_hash: z.string(), code: z.number().int(), raw_log: z.string() }),
      },
      413: { description: 'The body is larger than the limit' },
    },
    ...walletRoute((wallet) => walletBroadcast(wallet.broadcast)),
  },
];

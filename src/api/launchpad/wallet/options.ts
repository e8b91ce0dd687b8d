// What the wallet routes (docs/launchpad-api.md "Wallet") are given besides the index: the
// node, the chain's account prefix, the launchpad contract and where the native coin's price
// comes from; and what they share: the address check and the answer for an unreachable node.
import { fromBech32 } from '@cosmjs/encoding';
import { z } from 'zod';
import type { ChainClient } from '../../../chain/client.ts';
import { queryRefusal } from '../../../chain/errors.ts';
import { HttpError } from '../../http/errors.ts';
import type { PriceOptions } from './price-source.ts';

export interface WalletOptions {
  chain: ChainClient;
  /** The chain's bech32 account prefix: a wallet address must carry it. */
  accountPrefix: string;
  /** The launchpad contract: its `config` query prices the native coin unless `prices.url` is set. */
  launchpad: string;
  prices?: PriceOptions;
  /** Broadcast dedupe timing (tests shorten it). */
  broadcast?: { claimTimeoutMs?: number; waitMs?: number };
}

/** A bech32 account or contract address (20 or 32 bytes, checksum verified, lower case) with `prefix`. */
export const walletAddress = (prefix: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be given once') })
    .refine(
      (v) => {
        try {
          const decoded = fromBech32(v, 256);
          return decoded.prefix === prefix && v === v.toLowerCase() && [20, 32].includes(decoded.data.length);
        } catch {
          return false;
        }
      },
      { message: `must be a bech32 address with the chain's prefix ${prefix}` },
    )
    .describe("a bech32 address with the chain's account prefix (`account_prefix` of `/api/chain`)");

/** The query of the wallet routes that take one address (`?address=`), for an account prefix. */
export const walletAddressQuery = (prefix: string) => z.object({ address: walletAddress(prefix) });

/**
 * The prefix the routes' OpenAPI descriptions build their address schemas with: the prefix is
 * checked by a refinement, which is no part of JSON Schema, so the description is the same for any.
 */
export const DESCRIBED_PREFIX = 'any';

/** 503 for a call to the node that got no answer (refused, reset, timed out). */
export const nodeUnavailable = () =>
  new HttpError(
    503,
    'Service unavailable',
    undefined,
    { 'Retry-After': 5 },
    { error: 'Service unavailable: the chain node cannot be reached' },
  );

/** 502: the node answered a query with an error (in its words), which this service cannot answer for it. */
export const nodeRefused = (error: unknown) =>
  new HttpError(502, 'The chain node refused the query', [{ message: queryRefusal(error)?.log ?? '' }]);

/** Whether the node answered the query with an error (as opposed to not answering at all). */
export const nodeAnswered = (error: unknown) => error instanceof Error && queryRefusal(error) !== undefined;

// The chain's bech32 prefixes (docs/real-chains.md "Address prefixes"): its accounts' (the
// contracts' addresses carry it), its validator operators' and its consensus addresses'.
// Most chains make the last two from the first (`cosmos`, `cosmosvaloper`, `cosmosvalcons`);
// some do not (crypto.org: `cro`, `crocncl`, `crocnclcons`), so they are read from the chain:
// an operator address from the staking module, a consensus address from the slashing
// module's signing infos.
import { fromBech32 } from '@cosmjs/encoding';
import { QuerySigningInfosRequest, QuerySigningInfosResponse } from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import { QueryValidatorsRequest, QueryValidatorsResponse } from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { createBackoff, sleep, within } from '../internal/backoff.ts';
import type { ChainClient } from './client.ts';
import { queryRefusal } from './errors.ts';

export interface Prefixes {
  account: string;
  validator: string;
  consensus: string;
}

/** The prefixes most chains use with this account prefix: `<p>valoper`, `<p>valcons`. */
export const prefixesOf = (account: string): Prefixes => ({
  account,
  validator: `${account}valoper`,
  consensus: `${account}valcons`,
});

/** The consensus prefix that goes with an operator prefix when the chain shows none: `…valoper` → `…valcons`, else `…cons` (crypto.org's `crocncl` → `crocnclcons`). */
export const consensusPrefixOf = (validator: string): string =>
  validator.endsWith('valoper') ? `${validator.slice(0, -'valoper'.length)}valcons` : `${validator}cons`;

/** The bech32 prefix of `address`, or undefined when it is not bech32. */
function prefixOf(address: string | undefined): string | undefined {
  if (!address) return undefined;
  try {
    return fromBech32(address, 1023).prefix;
  } catch {
    return undefined;
  }
}

/** The address a one-item page of a query shows; undefined when it shows none or the node refuses the query. */
async function firstAddress(
  chain: ChainClient,
  path: string,
  request: Uint8Array,
  read: (value: Uint8Array) => string | undefined,
): Promise<string | undefined> {
  let value: Uint8Array;
  try {
    ({ value } = await chain.queries.queryAbci(path, request));
  } catch (error) {
    // the node answered and refused (a chain without the module): nothing to read; no answer: rethrown
    if (queryRefusal(error)) return undefined;
    throw error;
  }
  return read(value);
}

/** How many signing infos are read for a consensus address: a chain's first ones may have none (genesis or migrated validators on some chains). */
const SIGNING_INFOS_PAGE = 50n;

/**
 * The chain's prefixes, read from the node. What the chain does not show (no validator, no
 * signing info with an address, a module it lacks) is made from what is known. Rejects when
 * the node does not answer.
 */
export async function readPrefixes(chain: ChainClient, account: string): Promise<Prefixes> {
  const [operator, consensus] = await Promise.all([
    firstAddress(
      chain,
      '/cosmos.staking.v1beta1.Query/Validators',
      QueryValidatorsRequest.encode(QueryValidatorsRequest.fromPartial({ pagination: { limit: 1n } })).finish(),
      (value) => QueryValidatorsResponse.decode(value).validators[0]?.operatorAddress,
    ),
    firstAddress(
      chain,
      '/cosmos.slashing.v1beta1.Query/SigningInfos',
      QuerySigningInfosRequest.encode(
        QuerySigningInfosRequest.fromPartial({ pagination: { limit: SIGNING_INFOS_PAGE } }),
      ).finish(),
      (value) => QuerySigningInfosResponse.decode(value).info.find((i) => prefixOf(i.address))?.address,
    ),
  ]);
  const validator = prefixOf(operator) ?? prefixesOf(account).validator;
  return { account, validator, consensus: prefixOf(consensus) ?? consensusPrefixOf(validator) };
}

/** The prefixes a Chain API uses: the usual ones until the node's are read, then those (in place). */
export interface ChainPrefixes {
  /** The prefixes in use, updated in place once read. */
  readonly current: Prefixes;
  /** Whether `current` is what the node showed (not made from the account prefix while it does not answer). */
  read(): boolean;
  /** Stops reading them again. */
  stop(): void;
}

/**
 * Reads the chain's prefixes: waits up to `waitMs` for the node, then goes on without them
 * (the usual ones in the meantime) and reads them again with a backoff until it answers.
 * `onRead` and `onMissing` say what happened, for the log.
 */
export async function followPrefixes(
  chain: ChainClient,
  account: string,
  {
    waitMs = 2_000,
    retryMs = { min: 1_000, max: 60_000 },
    onRead = () => {},
    onMissing = () => {},
  }: {
    waitMs?: number;
    retryMs?: { min: number; max: number };
    onRead?: (prefixes: Prefixes) => void;
    onMissing?: (error: Error) => void;
  } = {},
): Promise<ChainPrefixes> {
  const current = prefixesOf(account);
  let read = false;
  const stopped = new AbortController();
  const backoff = createBackoff(retryMs.min, retryMs.max);
  const attempt = async (): Promise<void> => {
    for (let first = true; !stopped.signal.aborted; first = false) {
      try {
        Object.assign(current, await readPrefixes(chain, account));
        read = true;
        onRead(current);
        return;
      } catch (error) {
        if (first) onMissing(error as Error);
        await sleep(backoff.next(), stopped.signal);
      }
    }
  };
  await within(attempt(), waitMs, stopped.signal);
  return { current, read: () => read, stop: () => stopped.abort() };
}

// The USD price of one display unit of the chain's native coin for GET /api/wallet/prices
// (docs/launchpad-api.md "Wallet"): the launchpad's oracle price (`config` → native_usd_micro
// ÷ 10^6), or a number in the JSON of PRICE_URL at PRICE_JSON_PATH. Kept 5 minutes;
// concurrent callers share one fetch; a failed source is 0 for a shorter while, with one
// warning per failure (not one per request).
import type { ChainClient } from '../../../chain/client.ts';
import { within } from '../../../internal/backoff.ts';
import type { Logger } from '../../../internal/logger.ts';

export interface PriceOptions {
  /** An HTTP(S) URL answering JSON; unset: the launchpad's `config` query. */
  url?: string;
  /** Where the number is in the URL's JSON: property names (and array indexes) joined by dots. */
  jsonPath?: string;
  /** How long a price is kept (default 5 minutes). */
  ttlMs?: number;
  /** How long the 0 of a failed source is kept before the source is asked again (default 30 s). */
  failureTtlMs?: number;
  /** How long the source may take (default 5 s). */
  timeoutMs?: number;
  /** Milliseconds on a monotonic clock (default performance.now); tests pass a clock they move. */
  clock?: () => number;
}

export const PRICE_TTL_MS = 5 * 60_000;
export const DEFAULT_PRICE_JSON_PATH = 'NATIVE';

export interface PriceSource {
  /** One display unit of the native coin in USD; 0 while the source fails. Never rejects. */
  nativeUsd(): Promise<number>;
}

/** The number at `path` in `json`: a JSON number or a decimal string, finite and not negative. */
export function priceAt(json: unknown, path: string): number {
  let value = json;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key))
      throw new Error(`the answer has nothing at ${path}`);
    value = (value as Record<string, unknown>)[key];
  }
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0) throw new Error(`${path} is not a price: ${JSON.stringify(value)}`);
  return n;
}

async function fromUrl(url: string, path: string, timeoutMs: number): Promise<number> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`the price URL answered HTTP ${response.status}`);
  return priceAt(await response.json(), path);
}

async function fromLaunchpad(chain: ChainClient, launchpad: string, timeoutMs: number): Promise<number> {
  const config = await within(chain.smartQuery<{ native_usd_micro?: unknown }>(launchpad, { config: {} }), timeoutMs);
  if (config === undefined) throw new Error(`no answer within ${timeoutMs} ms`);
  const micro = config?.native_usd_micro;
  if (typeof micro !== 'string' || !/^\d+$/.test(micro))
    throw new Error(`the launchpad's config has no native_usd_micro: ${JSON.stringify(micro)}`);
  return Number(BigInt(micro)) / 1e6;
}

export function createPriceSource(
  { chain, launchpad, logger }: { chain: ChainClient; launchpad: string; logger: Logger },
  options: PriceOptions = {},
): PriceSource {
  const {
    url,
    jsonPath = DEFAULT_PRICE_JSON_PATH,
    ttlMs = PRICE_TTL_MS,
    failureTtlMs = 30_000,
    timeoutMs = 5_000,
    clock = () => performance.now(),
  } = options;
  const source = url ? 'PRICE_URL' : 'the launchpad config query';
  let kept: { value: number; until: number } | undefined;
  let inFlight: Promise<number> | undefined;
  let failing = false;

  const fetchOnce = async (): Promise<number> => {
    try {
      const value = url ? await fromUrl(url, jsonPath, timeoutMs) : await fromLaunchpad(chain, launchpad, timeoutMs);
      kept = { value, until: clock() + ttlMs };
      if (failing) logger.info({ source }, "The native coin's price source answered again");
      failing = false;
      return value;
    } catch (error) {
      if (!failing)
        logger.warn({ source, err: (error as Error).message }, "The native coin's price source failed; serving 0");
      failing = true;
      kept = { value: 0, until: clock() + Math.min(failureTtlMs, ttlMs) };
      return 0;
    }
  };

  return {
    nativeUsd() {
      if (kept && clock() < kept.until) return Promise.resolve(kept.value);
      inFlight ??= fetchOnce().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}

// The wallet routes under test: an API process with the wallet options pointing at a devnet,
// a chain client that counts the broadcasts reaching the node, transactions signed with
// cosmjs and sent as raw bytes, and POSTs of JSON.
import { sha256 } from '@cosmjs/crypto';
import { toBase64, toHex } from '@cosmjs/encoding';
import type { EncodeObject } from '@cosmjs/proto-signing';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { LaunchpadApi, LaunchpadApiOptions } from '../../src/api/launchpad/server.ts';
import type { WalletOptions } from '../../src/api/launchpad/wallet/options.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import type { Database } from '../../src/db/types.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { feeFor, signingClient } from './devnet.ts';
import { startApi } from './launchpad-api.ts';

/** A chain client whose `broadcasts` counts the broadcasts it sent to the node. */
export function countingChain(devnet: Devnet): ChainClient & { broadcasts: number } {
  const chain = createChainClient(devnet.rpcUrl, { timeoutMs: 3_000 }) as ChainClient & { broadcasts: number };
  chain.broadcasts = 0;
  const sync = chain.comet.broadcastTxSync.bind(chain.comet);
  chain.comet.broadcastTxSync = (params) => {
    chain.broadcasts++;
    return sync(params);
  };
  return chain;
}

/** An API process on `db` serving the wallet routes against `devnet` through `chain`. */
export function startWalletApi(
  db: Database,
  devnet: Devnet,
  chain: ChainClient,
  wallet: Partial<WalletOptions> = {},
  options: Partial<LaunchpadApiOptions> = {},
): Promise<LaunchpadApi> {
  return startApi(db, {
    rateLimit: { points: 100_000, windowSeconds: 60, trustedHops: 0 },
    wallet: { chain, accountPrefix: 'native', launchpad: devnet.contracts.launchpad, ...wallet },
    ...options,
  });
}

export const send = (from: string, to: string, amount: bigint): EncodeObject => ({
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: { fromAddress: from, toAddress: to, amount: [{ denom: 'unative', amount: String(amount) }] },
});

export interface SignedTx {
  address: string;
  bytes: Uint8Array;
  base64: string;
  hash: string;
}

export const hashOf = (bytes: Uint8Array) => toHex(sha256(bytes)).toUpperCase();

/**
 * Account `index` signs `messages` without broadcasting: the account's sequence (`+ skip`),
 * or another account number or chain id when asked (a signature the node cannot verify).
 */
export async function signTx(
  devnet: Devnet,
  index: number,
  messages: (address: string) => EncodeObject[],
  {
    gas = 200_000,
    fee = feeFor(gas),
    skip = 0,
    memo = '',
    chainId = devnet.chainId,
    accountNumberDelta = 0,
  }: {
    gas?: number;
    fee?: { amount: { denom: string; amount: string }[]; gas: string };
    skip?: number;
    memo?: string;
    chainId?: string;
    accountNumberDelta?: number;
  } = {},
): Promise<SignedTx> {
  const { client, address } = await signingClient(devnet, index);
  try {
    const account = await client.getAccount(address);
    const raw = await client.sign(address, messages(address), fee, memo, {
      accountNumber: (account?.accountNumber ?? 0) + accountNumberDelta,
      sequence: (account?.sequence ?? 0) + skip,
      chainId,
    });
    const bytes = TxRaw.encode(raw).finish();
    return { address, bytes, base64: toBase64(bytes), hash: hashOf(bytes) };
  } finally {
    client.disconnect();
  }
}

/** POSTs `body` (JSON unless a string) to the API; the status, headers and parsed body. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read whatever fields they assert on
export async function post<Body = any>(api: LaunchpadApi, path: string, body: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Body };
}

// What every JSON-RPC method handler is given and returns, and the helpers the groups share.
import { toBase64 } from '@cosmjs/encoding';
import type { AbciQuery } from '../abci/router.ts';
import type { BlockStore } from '../blocks/block-store.ts';
import type { DevnetNode } from '../node/node.ts';
import { rpcErrors } from './errors.ts';
import type { JsonBytes } from './json-bytes.ts';
import type { Params } from './params.ts';

export interface MethodContext {
  node: DevnetNode;
  abciQuery: AbciQuery;
  nodeId: string;
  listenAddr: string;
  rpcAddress: string;
  genesisAppState: () => unknown;
  /** How long broadcast_tx_commit waits for inclusion. */
  commitTimeoutMs: number;
}

/** An object to stringify, JSON text, or JSON already encoded as bytes (a block's stored results). */
export type MethodResult = object | string | JsonBytes;
export type Method = (params: Params) => MethodResult | Promise<MethodResult>;

export const pubKeyJson = (key: Uint8Array) => ({ type: 'tendermint/PubKeyEd25519', value: toBase64(key) });

/** CometBFT's getHeight: an absent height means the latest. */
export function heightParam(store: BlockStore, params: Params, name = 'height'): number {
  const height = params.int(name);
  if (height === undefined) return store.height;
  if (height <= 0) throw rpcErrors.internal(`height must be greater than 0, but got ${height}`);
  if (height > store.height)
    throw rpcErrors.internal(
      `height ${height} must be less than or equal to the current blockchain height ${store.height}`,
    );
  return height;
}

// A devnet for tests and the clients that talk to it: the devnet on an ephemeral port (in the
// CometBFT version DEVNET_COMET_VERSION names, 0.38 when unset), cosmjs wallets for its
// well-known accounts, signing and query clients configured as a dApp would configure them,
// and raw JSON-RPC for the protocol details cosmjs hides.
import { randomBytes } from 'node:crypto';
import { makeCosmoshubPath } from '@cosmjs/amino';
import { type JsonObject, SigningCosmWasmClient } from '@cosmjs/cosmwasm-stargate';
import { toBech32 } from '@cosmjs/encoding';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import {
  GasPrice,
  QueryClient,
  SigningStargateClient,
  setupAuthExtension,
  setupBankExtension,
  setupGovExtension,
  setupMintExtension,
  setupStakingExtension,
  setupTxExtension,
} from '@cosmjs/stargate';
import { connectComet } from '@cosmjs/tendermint-rpc';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { createNativeRegistry } from '../../src/chain/bridge-msg.ts';
import {
  COMET_VERSIONS,
  type CometVersion,
  createDevnet,
  DEFAULT_DEVNET_MNEMONIC,
  type Devnet,
  type DevnetOptions,
} from '../../src/devnet/index.ts';

export const GAS_PRICE = GasPrice.fromString('0.01unative');

/** The CometBFT version the test run asks for (DEVNET_COMET_VERSION), or undefined for the devnet's default. */
export function cometVersionFromEnv(): CometVersion | undefined {
  const value = process.env.DEVNET_COMET_VERSION;
  if (value === undefined || value === '') return undefined;
  if (!(COMET_VERSIONS as readonly string[]).includes(value)) {
    throw new Error(`DEVNET_COMET_VERSION must be one of ${COMET_VERSIONS.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as CometVersion;
}

/**
 * A devnet on an ephemeral port that makes blocks only when told to and trades only when
 * asked, speaking the CometBFT version of DEVNET_COMET_VERSION unless `options` names one.
 */
export function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  return createDevnet({ port: 0, blockMs: 0, tradesPerBlock: 0, cometVersion: cometVersionFromEnv(), ...options });
}

interface TextEvent {
  type: string;
  attributes: readonly { key: string; value: string }[];
}

/**
 * Events as text whatever the devnet's version: a 0.34 node sends attribute keys and values
 * in base64, which cosmjs (whose clients start at 0.37) hands on as they came.
 */
export function textEvents<E extends TextEvent>(devnet: Pick<Devnet, 'cometVersion'>, events: readonly E[]): E[] {
  if (devnet.cometVersion !== '0.34') return [...events];
  const text = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  return events.map((e) => ({
    ...e,
    attributes: e.attributes.map((a) => ({ ...a, key: text(a.key), value: text(a.value) })),
  }));
}

/** `{ msg_index }` as SDK 0.50 (CometBFT 0.38 mode) appends it to a message's events; nothing before 0.50. */
export const msgIndexAttribute = (devnet: Pick<Devnet, 'cometVersion'>, msgIndex: number): { msg_index?: string } =>
  devnet.cometVersion === '0.38' ? { msg_index: String(msgIndex) } : {};

/**
 * Which message emitted each event of a tx: `msg_index` where the SDK writes it (0.50), else
 * counted from the `message` event whose first attribute is `action`, which opens each
 * message's events (SDK 0.45 to 0.47); the ante handler's events before it count as message 0.
 */
export function messageIndexesOf(devnet: Pick<Devnet, 'cometVersion'>, events: readonly TextEvent[]): number[] {
  if (devnet.cometVersion === '0.38') {
    return events.map((e) => Number(e.attributes.find((a) => a.key === 'msg_index')?.value ?? 0));
  }
  let current = -1;
  return events.map((e) => {
    if (e.type === 'message' && e.attributes[0]?.key === 'action') current++;
    return Math.max(current, 0);
  });
}

/** The cosmjs client for the devnet's version, as StargateClient picks it (0.37's for 0.34 and 0.37, Comet38 for 0.38). */
export const cometClient = (devnet: Devnet) => connectComet(devnet.rpcUrl);

/** An address nobody holds: 32 random bytes (a contract address's length) in bech32 `native`. */
export const randomAddress = () => toBech32('native', randomBytes(32));

export function wallet(index: number, mnemonic = DEFAULT_DEVNET_MNEMONIC) {
  return DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: 'native', hdPaths: [makeCosmoshubPath(index)] });
}

const clientOptions = {
  registry: createNativeRegistry(),
  gasPrice: GAS_PRICE,
  broadcastPollIntervalMs: 50,
  broadcastTimeoutMs: 4_000,
};

export async function signingClient(devnet: Devnet, index: number) {
  const signer = await wallet(index);
  const [{ address }] = await signer.getAccounts();
  return {
    client: await SigningStargateClient.connectWithSigner(devnet.rpcUrl, signer, clientOptions),
    address: address!,
    signer,
  };
}

/**
 * A SigningCosmWasmClient for account `index`, with `execute(contract, msg, funds)` paying an
 * 'auto' fee and answering the tx's events as text (textEvents).
 */
export async function wasmClient(devnet: Devnet, index: number) {
  const signer = await wallet(index);
  const [{ address }] = await signer.getAccounts();
  const client = await SigningCosmWasmClient.connectWithSigner(devnet.rpcUrl, signer, {
    gasPrice: GAS_PRICE,
    broadcastPollIntervalMs: 50,
    broadcastTimeoutMs: 4_000,
  });
  const execute = async (contract: string, msg: unknown, funds: Coin[] = []) => {
    const result = await client.execute(address!, contract, msg as JsonObject, 'auto', '', funds);
    return { ...result, events: textEvents(devnet, result.events) };
  };
  return { client, address: address!, signer, execute };
}

export const feeFor = (gas: number) => ({
  amount: [{ denom: 'unative', amount: String(Math.ceil(gas / 100)) }],
  gas: String(gas),
});

export const attr = (
  events: readonly { type: string; attributes: readonly { key: string; value: string }[] }[],
  type: string,
) => events.filter((e) => e.type === type).map((e) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value])));

export interface RpcError {
  code: number;
  message: string;
  data: string;
}

/** A JSON-RPC answer: `result` when the call succeeded, `error` when it did not. */
export interface RpcAnswer<Result> {
  jsonrpc: '2.0';
  id: number;
  result?: Result;
  error?: RpcError;
}

interface SearchedTx {
  hash: string;
  height: string;
  index: number;
}

/** The parts of the CometBFT results the tests read, by method. */
export interface RpcResults {
  health: Record<string, never>;
  status: { node_info: { network: string }; sync_info: { latest_block_height: string } };
  block: {
    block_id: { hash: string };
    block: {
      header: { height: string; last_block_id: { hash: string } };
      last_commit: { height: string };
      data: { txs: string[] };
    };
  };
  block_results: { height: string; txs_results: unknown[] };
  blockchain: { last_height: string; block_metas: { header: { height: string } }[] };
  genesis: { genesis: { chain_id: string } };
  tx: SearchedTx;
  tx_search: { total_count: string; txs: SearchedTx[] };
  /** `deliver_tx` in CometBFT 0.34 and 0.37, `tx_result` in 0.38. */
  broadcast_tx_commit: {
    check_tx: { code: number };
    tx_result?: { code: number };
    deliver_tx?: { code: number };
    height: string;
  };
  num_unconfirmed_txs: { n_txs: string; total: string };
}

/** What `method` answers with: its entry in RpcResults, unknown for any other method. */
export type RpcResult<Method extends string> = Method extends keyof RpcResults ? RpcResults[Method] : unknown;

/** JSON-RPC POST straight to the devnet, for protocol details cosmjs hides. */
export async function rpc<Method extends string>(
  devnet: Devnet,
  method: Method,
  params: unknown = {},
): Promise<RpcAnswer<RpcResult<Method>>> {
  const response = await fetch(devnet.rpcUrl, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await response.json()) as RpcAnswer<RpcResult<Method>>;
}

/** The result of a JSON-RPC call that must succeed; an error answer throws, saying what it was. */
export async function rpcResult<Method extends string>(
  devnet: Devnet,
  method: Method,
  params: unknown = {},
): Promise<RpcResult<Method>> {
  const answer = await rpc(devnet, method, params);
  if (answer.result === undefined) throw new Error(`${method} answered ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** A cosmjs QueryClient with the module extensions a Chain API uses. */
export async function queryClient(devnet: Devnet) {
  const comet = await cometClient(devnet);
  const query = QueryClient.withExtensions(
    comet,
    setupAuthExtension,
    setupBankExtension,
    setupStakingExtension,
    setupMintExtension,
    setupGovExtension,
    setupTxExtension,
  );
  return { query, comet };
}

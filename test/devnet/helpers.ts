// Shared setup of the devnet tests: a devnet on an ephemeral port, cosmjs wallets for the
// well-known accounts, and signing clients configured as a dApp would configure them.
import { makeCosmoshubPath } from '@cosmjs/amino';
import { type JsonObject, SigningCosmWasmClient } from '@cosmjs/cosmwasm-stargate';
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
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { DEFAULT_DEVNET_MNEMONIC } from '../../src/config.ts';
import { createNativeRegistry } from '../../src/devnet/bridge/msg-burn-for-bridge-out.ts';
import { createDevnet, type Devnet, type DevnetOptions } from '../../src/devnet/index.ts';

export const GAS_PRICE = GasPrice.fromString('0.01unative');

export function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  return createDevnet({ port: 0, blockMs: 100, ...options });
}

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

/** A SigningCosmWasmClient for account `index`, with `execute(contract, msg, funds)` paying an 'auto' fee. */
export async function wasmClient(devnet: Devnet, index: number) {
  const signer = await wallet(index);
  const [{ address }] = await signer.getAccounts();
  const client = await SigningCosmWasmClient.connectWithSigner(devnet.rpcUrl, signer, {
    gasPrice: GAS_PRICE,
    broadcastPollIntervalMs: 50,
    broadcastTimeoutMs: 4_000,
  });
  const execute = (contract: string, msg: unknown, funds: Coin[] = []) =>
    client.execute(address!, contract, msg as JsonObject, 'auto', '', funds);
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

/** JSON-RPC POST straight to the devnet, for protocol details cosmjs hides. */
export async function rpc(devnet: Devnet, method: string, params: unknown = {}) {
  const response = await fetch(devnet.rpcUrl, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await response.json()) as {
    id: number;
    result?: any;
    error?: { code: number; message: string; data: string };
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cosmjs QueryClient with the module extensions a Chain API uses. */
export async function queryClient(devnet: Devnet) {
  const comet = await Comet38Client.connect(devnet.rpcUrl);
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

// The chain's validator and consensus prefixes (src/chain/bech32-prefixes.ts), read from its
// node: the devnet's usual ones, and crypto.org's own (`tcro`, `tcrocncl`; its operator
// address from a recorded create-validator tx, test/fixtures/cosmos-rest/SOURCES.md) from a
// node that answers the staking module's validators with it; the Chain API takes that
// chain's operator addresses and refuses the usual `<account>valoper` ones.
import { toBech32 } from '@cosmjs/encoding';
import { QuerySigningInfosResponse } from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import { QueryValidatorsResponse } from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consensusPrefixOf, readPrefixes } from '../../src/chain/bech32-prefixes.ts';
import { createChainClient } from '../../src/chain/client.ts';
import { chainGet, startTestChainApi } from '../helpers/chain-api.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { RECORDED, type RecordedChainOptions, startRecordedChain } from '../helpers/recorded-chain.ts';
import { fixture } from '../helpers/rest-shape.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite('chain API: the chain’s bech32 prefixes');

// biome-ignore lint/suspicious/noExplicitAny: recorded JSON
type Json = any;

/**
 * A node whose staking module's validators carry crypto.org testnet's operator address (that
 * of a recorded create-validator tx), and a Chain API of account prefix `tcro` on it.
 */
async function cryptoOrgTestnet(options: Partial<RecordedChainOptions> = {}) {
  const recordedTx = fixture('tx-cryptoorg-create-validator') as Json;
  const operator = JSON.parse(recordedTx.tx_response.raw_log)[0].events[0].attributes[0].value as string;
  const node = await startRecordedChain({
    ...RECORDED.comet037(),
    ...options,
    abci: {
      '/cosmos.staking.v1beta1.Query/Validators': QueryValidatorsResponse.encode(
        QueryValidatorsResponse.fromPartial({ validators: [{ operatorAddress: operator }] }),
      ).finish(),
    },
  });
  const chain = createChainClient(node.url, { attempts: 1 });
  const t = await openTestDatabase();
  const api = await startTestChainApi(t, chain, { accountPrefix: 'tcro' });
  return { operator, node, chain, t, api };
}

test('the devnet’s: its validators carry `nativevaloper`; it keeps no signing infos, so the consensus prefix goes with it', async () => {
  const devnet = await startDevnet();
  const chain = createChainClient(devnet.rpcUrl, { attempts: 1 });
  try {
    assert.equal(await readPrefixes(chain, 'native'), {
      account: 'native',
      validator: 'nativevaloper',
      consensus: 'nativevalcons',
    });
  } finally {
    chain.disconnect();
    await devnet.close();
  }
});

test('a consensus prefix made from an operator prefix: `…valoper` → `…valcons`, another → `…cons`', () => {
  assert.is(consensusPrefixOf('cosmosvaloper'), 'cosmosvalcons');
  assert.is(consensusPrefixOf('crocncl'), 'crocnclcons');
  assert.is(consensusPrefixOf('tcrocncl'), 'tcrocnclcons');
});

test('crypto.org’s testnet: operator addresses `tcrocncl1…` read from the node, taken by the staking routes; `tcrovaloper1…` refused', async () => {
  const { operator, node, chain, t, api } = await cryptoOrgTestnet();
  assert.match(operator, /^tcrocncl1/);
  try {
    assert.equal(api.prefixes, { account: 'tcro', validator: 'tcrocncl', consensus: 'tcrocnclcons' });
    // taken, and asked of the node (which has no such query here: 501, as a node without it answers)
    const taken = await chainGet(api, `/cosmos/staking/v1beta1/validators/${operator}`);
    assert.is(taken.status, 501, JSON.stringify(taken.body));
    const usual = await chainGet(
      api,
      `/cosmos/staking/v1beta1/validators/${toBech32('tcrovaloper', new Uint8Array(20).fill(1))}`,
    );
    assert.is(usual.status, 400);
    assert.match(usual.body.message, /expected 'tcrocncl' got 'tcrovaloper'/);
  } finally {
    await api.close();
    chain.disconnect();
    await node.close();
    await t.dispose();
  }
});

test('prefixes no rule makes (IRISnet: iaa, iva, ica) read from the node; a signing info without an address is passed over', async () => {
  const bytes = (n: number) => new Uint8Array(20).fill(n);
  const node = await startRecordedChain({
    ...RECORDED.comet037(),
    abci: {
      '/cosmos.staking.v1beta1.Query/Validators': QueryValidatorsResponse.encode(
        QueryValidatorsResponse.fromPartial({ validators: [{ operatorAddress: toBech32('iva', bytes(1)) }] }),
      ).finish(),
      // a genesis validator's signing info first, with no address (as on some chains)
      '/cosmos.slashing.v1beta1.Query/SigningInfos': QuerySigningInfosResponse.encode(
        QuerySigningInfosResponse.fromPartial({ info: [{ address: '' }, { address: toBech32('ica', bytes(2)) }] }),
      ).finish(),
    },
  });
  const chain = createChainClient(node.url, { attempts: 1 });
  try {
    assert.equal(await readPrefixes(chain, 'iaa'), { account: 'iaa', validator: 'iva', consensus: 'ica' });
  } finally {
    chain.disconnect();
    await node.close();
  }
});

test('a node that does not say them at start (rate-limited): the usual prefixes and blocks not kept meanwhile; read in the background, then the chain’s, and blocks kept', async () => {
  const { node, chain, t, api } = await cryptoOrgTestnet({
    rateLimit: { count: Number.MAX_SAFE_INTEGER, retryAfter: '0', method: 'abci_query' },
  });
  const block = `/cosmos/base/tendermint/v1beta1/blocks/${node.options.blocks[0]!.height}`;
  try {
    assert.equal(api.prefixes, { account: 'tcro', validator: 'tcrovaloper', consensus: 'tcrovalcons' });
    const early = await chainGet(api, block);
    assert.is(early.status, 200, JSON.stringify(early.body));
    assert.is(early.headers.get('cache-control'), 'public, max-age=60', 'its proposer’s prefix not known yet');
    assert.match(early.body.sdk_block.header.proposer_address, /^tcrovalcons1/);
    node.options.rateLimit = undefined; // the provider lets the queries through again
    assert.ok(await waitFor(() => api.prefixes.validator === 'tcrocncl', 20_000), 'read in the background');
    assert.equal(api.prefixes, { account: 'tcro', validator: 'tcrocncl', consensus: 'tcrocnclcons' });
    const kept = await chainGet(api, block);
    assert.is(kept.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(kept.body.sdk_block.header.proposer_address, /^tcrocnclcons1/);
  } finally {
    await api.close();
    chain.disconnect();
    await node.close();
    await t.dispose();
  }
});

test.run();

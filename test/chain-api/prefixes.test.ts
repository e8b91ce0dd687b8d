// The chain's validator and consensus prefixes (src/chain/bech32-prefixes.ts), read from its
// node: the devnet's usual ones, and crypto.org's own (`tcro`, `tcrocncl`; its operator
// address from a recorded create-validator tx, test/fixtures/cosmos-rest/SOURCES.md) from a
// node that answers the staking module's validators with it; the Chain API takes that
// chain's operator addresses and refuses the usual `<account>valoper` ones.
import { toBech32 } from '@cosmjs/encoding';
import { QueryValidatorsResponse } from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consensusPrefixOf, readPrefixes } from '../../src/chain/bech32-prefixes.ts';
import { createChainClient } from '../../src/chain/client.ts';
import { chainGet, startTestChainApi } from '../helpers/chain-api.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { RECORDED, startRecordedChain } from '../helpers/recorded-chain.ts';
import { fixture } from '../helpers/rest-shape.ts';

const test = suite('chain API: the chain’s bech32 prefixes');

// biome-ignore lint/suspicious/noExplicitAny: recorded JSON
type Json = any;

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
  // the operator address of a recorded create-validator tx
  const recordedTx = fixture('tx-cryptoorg-create-validator') as Json;
  const operator = JSON.parse(recordedTx.tx_response.raw_log)[0].events[0].attributes[0].value as string;
  assert.match(operator, /^tcrocncl1/);
  const node = await startRecordedChain({
    ...RECORDED.comet037(),
    abci: {
      '/cosmos.staking.v1beta1.Query/Validators': QueryValidatorsResponse.encode(
        QueryValidatorsResponse.fromPartial({ validators: [{ operatorAddress: operator }] }),
      ).finish(),
    },
  });
  const chain = createChainClient(node.url, { attempts: 1 });
  const t = await openTestDatabase();
  const api = await startTestChainApi(t, chain, { accountPrefix: 'tcro' });
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

test.run();

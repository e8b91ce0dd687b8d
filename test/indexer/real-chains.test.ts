// Recorded blocks of real public chains (test/fixtures/real-chains/SOURCES.md), one per
// CometBFT protocol version in use, served as a chain by a recorded-RPC node that refuses
// the websocket: the indexer reaches the tip, and the Chain API serves every block and tx
// as the node recorded it (hash, txs, code, gas, events as it sent them), found by
// `tx.height` and `message.sender` (or `message.action`); a tx it does not hold is read
// through, 404 only when the node says it holds none.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { toBech32 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createChainClient } from '../../src/chain/client.ts';
import { messageIndexes, readEvents, type WireBlockResults } from '../../src/chain/node-events.ts';
import { createIndexer } from '../../src/indexer/indexer.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { chainGet, startTestChainApi } from '../helpers/chain-api.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { RECORDED, type RecordedBlock, startRecordedChain, txHashOf } from '../helpers/recorded-chain.ts';

const test = suite('recorded real chains');

// biome-ignore lint/suspicious/noExplicitAny: recorded JSON
type Json = any;

/**
 * A tx result's events as the Chain API prints them: as the node sent them, keys and values
 * in base64 on 0.34 (as the gateway of SDK 0.45 and 0.46 prints them, empty ones null), text
 * from 0.37 (absent values as '').
 */
function expectedEvents(results: Json, index: number, protocol: '0.34' | 'text') {
  return (results.txs_results[index].events ?? []).map((e: Json) => ({
    type: e.type,
    attributes: (e.attributes ?? []).map((a: Json) => ({
      key: protocol === '0.34' ? a.key || null : (a.key ?? ''),
      value: protocol === '0.34' ? a.value || null : (a.value ?? ''),
    })),
  }));
}

const q = (s: string) => encodeURIComponent(s);

for (const [name, recorded, protocol] of [
  ['Tendermint 0.34 (injective-1)', RECORDED.tm034, '0.34'],
  ['CometBFT 0.37 (dydx-mainnet-1)', RECORDED.comet037, '0.37'],
  ['CometBFT 0.37, CosmWasm (archway-1)', RECORDED.comet037wasm, '0.37'],
  ['CometBFT 0.38 (celestia)', RECORDED.comet038, '0.38'],
] as const) {
  test(`${name}: indexed to the tip without a websocket, every block and tx served as recorded`, async () => {
    const { version, blocks, prefix } = recorded();
    const node = await startRecordedChain({ version, blocks });
    const t = await openTestDatabase();
    const chain = createChainClient(node.url);
    const contract = () => toBech32(prefix, randomBytes(32));
    const indexer = createIndexer({
      db: t.db,
      chain,
      contracts: { launchpad: contract(), amm: contract() },
      logger: silentLogger,
      pollIntervalMs: 100,
      startHeight: blocks[0]!.height,
    });
    let api: Awaited<ReturnType<typeof startTestChainApi>> | undefined;
    try {
      indexer.start();
      await indexer.checked();
      const tip = blocks.at(-1)!.height;
      await indexer.waitForHeight(tip, 30_000);
      assert.is(chain.protocol, protocol, 'the protocol read from the node');
      assert.is(indexer.status().state, 'live');
      assert.ok(node.upgrades >= 1, 'the websocket was asked for, and refused');

      api = await startTestChainApi(t, chain, { accountPrefix: prefix });
      let searched = 0;
      let longLogs = 0;
      let decoded = 0;
      for (const b of blocks as RecordedBlock[]) {
        const results = JSON.parse(b.resultsText);
        const txs: string[] = b.block.block.data.txs ?? [];
        const block = await chainGet(api, `/cosmos/base/tendermint/v1beta1/blocks/${b.height}`);
        assert.is(block.status, 200);
        assert.is(
          Buffer.from(block.body.block_id.hash, 'base64').toString('hex').toUpperCase(),
          b.block.block_id.hash,
          `block ${b.height}'s recorded hash`,
        );
        assert.equal(block.body.block.data.txs, txs, `block ${b.height}'s txs`);

        const byHeight = await chainGet(api, `/cosmos/tx/v1beta1/txs?events=${q(`tx.height=${b.height}`)}`);
        assert.is(byHeight.status, 200);
        assert.equal(
          byHeight.body.tx_responses.map((r: Json) => r.txhash),
          txs.map(txHashOf),
          `tx.height=${b.height} finds the block's txs in order`,
        );

        for (const [index, tx] of txs.entries()) {
          const hash = txHashOf(tx);
          // the same bytes may be in several blocks (dYdX's proposer txs): the latest is answered
          const latest = (blocks as RecordedBlock[]).findLast((x) =>
            (x.block.block.data.txs ?? []).some((y: string) => txHashOf(y) === hash),
          )!;
          if (latest !== b) {
            const got = await chainGet(api, `/cosmos/tx/v1beta1/txs/${hash}`);
            assert.is(got.body.tx_response.height, String(latest.height), 'the latest block holding the same bytes');
            continue;
          }
          const recordedResult = results.txs_results[index];
          const got = await chainGet(api, `/cosmos/tx/v1beta1/txs/${hash}`);
          assert.is(got.status, 200, `txs/${hash}`);
          const r = got.body.tx_response;
          assert.is(r.height, String(b.height));
          assert.is(r.code, recordedResult.code ?? 0, 'the recorded code');
          assert.is(r.gas_used, recordedResult.gas_used ?? '0', 'the recorded gas used');
          assert.is(r.gas_wanted, recordedResult.gas_wanted ?? '0', 'the recorded gas wanted');
          assert.is(r.raw_log, recordedResult.log ?? '', 'the log as the node wrote it, to the byte');
          if ((recordedResult.log ?? '').length > 256) longLogs++;
          const events = r.events.map((e: Json) => ({
            type: e.type,
            attributes: e.attributes.map((a: Json) => ({ key: a.key, value: a.value })),
          }));
          assert.equal(
            events,
            expectedEvents(results, index, protocol === '0.34' ? '0.34' : 'text'),
            'events as the node sent them',
          );
          if (got.body.tx) decoded++;

          // message.sender, or message.action for a proposer's tx that has no sender (dYdX)
          const message = readEvents(events, protocol === '0.34' ? '0.34' : '0.37').find((e) => e.type === 'message');
          const by = ['sender', 'action']
            .map((key) => [key, message?.attributes.find((a) => a.key === key)?.value])
            .find(([, value]) => value);
          if (!by) continue;
          searched++;
          const condition = `message.${by[0]}='${by[1]}'`;
          const found = await chainGet(api, `/cosmos/tx/v1beta1/txs?events=${q(condition)}&pagination.limit=100`);
          assert.is(found.status, 200);
          assert.ok(
            found.body.tx_responses.some((x: Json) => x.txhash === hash),
            `${condition} finds ${hash}`,
          );
        }
      }
      assert.ok(searched > 0, 'some tx had a message.sender or message.action to search by');
      assert.ok(decoded > 0, 'txs decoded from their bytes');
      if (protocol === '0.34') {
        assert.ok(longLogs > 0, 'SDK 0.45 message logs served as written');
        const [kept] = await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM txs WHERE log_form = 'by-type' AND raw_log = '' AND log_packed IS NULL`,
        );
        assert.is(kept!.n, longLogs, 'each rebuilt from its events: only its form stored');
      }
    } finally {
      await api?.close();
      await indexer.stop();
      chain.disconnect();
      await node.close();
      await t.dispose();
    }
  });
}

test("a tx the index does not hold is read through from the node: 404 when the node holds none, the node's own words when it cannot look txs up", async () => {
  const { version, blocks } = RECORDED.comet038();
  const tx = (blocks[0]!.block.block.data.txs as string[])[0]!;
  const t = await openTestDatabase(); // nothing indexed: every tx is read through
  const nodes = [
    await startRecordedChain({ version, blocks }),
    await startRecordedChain({ version, blocks, txIndexDisabled: true }),
  ];
  const chains = nodes.map((n) => createChainClient(n.url));
  const apis = await Promise.all(chains.map((c) => startTestChainApi(t, c, { accountPrefix: 'celestia' })));
  try {
    const [indexing, notIndexing] = apis as [(typeof apis)[0], (typeof apis)[0]];
    assert.is((await chainGet(indexing, `/cosmos/tx/v1beta1/txs/${txHashOf(tx)}`)).status, 200, 'read through');
    const unknown = await chainGet(indexing, `/cosmos/tx/v1beta1/txs/${'AB'.repeat(32)}`);
    assert.is(unknown.status, 404, 'the node holds no such tx');
    assert.is(unknown.body.code, 5);
    for (const hash of [txHashOf(tx), 'AB'.repeat(32)]) {
      const refused = await chainGet(notIndexing, `/cosmos/tx/v1beta1/txs/${hash}`);
      assert.is(refused.status, 500, 'not "not found": the node cannot tell');
      assert.equal(refused.body, { code: 2, message: 'transaction indexing is disabled', details: [] });
    }
    // a module the chain does not have: Not Implemented, as a node's gateway answers it
    const absent = await chainGet(indexing, '/cosmos/mint/v1beta1/params');
    assert.is(absent.status, 501);
    assert.equal(absent.body, { code: 12, message: 'Not Implemented', details: [] });
  } finally {
    for (const api of apis) await api.close();
    for (const c of chains) c.disconnect();
    for (const n of nodes) await n.close();
    await t.dispose();
  }
});

test('blocks/latest behind a load balancer whose block answers come from a backend a block behind the one that said the tip: that block, not a 400', async () => {
  const { version, blocks } = RECORDED.comet038();
  const t = await openTestDatabase(); // nothing indexed
  const node = await startRecordedChain({ version, blocks, statusAhead: 1 });
  const chain = createChainClient(node.url);
  const api = await startTestChainApi(t, chain, { accountPrefix: 'celestia' });
  try {
    const latest = await chainGet(api, '/cosmos/base/tendermint/v1beta1/blocks/latest');
    assert.is(latest.status, 200, JSON.stringify(latest.body));
    assert.is(latest.body.block.header.height, String(blocks.at(-1)!.height));
  } finally {
    await api.close();
    chain.disconnect();
    await node.close();
    await t.dispose();
  }
});

test('before SDK 0.50, the message event that opens each message attributes the events as the tx log does (osmosis-1, 0.34)', () => {
  const file = path.resolve(import.meta.dirname, '../fixtures/real-chains/tm034-osmosis-1-block_results-10499831.json');
  const results = JSON.parse(readFileSync(file, 'utf8')).result as WireBlockResults;
  let multi = 0;
  let contractEvents = 0;
  for (const r of results.txs_results ?? []) {
    if ((r.code ?? 0) !== 0) continue;
    const events = readEvents(r.events, '0.34');
    const indexes = messageIndexes(events);
    const logs = JSON.parse(r.log!) as { msg_index?: number; events: Json[] }[];
    if (logs.length > 1) multi++;
    // (type, key, value) triples, counted: the log lists a message's events merged by type
    const count = (triples: string[]) => {
      const m = new Map<string, number>();
      for (const x of triples) m.set(x, (m.get(x) ?? 0) + 1);
      return m;
    };
    logs.forEach((log, position) => {
      const msg = log.msg_index ?? position;
      const fromLog = count(
        log.events.flatMap((e: Json) => e.attributes.map((a: Json) => `${e.type}\0${a.key}\0${a.value ?? ''}`)),
      );
      const attributed = count(
        events.flatMap((e, i) =>
          indexes[i] === msg ? e.attributes.map((a) => `${e.type}\0${a.key}\0${a.value}`) : [],
        ),
      );
      // every event the log gives message `msg` is attributed to it (the ante handler's fee
      // events, which no message's log lists, are attributed too: no contract emits them)
      for (const [triple, n] of fromLog)
        assert.ok((attributed.get(triple) ?? 0) >= n, `message ${msg}: ${triple.replaceAll('\0', ' ')}`);
      // and each contract event exactly to the message whose log lists it
      const wasm = (m: Map<string, number>) =>
        [...m].filter(([x]) => x.startsWith('wasm\0')).sort((a, b) => a[0].localeCompare(b[0]));
      assert.equal(wasm(attributed), wasm(fromLog), `message ${msg}'s contract events`);
      contractEvents += wasm(fromLog).length;
    });
  }
  assert.ok(multi >= 2, `txs with several messages were compared (${multi})`);
  assert.ok(contractEvents > 0, 'contract events were compared');
});

test.run();

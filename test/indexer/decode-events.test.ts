// Decoding a block's contract events where their place in chain order cannot be kept: an
// event of the launchpad past index 65535 of its tx (an epoch block's events) is reported
// as malformed and skipped, so its batch is written, never refused by the database again
// and again (src/indexer/decode-events.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LAUNCHPAD_EVENTS } from '../../src/chain/contract-events.ts';
import { decodeBlockEvents, MAX_EVENT_INDEX, type RawTx } from '../../src/indexer/decode-events.ts';
import { randomAddress } from '../helpers/devnet.ts';

test('a launchpad event past index 65535 of its tx is skipped as malformed, saying why; one below is read', () => {
  const contracts = { launchpad: randomAddress(), amm: randomAddress() };
  const buy = {
    type: LAUNCHPAD_EVENTS.buy.type,
    attributes: [{ key: '_contract_address', value: contracts.launchpad }],
  };
  const filler = { type: 'transfer', attributes: [{ key: 'amount', value: '1unative' }] };
  const tx: RawTx = {
    hash: 'AB'.repeat(32),
    index: 0,
    code: 0,
    events: [buy, ...Array.from({ length: MAX_EVENT_INDEX }, () => filler), buy],
  };
  const decoded = decodeBlockEvents({ height: 10, time: new Date(), txs: [tx] }, contracts);
  assert.equal(
    decoded.malformed.map((m) => m.at.eventIndex),
    [0, MAX_EVENT_INDEX + 1],
  );
  // the one below the bound is read (and refused for its missing attributes), the one past it is not
  assert.match(decoded.malformed[0]!.error, /has no \w+ attribute/);
  assert.is(decoded.malformed[1]!.error, `its event index ${MAX_EVENT_INDEX + 1} is past ${MAX_EVENT_INDEX}`);
  assert.equal(decoded.events, []);
});

test.run();

// A batch's token changes are folded block by block where each block is read, then merged
// (src/indexer/token-changes.ts): the merge must give what folding all the batch's events at
// once gives, whatever the events and however the blocks cut them.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent, EventPosition } from '../../src/domain/events.ts';
import { foldTokenChanges, mergeTokenChanges } from '../../src/indexer/token-changes.ts';
import { makeTrade } from '../helpers/trades.ts';

const test = suite('token changes folded by block, then merged');

const TOKENS = ['native1tokena', 'native1tokenb', 'native1tokenc'];

interface Drawn {
  kind: 'token_launch' | 'trade' | 'swap' | 'graduation';
  token: string;
  amount: bigint;
  price: bigint;
}

/** One event of a token at a chain position; its kind and amounts from the generator. */
const eventArb: fc.Arbitrary<Drawn> = fc.record({
  kind: fc.constantFrom<Drawn['kind'][]>('token_launch', 'trade', 'swap', 'graduation'),
  token: fc.constantFrom(...TOKENS),
  amount: fc.bigInt({ min: 0n, max: 10n ** 30n }),
  price: fc.bigInt({ min: 0n, max: 10n ** 12n }),
});

function eventsOf(drawn: readonly Drawn[]): DomainEvent[] {
  return drawn.map((d, i): DomainEvent => {
    const blockHeight = 10 + Math.floor(i / 3);
    const time = new Date(Date.UTC(2026, 0, 1) + blockHeight * 6000);
    const at: EventPosition = {
      blockHeight,
      time,
      txHash: 'AB'.repeat(32),
      txIndex: i % 3,
      msgIndex: 0,
      eventIndex: i,
    };
    switch (d.kind) {
      case 'token_launch':
        return {
          kind: 'token_launch',
          at,
          token: d.token,
          creator: 'native1creator',
          name: 'N',
          symbol: 'S',
          image: '',
          description: '',
          initialReserves: d.amount,
        };
      case 'graduation':
        return { kind: 'graduation', at, token: d.token, nativeForPool: d.amount, tokensForPool: 1n, creator: 'c' };
      default: {
        const amm = d.kind === 'swap';
        const trade = makeTrade({
          time,
          blockHeight,
          txIndex: at.txIndex,
          eventIndex: i,
          tokenAddress: d.token,
          source: amm ? 'amm' : 'launchpad',
          action: amm ? 'swap' : 'buy',
          priceUnative: d.price,
          nativeReserves: d.amount,
        });
        return { kind: 'trade', at, trade };
      }
    }
  });
}

test('merging the blocks\u2019 folds gives the fold of all their events, cut anywhere', () => {
  fc.assert(
    fc.property(
      fc.array(eventArb, { maxLength: 40 }),
      fc.array(fc.nat({ max: 40 }), { maxLength: 6 }),
      (drawn, cuts) => {
        const events = eventsOf(drawn);
        const bounds = [...new Set([0, ...cuts.map((c) => Math.min(c, events.length)), events.length])].sort(
          (a, b) => a - b,
        );
        const runs = bounds.slice(1).map((end, i) => [...foldTokenChanges(events.slice(bounds[i], end)).values()]);
        const merged = mergeTokenChanges(runs);
        const whole = foldTokenChanges(events);
        assert.equal([...merged.keys()].sort(), [...whole.keys()].sort());
        for (const [address, change] of whole) assert.equal(merged.get(address), change, address);
      },
    ),
    { numRuns: 300 },
  );
});

test('a token launched in a later block than its first trade is a launchpad token with that launch', () => {
  const [swap, launch, trade] = eventsOf([
    { kind: 'swap', token: 'native1tokena', amount: 5n, price: 1n },
    { kind: 'token_launch', token: 'native1tokena', amount: 7n, price: 0n },
    { kind: 'trade', token: 'native1tokena', amount: 9n, price: 3n },
  ]);
  const merged = mergeTokenChanges([
    [...foldTokenChanges([swap!]).values()],
    [...foldTokenChanges([launch!]).values()],
    [...foldTokenChanges([trade!]).values()],
  ]).get('native1tokena')!;
  assert.is(merged.source, 'launchpad');
  assert.is(merged.launch, launch);
  assert.equal([merged.reserves, merged.price], [9n, 3n], 'the last trade\u2019s reserves and price');
});

test.run();

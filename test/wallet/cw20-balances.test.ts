// CW20 balances in the index, below the API: cw20-base's events as the contract emits them
// (including the mint and *_from forms the devnet's CW20 has no messages for) decoded into
// movements, and the write path adding each block's movements once whatever order and how
// often blocks arrive, with the run of complete blocks that says what the index vouches for.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Database } from '../../src/db/types.ts';
import { writeCw20Balances } from '../../src/indexer/cw20-balances.ts';
import { type Cw20Changes, decodeCw20 } from '../../src/indexer/decode-cw20.ts';
import type { RawTx } from '../../src/indexer/decode-events.ts';
import type { FetchedBlock } from '../../src/indexer/fetch-blocks.ts';
import { openTestDatabase } from '../helpers/database.ts';

const contracts = { launchpad: 'native1launchpad', amm: 'native1amm' };
const TOKEN = 'native1token';

const wasm = (contract: string, ...attributes: [string, string][]) => ({
  type: 'wasm',
  attributes: [['_contract_address', contract], ...attributes, ['msg_index', '0']].map(([key, value]) => ({
    key: key!,
    value: value!,
  })),
});

const tx = (events: RawTx['events'], code = 0): RawTx => ({ hash: 'H', index: 0, code, events });

const movements = (changes: Cw20Changes) =>
  Object.fromEntries(changes.movements.map((m) => [`${m.token} ${m.holder}`, m.amount]));

test('every cw20-base balance event moves what the contract moved', () => {
  const changes = decodeCw20(
    [
      tx([
        wasm(TOKEN, ['action', 'mint'], ['to', 'alice'], ['amount', '1000']),
        wasm(TOKEN, ['action', 'transfer'], ['from', 'alice'], ['to', 'bob'], ['amount', '100']),
        wasm(TOKEN, ['action', 'send'], ['from', 'alice'], ['to', 'pool'], ['amount', '50']),
        wasm(TOKEN, ['action', 'burn'], ['from', 'bob'], ['amount', '10']),
        wasm(TOKEN, ['action', 'transfer_from'], ['from', 'alice'], ['to', 'carol'], ['by', 'bob'], ['amount', '7']),
        wasm(TOKEN, ['action', 'send_from'], ['from', 'alice'], ['to', 'pool'], ['by', 'bob'], ['amount', '3']),
        wasm(TOKEN, ['action', 'burn_from'], ['from', 'carol'], ['by', 'bob'], ['amount', '2']),
        // a fork naming the owner `owner`
        wasm(
          'native1fork',
          ['action', 'transfer_from'],
          ['owner', 'alice'],
          ['to', 'dave'],
          ['by', 'bob'],
          ['amount', '5'],
        ),
        // moves nothing: a self-transfer, another contract's own actions
        wasm(TOKEN, ['action', 'transfer'], ['from', 'erin'], ['to', 'erin'], ['amount', '9']),
        wasm(TOKEN, ['action', 'increase_allowance'], ['owner', 'alice'], ['spender', 'bob'], ['amount', '99']),
        wasm(contracts.launchpad, ['action', 'buy'], ['token_address', TOKEN]),
        { type: 'transfer', attributes: [{ key: 'amount', value: '5unative' }] },
      ]),
      // a failed tx moved nothing
      tx([wasm(TOKEN, ['action', 'mint'], ['to', 'mallory'], ['amount', '1000000'])], 5),
    ],
    contracts,
  );
  assert.equal(movements(changes), {
    [`${TOKEN} alice`]: 1000n - 100n - 50n - 7n - 3n,
    [`${TOKEN} bob`]: 100n - 10n,
    [`${TOKEN} pool`]: 50n + 3n,
    [`${TOKEN} carol`]: 7n - 2n,
    'native1fork alice': -5n,
    'native1fork dave': 5n,
  });
  assert.equal(changes.origins, []);
  assert.equal(changes.unreadable, []);
});

test('a balance event that breaks its shape marks the contract unreadable instead of moving anything', () => {
  const changes = decodeCw20(
    [
      tx([
        wasm('native1a', ['action', 'transfer'], ['from', 'alice'], ['to', 'bob'], ['amount', '1.5']),
        wasm('native1b', ['action', 'transfer'], ['from', 'alice'], ['amount', '1']),
        wasm('native1c', ['action', 'burn'], ['from', 'alice']),
      ]),
    ],
    contracts,
  );
  assert.equal(changes.movements, []);
  assert.equal(changes.unreadable.sort(), ['native1a', 'native1b', 'native1c']);
});

test('tokens the launchpad and the AMM create start with their supply on the creator', () => {
  const launched = {
    type: 'wasm-token_created',
    attributes: [
      { key: '_contract_address', value: contracts.launchpad },
      { key: 'token_address', value: 'native1launched' },
    ],
  };
  const impostor = {
    ...launched,
    attributes: [{ key: '_contract_address', value: 'native1other' }, launched.attributes[1]!],
  };
  const changes = decodeCw20(
    [
      tx([
        launched,
        impostor,
        wasm(contracts.amm, ['action', 'create_token_pool'], ['token_address', 'native1direct']),
        wasm('native1other', ['action', 'create_token_pool'], ['token_address', 'native1fake']),
      ]),
    ],
    contracts,
  );
  assert.equal(changes.origins, [
    { token: 'native1launched', initialHolder: contracts.launchpad },
    { token: 'native1direct', initialHolder: contracts.amm },
  ]);
});

/** A block carrying only what writeCw20Balances reads. */
const block = (height: number, cw20: Partial<Cw20Changes> = {}) =>
  ({
    height,
    cw20: { movements: [], origins: [], unreadable: [], supplyChanged: [], ...cw20 },
  }) as unknown as FetchedBlock;

const give = (holder: string, amount: bigint, token = TOKEN) => ({ token, holder, amount });

async function state(db: Database) {
  const [s] = await db.query<{ complete_from: number | null; version: number }>(
    `SELECT complete_from, version FROM cw20_state`,
  );
  const balances = await db.query<{ holder: string; balance: string }>(
    `SELECT holder, balance::text FROM cw20_balances WHERE token = $1 ORDER BY holder`,
    [TOKEN],
  );
  return {
    completeFrom: s!.complete_from === null ? null : Number(s!.complete_from),
    version: Number(s!.version),
    balances: Object.fromEntries(balances.map((b) => [b.holder, b.balance])),
  };
}

test('each block adds its movements once, in any order; complete_from follows the run of blocks ending at the head', async () => {
  const t = await openTestDatabase();
  const { db } = t;
  // TOKEN is listed (as CW20_CONTRACTS lists one): followed before its creation is seen
  const write = (blocks: FetchedBlock[], head = false, newTokens: string[] = []) =>
    db.transaction((tx) => writeCw20Balances(tx, blocks, { head, newTokens, cw20Contracts: [TOKEN] }));
  try {
    const b1 = block(1, { origins: [{ token: TOKEN, initialHolder: contracts.launchpad }] });
    const b2 = block(2, { movements: [give('alice', 100n), give(contracts.launchpad, -100n)] });
    const b3 = block(3, { movements: [give('alice', -40n), give('bob', 40n)] });
    const b5 = block(5, { movements: [give('bob', -40n), give('carol', 40n)] });
    const b6 = block(6, { movements: [give('alice', 1n), give('carol', -1n)] });
    assert.equal(await state(db), { completeFrom: null, version: 0, balances: {} });

    // what the batch reports is what readers drop: the holders that moved, and whether the vouching did
    const first = await write([b5, b6], true); // the live indexer's first batch
    assert.equal(first.holders.sort(), ['alice', 'bob', 'carol']);
    assert.is(first.vouchingChanged, true, 'complete_from is set');
    let s = await state(db);
    assert.is(s.completeFrom, 5);
    assert.equal(s.balances, { alice: '1', bob: '-40', carol: '39' });
    assert.equal(
      await write([b5, b6], true), // the same blocks again (a restarted indexer)
      { holders: [], tokens: [], vouchingChanged: false },
      'a replay changes nothing',
    );
    await write([b6]);
    assert.equal((await state(db)).balances, s.balances, 'replays add nothing');

    assert.equal(
      (await write([b2])).holders.sort(), // a backfill below the index, not adjacent to it: height 3 and 4 are missing
      [contracts.launchpad, 'alice'].sort(),
    );
    s = await state(db);
    assert.is(s.completeFrom, 5);
    assert.equal(s.balances, { alice: '101', bob: '-40', carol: '39', [contracts.launchpad]: '-100' });
    await write([block(4)]); // adjacent, but 3 is still missing
    assert.is((await state(db)).completeFrom, 4);
    const before = (await state(db)).version;
    await write([b3]); // fills the gap: the run now reaches down to 2
    s = await state(db);
    assert.is(s.completeFrom, 2);
    assert.ok(s.version > before, 'a new complete_from bumps the version');
    assert.equal(s.balances, { alice: '61', bob: '0', carol: '39', [contracts.launchpad]: '-100' });

    await write([b1, b2, b3]); // the token's creation, and blocks seen already
    s = await state(db);
    assert.is(s.completeFrom, 1);
    assert.equal(s.balances, { alice: '61', bob: '0', carol: '39', [contracts.launchpad]: '-100' });
    assert.equal(await db.query(`SELECT token, created_height, initial_holder, unreadable FROM cw20_tokens`), [
      { token: TOKEN, created_height: 1, initial_holder: contracts.launchpad, unreadable: false },
    ]);

    // an unreadable event marks the token once; version bumps only when something changed
    const v = (await state(db)).version;
    await write([block(7, { unreadable: [TOKEN] })], true);
    assert.is((await state(db)).version, v + 1);
    await write([block(8, { unreadable: [TOKEN] })], true);
    await write([block(9)], true);
    assert.is((await state(db)).version, v + 1, 'nothing new for the vouching');
    const [{ unreadable }] = (await db.query<{ unreadable: boolean }>(
      `SELECT unreadable FROM cw20_tokens WHERE token = $1`,
      [TOKEN],
    )) as [{ unreadable: boolean }];
    assert.is(unreadable, true);
    const bumps = async (blocks: FetchedBlock[], newTokens: string[] = []) => {
      const before = (await state(db)).version;
      await write(blocks, true, newTokens);
      return (await state(db)).version - before;
    };
    assert.is(await bumps([block(10)], ['native1nocreation']), 1, 'a new known token the index never saw created');
    const launch = (height: number, token: string, initialHolder: string) =>
      block(height, { origins: [{ token, initialHolder }] });
    assert.is(
      await bumps([launch(11, 'native1launched', contracts.launchpad)], ['native1launched']),
      0,
      'a launch: the token and its creation in one batch, by a known initial holder',
    );
    assert.is(
      await bumps([launch(12, 'native1direct', contracts.amm)], ['native1direct']),
      1,
      'a new initial holder (the AMM)',
    );
    assert.is(
      await bumps([launch(13, 'native1nocreation', contracts.launchpad)]),
      1,
      'the creation of a token known before (a backfill)',
    );
  } finally {
    await t.dispose();
  }
});

test("only the launchpad's and the AMM's tokens and the listed contracts are followed; a creation seen late makes the token read from its contract", async () => {
  const t = await openTestDatabase();
  const { db } = t;
  const write = (blocks: FetchedBlock[], cw20Contracts: string[] = []) =>
    db.transaction((tx) => writeCw20Balances(tx, blocks, { head: true, newTokens: [], cw20Contracts }));
  const balances = async () =>
    Object.fromEntries(
      (
        await db.query<{ key: string; balance: string }>(
          `SELECT token || ' ' || holder AS key, balance::text FROM cw20_balances ORDER BY 1`,
        )
      ).map((r) => [r.key, r.balance]),
    );
  const tokensRows = () => db.query(`SELECT token, created_height, unreadable FROM cw20_tokens ORDER BY token`);
  try {
    const OTHER = 'native1othercw721'; // another project's contract with cw20-like events
    const LISTED = 'native1listed';
    const moved = await write(
      [
        block(1, {
          movements: [give('alice', 5n, OTHER), give('bob', 7n, LISTED)],
          unreadable: [OTHER],
          origins: [{ token: TOKEN, initialHolder: contracts.launchpad }],
        }),
        block(2, { movements: [give('carol', 3n), give(contracts.launchpad, -3n)] }),
      ],
      [LISTED],
    );
    assert.equal(await balances(), {
      [`${LISTED} bob`]: '7',
      [`${TOKEN} carol`]: '3',
      [`${TOKEN} ${contracts.launchpad}`]: '-3',
    });
    assert.equal(moved.holders.sort(), ['bob', 'carol', contracts.launchpad].sort(), 'no holder of another contract');
    assert.equal(
      await tokensRows(),
      [{ token: TOKEN, created_height: 1, unreadable: false }],
      'an unreadable event of a contract the index does not follow marks nothing',
    );

    // a token the launchpad created at height 3, its creation backfilled after blocks above it were applied
    const LATE = 'native1late';
    await write([block(4, { movements: [give('dave', 2n, LATE)] })]);
    assert.is((await balances())[`${LATE} dave`], undefined, 'not followed before its creation is known');
    await db.transaction((tx) =>
      writeCw20Balances(tx, [block(3, { origins: [{ token: LATE, initialHolder: contracts.launchpad }] })], {
        head: false,
        newTokens: [],
      }),
    );
    assert.equal(
      (await tokensRows()).find((r) => (r as { token: string }).token === LATE),
      { token: LATE, created_height: 3, unreadable: true },
      'its balances since creation are incomplete: read from the contract',
    );
  } finally {
    await t.dispose();
  }
});

test.run();

// The database seam's contract, run against each adapter: the same SQL must give
// the same answers whichever database is behind the interface.

import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeRows, joinEncodedRows } from '../../src/db/copy-format.ts';
import { sql } from '../../src/db/sql.ts';
import { type Database, DatabaseError } from '../../src/db/types.ts';
import { sleep, waitFor } from '../helpers/wait.ts';

const MAX_U256 = '115792089237316195423570985008687907853269984665640564039457584007913129639935';

export function seamContract(name: string, open: () => Promise<{ db: Database; dispose(): Promise<void> }>) {
  const test = suite<{ db: Database; dispose?: () => Promise<void> }>(`seam contract: ${name}`, {} as never);

  test.before(async (ctx) => {
    const opened = await open();
    ctx.db = opened.db;
    ctx.dispose = opened.dispose;
    await ctx.db.exec(`
      DROP TABLE IF EXISTS seam_items;
      CREATE TABLE seam_items (id serial PRIMARY KEY, label text UNIQUE, qty numeric, at timestamptz, blob bytea, doc jsonb);
    `);
  });
  test.after(async (ctx) => {
    await ctx.dispose?.();
  });

  test('parameters of every common type round-trip', async ({ db }) => {
    const at = new Date('2026-05-01T12:34:56.789Z');
    const [row] = await db.query(
      'SELECT $1::text AS s, $2::int AS i, $3::numeric AS n, $4::timestamptz AS t, $5::boolean AS b, $6::text AS nul, $7::jsonb AS j',
      ['héllo', 42, '123.450', at, true, null, { a: [1, 'x'] }],
    );
    assert.equal(row, { s: 'héllo', i: 42, n: '123.450', t: at, b: true, nul: null, j: { a: [1, 'x'] } });
  });

  test('a statement asked again and again answers as the first time: every kind of parameter, a table made again, a bad value', async ({
    db,
  }) => {
    const at = new Date('2026-05-01T12:34:56.789Z');
    const ask = (i: number) =>
      db.query(
        'SELECT $1::text AS s, $2::int AS i, $3::numeric AS n, $4::timestamptz AS t, $5::boolean AS b, $6::text AS nul, $7::bytea AS bytes, $8::bigint AS big',
        ["o'clock \\x00 é", i, '123.450', at, i % 2 === 0, null, Uint8Array.from([0, 39, 92, 255]), 9007199254740993n],
      );
    for (let i = 0; i < 4; i++) {
      const [row] = await ask(i);
      const { bytes, ...rest } = row as { bytes: Uint8Array };
      assert.equal(
        rest,
        { s: "o'clock \\x00 é", i, n: '123.450', t: at, b: i % 2 === 0, nul: null, big: '9007199254740993' },
        `run ${i + 1}`,
      );
      assert.is(Buffer.from(bytes).toString('hex'), '00275cff', `run ${i + 1}`);
    }
    await db.exec(
      "DROP TABLE IF EXISTS seam_again; CREATE TABLE seam_again (a int, b text); INSERT INTO seam_again VALUES (2, 'x')",
    );
    const byA = () => db.query('SELECT * FROM seam_again WHERE a = $1', [2]);
    for (let i = 0; i < 3; i++) assert.equal(await byA(), [{ a: 2, b: 'x' }]);
    await db.exec(
      "DROP TABLE seam_again; CREATE TABLE seam_again (a int, b text, c int); INSERT INTO seam_again VALUES (2, 'y', 3)",
    );
    assert.equal(await byA(), [{ a: 2, b: 'y', c: 3 }], 'the columns the table has now');
    for (let i = 0; i < 3; i++) {
      const error = await db.query('SELECT $1::int + 1 AS n', ['abc']).catch((e: unknown) => e);
      assert.instance(error, DatabaseError);
      assert.is((error as DatabaseError).code, '22P02');
      assert.is((error as DatabaseError).message, 'invalid input syntax for type integer: "abc"');
      assert.is((error as DatabaseError).position, undefined, 'no position in a statement the caller did not write');
      assert.equal(await db.query('SELECT $1::int + 1 AS n', [i]), [{ n: i + 1 }]);
    }
  });

  test('a string sent for a json parameter is the document text, an object its value', async ({ db }) => {
    const [row] = await db.query('SELECT $1::json AS a, $2::jsonb AS b, $3::jsonb AS c', [
      '{"k":[1,"x"]}',
      '[true,null]',
      { k: 'v' },
    ]);
    assert.equal(row, { a: { k: [1, 'x'] }, b: [true, null], c: { k: 'v' } });
  });

  test('U+0000, which PostgreSQL text cannot hold, is stored as U+FFFD: parameters, json, arrays, copied rows', async ({
    db,
  }) => {
    const [row] = await db.query(
      'SELECT $1::text AS s, $2::jsonb AS j, $3::json AS k, $4::text[] AS a, $5::text AS plain, $6::jsonb AS escaped',
      ['a\0b', { n: 'c\0d', 'k\0': [1, '\0'] }, '{"x":"e\0f"}', ['g\0', 'h'], 'no nul', { t: '\\u0000', n: '\0' }],
    );
    assert.equal(row, {
      s: 'a\uFFFDb',
      j: { n: 'c\uFFFDd', 'k\uFFFD': [1, '\uFFFD'] },
      k: { x: 'e\uFFFDf' },
      a: ['g\uFFFD', 'h'],
      plain: 'no nul',
      escaped: { t: '\\u0000', n: '\uFFFD' }, // a backslash and "u0000": six characters, kept
    });
    await db.exec('DROP TABLE IF EXISTS seam_nul; CREATE TABLE seam_nul (id int PRIMARY KEY, t text, doc jsonb)');
    const rows = [
      [1, 'x\0y', { v: '\0' }],
      [2, 'clean', ['\0', 'z']],
      [4, 'in an array', [{ v: 'a\0' }, 'b']],
    ];
    await db.copyIn('seam_nul', ['id', 't', 'doc'], rows);
    await db.copyIn(
      'seam_nul',
      ['id', 't', 'doc'],
      [
        [1, '\0', null],
        [3, '\0', null],
      ],
      { ignoreDuplicates: true },
    );
    assert.equal(await db.query('SELECT id, t, doc FROM seam_nul ORDER BY id'), [
      { id: 1, t: 'x\uFFFDy', doc: { v: '\uFFFD' } },
      { id: 2, t: 'clean', doc: ['\uFFFD', 'z'] },
      { id: 3, t: '\uFFFD', doc: null },
      { id: 4, t: 'in an array', doc: [{ v: 'a\uFFFD' }, 'b'] },
    ]);
    assert.equal(rows[0], [1, 'x\0y', { v: '\0' }], "the caller's rows are left as they were");
  });

  test('amounts come back as exact decimal strings, even beyond 2^64', async ({ db }) => {
    const [row] = await db.query<{ a: string; b: string; c: string }>(
      'SELECT $1::numeric AS a, ($1::numeric - 1)::text AS b, sum(x)::text AS c FROM (VALUES ($2::numeric), ($3::numeric)) v(x)',
      [MAX_U256, '9007199254740993', '1'],
    );
    assert.is(row!.a, MAX_U256);
    assert.is(row!.b, `${MAX_U256.slice(0, -1)}4`);
    assert.is(row!.c, '9007199254740994');
  });

  test('int8 is a number while exact and a string beyond 2^53', async ({ db }) => {
    const [row] = await db.query(
      'SELECT 42::int8 AS small, 9007199254740993::int8 AS big, count(*) AS n FROM (VALUES (1),(2)) v(x)',
    );
    assert.equal(row, { small: 42, big: '9007199254740993', n: 2 });
  });

  test('sql`…` sends every value as a parameter, fragments spliced in and renumbered, never as SQL text', async ({
    db,
  }) => {
    const hostile = ["'; DROP TABLE seam_items; --", '$1', '$2 $1', 'a\\b', '', 'é ☃ \u{1F600}'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constantFrom(...hostile), fc.string()), { maxLength: 6 }),
        fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: undefined }),
        async (texts, bound) => {
          const conditions = texts.map((t, i) => sql`${t}::text = ${t} AND ${i}::int >= 0`);
          const [row] = await db.query<{ texts: string[]; bound: number | null; both: boolean }>(
            sql`SELECT ${texts}::text[] AS texts, ${bound ?? null}::int AS bound,
                       ${conditions.length ? sql.join(conditions, ' AND ') : sql`true`} ${bound === undefined ? sql`` : sql`AND ${bound}::int = ${bound}`} AS both`,
          );
          assert.equal(row, { texts, bound: bound ?? null, both: true });
        },
      ),
      { numRuns: 40 },
    );
    const [{ n } = { n: -1 }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM seam_items`);
    assert.ok(n >= 0, 'the table is still there');
    const mixed = await (async () => db.query(sql`SELECT ${1}`, [2]))().catch((error: Error) => error);
    assert.match(String(mixed), /carries its own parameters/);
  });

  test('arrays pass through unnest in one statement', async ({ db }) => {
    const labels = Array.from({ length: 500 }, (_, i) => `bulk-${i}`);
    const qty = labels.map((_, i) => `${BigInt(i) * 10n ** 30n}`);
    const inserted = await db.query<{ n: number }>(
      `WITH ins AS (INSERT INTO seam_items (label, qty) SELECT * FROM unnest($1::text[], $2::numeric[]) RETURNING 1) SELECT count(*)::int AS n FROM ins`,
      [labels, qty],
    );
    assert.is(inserted[0]!.n, 500);
    const [back] = await db.query<{ qty: string }>(`SELECT qty::text AS qty FROM seam_items WHERE label = 'bulk-499'`);
    assert.is(back!.qty, `${499n * 10n ** 30n}`);
  });

  test('typed arrays with nulls pass through unnest, as the write paths send them', async ({ db }) => {
    const rows = await db.query(
      `SELECT t, b, n, ts, flag, doc::jsonb AS doc, decode(hex, 'hex') AS bytes
       FROM unnest($1::text[], $2::bigint[], $3::numeric[], $4::timestamptz[], $5::boolean[], $6::text[], $7::text[]) AS v(t, b, n, ts, flag, doc, hex)`,
      [
        ['a', null, 'quote"and\\backslash'],
        [1, '9007199254740993', null],
        ['1', null, MAX_U256],
        ['2026-01-02T03:04:05.678Z', null, '2026-01-02T03:04:05Z'],
        [true, false, null],
        [JSON.stringify({ k: 'v"\\' }), null, '[]'],
        ['00ff10', null, ''],
      ],
    );
    assert.equal(
      rows.map((r) => r.t),
      ['a', null, 'quote"and\\backslash'],
    );
    assert.equal(
      rows.map((r) => r.b),
      [1, '9007199254740993', null],
    );
    assert.equal(
      rows.map((r) => r.n),
      ['1', null, MAX_U256],
    );
    assert.equal(
      rows.map((r) => (r.ts as Date | null)?.toISOString() ?? null),
      ['2026-01-02T03:04:05.678Z', null, '2026-01-02T03:04:05.000Z'],
    );
    assert.equal(
      rows.map((r) => r.flag),
      [true, false, null],
    );
    assert.equal(
      rows.map((r) => r.doc),
      [{ k: 'v"\\' }, null, []],
    );
    assert.equal(
      rows.map((r) => (r.bytes ? [...(r.bytes as Uint8Array)] : null)),
      [[0, 255, 16], null, []],
    );
  });

  test('copyIn bulk-loads every type exactly, escapes included', async ({ db }) => {
    await db.exec(
      'DROP TABLE IF EXISTS seam_copy; CREATE TABLE seam_copy (id int PRIMARY KEY, t text, n numeric, at timestamptz, b bytea, doc jsonb, flag boolean)',
    );
    const tricky = 'tab\there\nnew line\\backslash \\N not null "quoted" é';
    const rows = [
      [
        1,
        tricky,
        MAX_U256,
        new Date('2026-03-04T05:06:07.089Z'),
        Uint8Array.from([0, 92, 9, 10, 255]),
        { k: 'v\t\n\\' },
        true,
      ],
      [2, null, null, null, null, null, null],
      [3, '', '0', '2026-01-01T00:00:00Z', new Uint8Array(0), [1, 'two'], false],
    ];
    await db.copyIn('seam_copy', ['id', 't', 'n', 'at', 'b', 'doc', 'flag'], rows);
    const back = await db.query<Record<string, unknown>>(
      'SELECT id, t, n::text AS n, at, b, doc, flag FROM seam_copy ORDER BY id',
    );
    assert.is(back[0]!.t, tricky);
    assert.is(back[0]!.n, MAX_U256);
    assert.equal((back[0]!.at as Date).toISOString(), '2026-03-04T05:06:07.089Z');
    assert.equal([...(back[0]!.b as Uint8Array)], [0, 92, 9, 10, 255]);
    assert.equal(back[0]!.doc, { k: 'v\t\n\\' });
    assert.is(back[0]!.flag, true);
    assert.equal(back[1], { id: 2, t: null, n: null, at: null, b: null, doc: null, flag: null });
    assert.equal(
      [back[2]!.t, back[2]!.n, [...(back[2]!.b as Uint8Array)], back[2]!.doc, back[2]!.flag],
      ['', '0', [], [1, 'two'], false],
    );
  });

  test('copyIn stores every whole amount up to 2^256 exactly, given as a bigint or as text', async ({ db }) => {
    await db.exec('DROP TABLE IF EXISTS seam_amounts; CREATE TABLE seam_amounts (id int, a numeric, b numeric)');
    // digit runs with zeros inside and at the end (whole base-10000 groups of zeros)
    const amounts = fc.sample(
      fc.oneof(
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.bigInt({ min: 0n, max: 99_999n }),
        fc
          .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 46 }))
          .map(([n, zeros]) => n * 10n ** BigInt(zeros)),
      ),
      { numRuns: 400, seed: 26 },
    );
    amounts.push(0n, 10_000n, 10n ** 77n, 2n ** 256n - 1n);
    await db.copyIn(
      'seam_amounts',
      ['id', 'a', 'b'],
      amounts.map((n, i) => [i, n, `00${n}`]),
    );
    const back = await db.query<{ a: string; b: string }>(
      'SELECT a::text AS a, b::text AS b FROM seam_amounts ORDER BY id',
    );
    assert.equal(
      back.map((r) => [r.a, r.b]),
      amounts.map((n) => [n.toString(), n.toString()]),
    );
  });

  test('copyIn stores bigints at the edges of a double and of each 32-bit word, and times far from 2000, exactly', async ({
    db,
  }) => {
    await db.exec(
      'DROP TABLE IF EXISTS seam_int64; CREATE TABLE seam_int64 (id int, n bigint, t bigint, at timestamptz)',
    );
    const edges = [0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), -(2 ** 32) - 1];
    const numbers = [...edges, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 999_999_999_999_999];
    const times = [
      '0001-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '1999-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
    ];
    const rows: unknown[][] = numbers.map((n, i) => [i, n, String(n), new Date(times[i % times.length]!)]);
    rows.push([rows.length, '-9223372036854775808', '9223372036854775807', null]);
    await db.copyIn('seam_int64', ['id', 'n', 't', 'at'], rows);
    const back = await db.query<{ n: string; t: string; at: string | null }>(
      `SELECT n::text AS n, t::text AS t, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM seam_int64 ORDER BY id`,
    );
    assert.equal(
      back.map((r) => [r.n, r.t, r.at]),
      [
        ...numbers.map((n, i) => [String(n), String(n), times[i % times.length]]),
        ['-9223372036854775808', '9223372036854775807', null],
      ],
    );
  });

  test('copyIn reads numeric and bigint text as their input functions do, and refuses what they refuse, with their errors', async ({
    db,
  }) => {
    await db.exec('DROP TABLE IF EXISTS seam_texts; CREATE TABLE seam_texts (id int, dec numeric, big bigint)');
    await db.copyIn(
      'seam_texts',
      ['id', 'dec', 'big'],
      [
        [1, '.5', ' +7 '],
        [2, '-.25', '-0'],
        [3, '5.', '9223372036854775807'],
        [4, '+1.50', -(2n ** 63n)],
        [5, 'NaN', 0],
        [6, ' -inf ', 0],
        [7, Number.POSITIVE_INFINITY, 0],
        [8, Number.NaN, 0],
      ],
    );
    const back = await db.query<{ dec: string; big: string }>(
      'SELECT dec::text AS dec, big::text AS big FROM seam_texts ORDER BY id',
    );
    assert.equal(
      back.map((r) => [r.dec, r.big]),
      [
        ['0.5', '7'],
        ['-0.25', '0'],
        ['5', '9223372036854775807'],
        ['1.50', '-9223372036854775808'],
        ['NaN', '0'],
        ['-Infinity', '0'],
        ['Infinity', '0'],
        ['NaN', '0'],
      ],
    );
    for (const [big, code, message] of [
      ['', '22P02', 'invalid input syntax for type bigint: ""'],
      ['12abc', '22P02', 'invalid input syntax for type bigint: "12abc"'],
      [true, '22P02', 'invalid input syntax for type bigint: "true"'],
      [1.5, '22P02', 'invalid input syntax for type bigint: "1.5"'],
      ['9223372036854775808', '22003', 'value "9223372036854775808" is out of range for type bigint'],
    ] as const) {
      const err = await db.copyIn('seam_texts', ['id', 'big'], [[9, big]]).catch((e: unknown) => e);
      assert.instance(err, DatabaseError, `${JSON.stringify(big)}: ${err}`);
      assert.equal({ code: (err as DatabaseError).code, message: (err as DatabaseError).message }, { code, message });
    }
  });

  test('copyIn: integers of every width, amounts and decimals, exact timestamps, json text', async ({ db }) => {
    await db.exec(`DROP TABLE IF EXISTS seam_copy3; DROP DOMAIN IF EXISTS seam_amount;
      CREATE DOMAIN seam_amount AS numeric CHECK (VALUE >= 0);
      CREATE TABLE seam_copy3 (id smallint, big bigint, amt seam_amount, dec numeric, at timestamptz, doc json, name varchar(20))`);
    const rows = [
      [1, 9007199254740993n, MAX_U256, '-12.3400', '2026-03-04T05:06:07.123456Z', { b: 1, a: [true] }, 'ünïcode'],
      [2, -1, 0n, '0.0001', new Date('1999-12-31T23:59:59.999Z'), '{"raw": "text"}', ''],
      [3, '42', 100000000, '-0', '2000-01-01T00:00:00Z', null, null],
      [4, 0, '10000', '123456789.000000001', '2026-01-01T00:00:00+02:00', [], 'x'],
    ];
    await db.copyIn('seam_copy3', ['id', 'big', 'amt', 'dec', 'at', 'doc', 'name'], rows);
    const back = await db.query<Record<string, unknown>>(
      `SELECT id, big::text AS big, amt::text AS amt, dec::text AS dec, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at, doc::text AS doc, name FROM seam_copy3 ORDER BY id`,
    );
    assert.equal(
      back.map((r) => r.big),
      ['9007199254740993', '-1', '42', '0'],
    );
    assert.equal(
      back.map((r) => r.amt),
      [MAX_U256, '0', '100000000', '10000'],
    );
    assert.equal(
      back.map((r) => r.dec),
      ['-12.3400', '0.0001', '0', '123456789.000000001'],
    );
    assert.equal(
      back.map((r) => r.at),
      [
        '2026-03-04T05:06:07.123456',
        '1999-12-31T23:59:59.999000',
        '2000-01-01T00:00:00.000000',
        '2025-12-31T22:00:00.000000',
      ],
    );
    assert.equal(
      back.map((r) => r.doc),
      ['{"b":1,"a":[true]}', '{"raw": "text"}', null, '[]'],
      'json text kept as given',
    );
    assert.equal(
      back.map((r) => r.name),
      ['ünïcode', '', null, 'x'],
    );
    const err = await db.copyIn('seam_copy3', ['id', 'amt'], [[5, '-1']]).catch((e) => e);
    assert.instance(err, DatabaseError, 'the domain check still applies');
    assert.is(err.code, '23514', `a check violation: ${err.message}`);
    // what PostgreSQL's own input would make of the same values
    await db.exec(
      'DROP TABLE IF EXISTS seam_copy5; CREATE TABLE seam_copy5 (id int, flag boolean, dec numeric, at timestamptz)',
    );
    await db.copyIn(
      'seam_copy5',
      ['id', 'flag', 'dec', 'at'],
      [
        [1, 'f', '1e5', '2026-01-01T00:00:00.1234565Z'],
        [2, 'true', ' 2.5E-3 ', '2026-01-01T00:00:00.1234575Z'],
        ['3', false, 1e-7, '2026-01-01T00:00:00.9999995Z'],
      ],
    );
    const copied = await db.query<Record<string, unknown>>(
      `SELECT id, flag, dec::text AS dec, to_char(at AT TIME ZONE 'UTC', 'HH24:MI:SS.US') AS at FROM seam_copy5 ORDER BY id`,
    );
    assert.equal(
      copied.map((r) => [r.id, r.flag, r.dec, r.at]),
      [
        [1, false, '100000', '00:00:00.123456'],
        [2, true, '0.0025', '00:00:00.123458'],
        [3, false, '0.0000001', '00:00:01.000000'],
      ],
    );
    // refused as PostgreSQL's input functions refuse them, whichever adapter encodes the row
    for (const [bad, code, message] of [
      [[4, 'maybe', null, null], '22P02', 'invalid input syntax for type boolean: "maybe"'],
      [[1.7, null, null, null], '22P02', 'invalid input syntax for type integer: "1.7"'],
      [['x', null, null, null], '22P02', 'invalid input syntax for type integer: "x"'],
      [[3_000_000_000, null, null, null], '22003', 'value "3000000000" is out of range for type integer'],
      [[5, null, 'ten', null], '22P02', 'invalid input syntax for type numeric: "ten"'],
    ] as const) {
      const err = await db.copyIn('seam_copy5', ['id', 'flag', 'dec', 'at'], [bad]).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(err, DatabaseError, `${JSON.stringify(bad)} is refused with a DatabaseError: ${err}`);
      assert.equal(
        { code: (err as DatabaseError).code, message: (err as DatabaseError).message },
        { code, message },
        `${JSON.stringify(bad)} is refused as PostgreSQL refuses it`,
      );
    }
    assert.is(
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM seam_copy5 WHERE id > 3'))[0]!.n,
      0,
      'and stores nothing',
    );
  });

  test('copyIn with ignoreDuplicates stores only new rows and says how many, in or out of a transaction', async ({
    db,
  }) => {
    await db.exec(
      'DROP TABLE IF EXISTS seam_copy4; CREATE TABLE seam_copy4 (id int PRIMARY KEY, label text NOT NULL, at timestamptz NOT NULL DEFAULT now(), n bigserial)',
    );
    assert.is(
      await db.copyIn(
        'seam_copy4',
        ['id', 'label'],
        [
          [1, 'one'],
          [2, 'two'],
        ],
      ),
      2,
    );
    assert.is(
      await db.copyIn(
        'seam_copy4',
        ['id', 'label'],
        [
          [2, 'again'],
          [3, 'three'],
        ],
        { ignoreDuplicates: true },
      ),
      1,
    );
    const stored = await db.transaction(async (tx) => {
      const a = await tx.copyIn(
        'seam_copy4',
        ['id', 'label'],
        [
          [3, 'x'],
          [4, 'four'],
        ],
        { ignoreDuplicates: true },
      );
      const b = await tx.copyIn(
        'seam_copy4',
        ['id', 'label'],
        [
          [4, 'y'],
          [5, 'five'],
          [6, 'six'],
        ],
        { ignoreDuplicates: true },
      );
      return [a, b];
    });
    assert.equal(stored, [1, 2]);
    const rows = await db.query<{ id: number; label: string; at: Date | null }>(
      'SELECT id, label, at FROM seam_copy4 ORDER BY id',
    );
    assert.equal(
      rows.map((r) => `${r.id}:${r.label}`),
      ['1:one', '2:two', '3:three', '4:four', '5:five', '6:six'],
      'stored rows are never overwritten',
    );
    assert.ok(
      rows.every((r) => r.at instanceof Date),
      'defaults fill the columns not copied',
    );
    await db
      .transaction(async (tx) => {
        await tx.copyIn('seam_copy4', ['id', 'label'], [[7, 'seven']], { ignoreDuplicates: true });
        await tx.query('SELECT 1');
      })
      .catch(() => {});
    const err = await db
      .transaction(async (tx) => {
        await tx.copyIn('seam_copy4', ['id', 'label'], [[8, 'eight']], { ignoreDuplicates: true });
        throw new Error('rolled back');
      })
      .catch((e) => e);
    assert.is(err.message, 'rolled back');
    assert.equal(
      (await db.query<{ id: number }>('SELECT id FROM seam_copy4 WHERE id >= 7 ORDER BY id')).map((r) => r.id),
      [7],
      'a rolled-back copy stores nothing',
    );
    const bad = await db.copyIn('seam_copy4', ['id', 'label'], [[9, null]], { ignoreDuplicates: true }).catch((e) => e);
    assert.instance(bad, DatabaseError, 'other constraints still fail the copy');
    assert.is(bad.code, '23502', `a not-null violation: ${bad.message}`);
    assert.is(
      await db.copyIn('seam_copy4', ['id', 'label'], [[9, 'nine']], { ignoreDuplicates: true }),
      1,
      'and the next copy works',
    );
  });

  test("rows encoded beforehand (a block worker's) store what copyIn of the same rows stores; duplicates skipped or failing; types checked first", async ({
    db,
  }) => {
    await db.exec(
      `DROP TABLE IF EXISTS seam_enc; CREATE TABLE seam_enc (id int PRIMARY KEY, big bigint, at timestamptz, t text, b bytea, amt numeric, doc jsonb, flag boolean, n smallint);
       DROP TABLE IF EXISTS seam_plain; CREATE TABLE seam_plain (LIKE seam_enc INCLUDING ALL)`,
    );
    const columns = ['id', 'big', 'at', 't', 'b', 'amt', 'doc', 'flag', 'n'];
    const types = [
      'integer',
      'bigint',
      'timestamp with time zone',
      'text',
      'bytea',
      'numeric',
      'jsonb',
      'boolean',
      'smallint',
    ] as const;
    const row = (id: number) => [
      id,
      id % 2 === 0 ? 2 ** 53 + id : `${-id}`,
      new Date(Date.UTC(2026, 0, 1) + id * 1000),
      id === 3 ? 'nul\0 tab\t new\n back\\' : `text ${id}`,
      Uint8Array.from([id % 256, 0, 255]),
      id === 4 ? MAX_U256 : `${id}.5`,
      { id, nested: [id] },
      id % 3 === 0,
      id === 5 ? null : -id,
    ];
    const first = Array.from({ length: 6 }, (_, i) => row(i + 1));
    const second = Array.from({ length: 4 }, (_, i) => row(i + 7));
    // two blocks' worth, each encoded apart, copied as one
    const encoded = joinEncodedRows([encodeRows(types, first, 8), encodeRows(types, second)]);
    assert.is(await db.copyIn('seam_enc', columns, encoded), 10);
    assert.is(await db.copyIn('seam_plain', columns, [...first, ...second]), 10);
    const read = (table: string) =>
      db.query(`SELECT id, big::text, at, t, b, amt::text, doc, flag, n FROM ${table} ORDER BY id`);
    assert.equal(await read('seam_enc'), await read('seam_plain'), 'the same rows as copyIn of the values');
    assert.is(
      ((await read('seam_enc'))[2] as { t: string }).t,
      'nul\uFFFD tab\t new\n back\\',
      'U+0000 stored as U+FFFD',
    );
    // duplicates: skipped when asked (on the pool, in a transaction), else the whole copy fails
    const overlapping = encodeRows(types, [row(10), row(11), row(1), row(12)]);
    assert.is(
      await db.copyIn('seam_enc', columns, overlapping, { ignoreDuplicates: true }),
      2,
      '11 and 12: 10 and 1 are stored',
    );
    assert.is(
      await db.transaction((tx) =>
        tx.copyIn('seam_enc', columns, encodeRows(types, [row(12), row(13)]), { ignoreDuplicates: true }),
      ),
      1,
    );
    const duplicate = await db.copyIn('seam_enc', columns, encodeRows(types, [row(14), row(2)])).catch((e) => e);
    assert.instance(duplicate, DatabaseError);
    assert.is(duplicate.code, '23505');
    const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM seam_enc'))[0]!.n;
    assert.is(await count(), 13, 'nothing of the failed copy is stored');
    // rows encoded for other types, or for a column the table lacks, are refused before a byte is sent
    const swapped = encodeRows(['integer', 'text'], [[20, 'x']]);
    const mismatch = await db.copyIn('seam_enc', ['id', 'big'], swapped).catch((e) => e);
    assert.instance(mismatch, DatabaseError);
    assert.is(mismatch.code, '42804', mismatch.message);
    assert.match(mismatch.message, /big of seam_enc is bigint/);
    const missing = await db.copyIn('seam_enc', ['id', 'nope'], swapped).catch((e) => e);
    assert.is(missing.code, '42703', missing.message);
    assert.is(await count(), 13);
    assert.is(await db.copyIn('seam_enc', columns, encodeRows(types, [])), 0, 'no rows, nothing to copy');
    assert.is(await db.copyIn('seam_enc', columns, encodeRows(types, [row(30)])), 1, 'and the next copy works');

    // the same rows copied again (a batch written again skipping what it stored): their bytes are intact
    await db.exec('DROP TABLE IF EXISTS seam_enc2; CREATE TABLE seam_enc2 (id int PRIMARY KEY, label text NOT NULL)');
    const labelled = encodeRows(
      ['integer', 'text'],
      [1, 2, 3].map((id) => [id, `label ${id}`]),
    );
    assert.is(await db.copyIn('seam_enc2', ['id', 'label'], labelled), 3);
    assert.is(await db.copyIn('seam_enc2', ['id', 'label'], labelled, { ignoreDuplicates: true }), 0);
    const more = encodeRows(
      ['integer', 'text'],
      [3, 4].map((id) => [id, `label ${id}`]),
    );
    assert.is(await db.session((one) => one.copyIn('seam_enc2', ['id', 'label'], more, { ignoreDuplicates: true })), 1);
    // a copy that skips duplicates and fails on another constraint fails its transaction, and leaves no staging table
    const failing = encodeRows(
      ['integer', 'text'],
      [
        [5, 'five'],
        [6, null],
      ],
    );
    for (const copy of [
      () => db.transaction((tx) => tx.copyIn('seam_enc2', ['id', 'label'], failing, { ignoreDuplicates: true })),
      () => db.session((one) => one.copyIn('seam_enc2', ['id', 'label'], failing, { ignoreDuplicates: true })),
      () => db.copyIn('seam_enc2', ['id', 'label'], failing, { ignoreDuplicates: true }),
    ]) {
      const err = await copy().catch((e) => e);
      assert.instance(err, DatabaseError);
      assert.is(err.code, '23502', err.message);
    }
    assert.equal(
      (await db.query<{ id: number; label: string }>('SELECT id, label FROM seam_enc2 ORDER BY id')).map(
        (r) => r.label,
      ),
      ['label 1', 'label 2', 'label 3', 'label 4'],
    );
    const [{ staged }] = (await db.query<{ staged: number }>(
      `SELECT count(*)::int AS staged FROM pg_class WHERE relname LIKE 'copy\\_stage\\_%' AND relpersistence = 't'`,
    )) as [{ staged: number }];
    assert.is(staged, 0, 'no staging table is left behind');
  });

  test('copyIn inside a transaction is rolled back with it, and a duplicate key fails it', async ({ db }) => {
    await db.exec('DROP TABLE IF EXISTS seam_copy2; CREATE TABLE seam_copy2 (id int PRIMARY KEY)');
    await db.transaction(async (tx) => {
      await tx.copyIn('seam_copy2', ['id'], [[1], [2]]);
    });
    const err = await db
      .transaction(async (tx) => {
        await tx.copyIn('seam_copy2', ['id'], [[3], [4]]);
        await tx.copyIn('seam_copy2', ['id'], [[2]]);
      })
      .catch((e) => e);
    assert.instance(err, DatabaseError);
    assert.is(err.code, '23505');
    assert.equal(
      (await db.query<{ id: number }>('SELECT id FROM seam_copy2 ORDER BY id')).map((r) => r.id),
      [1, 2],
    );
  });

  test('copyIn of megabytes (a backfill batch of txs) stores every row, skips duplicates anywhere in it, and fails whole on one', async ({
    db,
  }) => {
    await db.exec(
      'DROP TABLE IF EXISTS seam_copy6; CREATE TABLE seam_copy6 (id int PRIMARY KEY, b bytea NOT NULL, t text)',
    );
    // 4,000 rows of 1.5 kB of bytes and text with the characters array literals escape: ~12 MB as hex
    const row = (id: number) => [
      id,
      Uint8Array.from({ length: 1500 }, (_, i) => (id * 31 + i) % 256),
      `row "${id}" \\ ${'x'.repeat(id % 50)}`,
    ];
    const rows = Array.from({ length: 4000 }, (_, i) => row(i));
    assert.is(await db.copyIn('seam_copy6', ['id', 'b', 't'], rows), 4000);
    const [sums] = await db.query<{ n: number; bytes: string; text: boolean }>(
      `SELECT count(*)::int AS n, sum(get_byte(b, 0) + get_byte(b, 1499) + length(b))::text AS bytes,
              string_agg(t, '|' ORDER BY id) = $1 AS text FROM seam_copy6`,
      [rows.map((r) => r[2]).join('|')],
    );
    const expectBytes = rows.reduce((n, r) => n + (r[1] as Uint8Array)[0]! + (r[1] as Uint8Array)[1499]! + 1500, 0);
    assert.equal(sums, { n: 4000, bytes: String(expectBytes), text: true });
    // duplicates spread over the whole batch: only the new rows are stored
    const again = Array.from({ length: 4000 }, (_, i) => row(i * 2));
    assert.is(await db.copyIn('seam_copy6', ['id', 'b', 't'], again, { ignoreDuplicates: true }), 2000);
    // a duplicate at the very end fails the whole copy, in a transaction or not: none of its new rows stay
    const failing = [...Array.from({ length: 3000 }, (_, i) => row(10_000 + i)), row(5)];
    for (const copy of [
      () => db.transaction((tx) => tx.copyIn('seam_copy6', ['id', 'b', 't'], failing)),
      () => db.copyIn('seam_copy6', ['id', 'b', 't'], failing),
    ]) {
      const err = await copy().catch((e) => e);
      assert.instance(err, DatabaseError);
      assert.is(err.code, '23505');
      const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM seam_copy6')) as [{ n: number }];
      assert.is(n, 6000);
    }
    // a value the encoder refuses at the end of megabytes (a server has been sent pieces of
    // the copy already, then its CopyFail) fails it whole, and the next copy works
    const refused = [...Array.from({ length: 3000 }, (_, i) => row(30_000 + i)), [33_000, 'not bytes', 't']];
    for (const copy of [
      () => db.transaction((tx) => tx.copyIn('seam_copy6', ['id', 'b', 't'], refused)),
      () => db.copyIn('seam_copy6', ['id', 'b', 't'], refused),
    ]) {
      const err = await copy().catch((e) => e);
      assert.ok(err instanceof Error, `the copy is refused: ${err}`);
      const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM seam_copy6')) as [{ n: number }];
      assert.is(n, 6000, 'none of its rows is stored');
    }
    // rows that grow along the copy (a small first tx, then large ones) are all stored
    const growing = Array.from({ length: 400 }, (_, i) => [20_000 + i, new Uint8Array(i === 0 ? 1 : 20_000), 'g']);
    assert.is(await db.copyIn('seam_copy6', ['id', 'b', 't'], growing), 400);
    const [{ big }] = (await db.query<{ big: string }>(
      'SELECT sum(length(b))::text AS big FROM seam_copy6 WHERE id >= 20000',
    )) as [{ big: string }];
    assert.is(big, String(1 + 399 * 20_000));
  });

  test('bytea round-trips: empty, small and a megabyte', async ({ db }) => {
    const big = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 7919) % 256);
    const values = [new Uint8Array(0), Uint8Array.from([0, 1, 2, 250, 255]), big];
    for (const [i, bytes] of values.entries())
      await db.query('INSERT INTO seam_items (label, blob) VALUES ($1, $2)', [`bytes-${i}`, bytes]);
    const rows = await db.query<{ blob: Uint8Array }>(
      `SELECT blob FROM seam_items WHERE label LIKE 'bytes-%' ORDER BY label`,
    );
    assert.equal(rows.length, 3);
    for (const [i, row] of rows.entries()) {
      assert.instance(row.blob, Uint8Array);
      assert.is(row.blob.length, values[i]!.length);
      assert.ok(Buffer.from(row.blob).equals(values[i]!), `value ${i} comes back byte for byte`);
    }
  });

  test('the planner runs with PostgreSQL defaults (sequential scans allowed)', async ({ db }) => {
    const [row] = await db.query<{ enable_seqscan: string }>('SHOW enable_seqscan');
    assert.is(row!.enable_seqscan, 'on');
  });

  test('a transaction commits when its function resolves', async ({ db }) => {
    const result = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO seam_items (label) VALUES ($1)', ['committed']);
      return 'done';
    });
    assert.is(result, 'done');
    assert.is((await db.query(`SELECT 1 FROM seam_items WHERE label = 'committed'`)).length, 1);
  });

  test('a transaction rolls back every write when its function throws', async ({ db }) => {
    const err = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO seam_items (label) VALUES ($1)', ['rolled-back-1']);
        await tx.query('INSERT INTO seam_items (label) VALUES ($1)', ['rolled-back-2']);
        throw new Error('boom');
      })
      .catch((e: Error) => e);
    assert.is((err as Error).message, 'boom');
    assert.is((await db.query(`SELECT 1 FROM seam_items WHERE label LIKE 'rolled-back-%'`)).length, 0);
  });

  test('a failed statement is a DatabaseError with its SQLSTATE, and rolls the transaction back', async ({ db }) => {
    await db.query('INSERT INTO seam_items (label) VALUES ($1)', ['unique-one']);
    const err = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO seam_items (label) VALUES ($1)', ['before-dup']);
        await tx.query('INSERT INTO seam_items (label) VALUES ($1)', ['unique-one']);
      })
      .catch((e) => e);
    assert.instance(err, DatabaseError);
    assert.is(err.code, '23505');
    assert.is((await db.query(`SELECT 1 FROM seam_items WHERE label = 'before-dup'`)).length, 0);
    // the database is usable afterwards
    assert.is((await db.query('SELECT 1 AS one'))[0]!.one, 1);
  });

  test('readOnly: statements and describe in a read-only transaction that is rolled back, leaving the session as it was', async ({
    db,
  }) => {
    const [before] = await db.query<{ path: string }>(`SELECT current_setting('search_path') AS path`);
    const columns = await db.readOnly((tx) => tx.describe('SELECT 1 AS a, now() AS a, label FROM seam_items'));
    assert.equal(columns, [
      { name: 'a', type: 23 },
      { name: 'a', type: 1184 },
      { name: 'label', type: 25 },
    ]);
    const rows = await db.readOnly(async (tx) => {
      await tx.query(`SELECT set_config('search_path', 'nowhere', true)`);
      return tx.query<{ n: number }>('SELECT $1::int + 1 AS n', [41]);
    });
    assert.equal(rows, [{ n: 42 }]);
    try {
      await db.readOnly((tx) => tx.query(`INSERT INTO seam_items (label) VALUES ('written')`));
      assert.unreachable('a read-only transaction wrote');
    } catch (error) {
      assert.instance(error, DatabaseError);
      assert.is((error as DatabaseError).code, '25006');
    }
    // a failed statement aborts only its own transaction; SET LOCAL ended with it
    const [after] = await db.query<{ path: string }>(`SELECT current_setting('search_path') AS path`);
    assert.equal(after, before);
    assert.equal(await db.query(`SELECT count(*)::int AS n FROM seam_items WHERE label = 'written'`), [{ n: 0 }]);
  });

  test('readOnly as a role: its grants bound what it reads; a database error carries its position', async ({ db }) => {
    await db.exec(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'seam_reader') THEN CREATE ROLE seam_reader NOLOGIN; END IF;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
    await db.exec(`DROP TABLE IF EXISTS seam_secret; CREATE TABLE seam_secret (x int)`);
    try {
      await db.readOnly((tx) => tx.query('SELECT x FROM seam_secret'), { role: 'seam_reader', timeoutMs: 5000 });
      assert.unreachable('the role read a table it was not granted');
    } catch (error) {
      assert.is((error as DatabaseError).code, '42501');
    }
    try {
      await db.query('SELECT nosuch FROM seam_items');
      assert.unreachable('an unknown column was read');
    } catch (error) {
      assert.is((error as DatabaseError).position, 8);
    }
    const [row] = await db.query<{ user: string }>('SELECT current_user AS user');
    assert.is.not(row!.user, 'seam_reader', 'the role ended with the transaction');
  });

  test('exec runs a script of several statements', async ({ db }) => {
    await db.exec(
      `INSERT INTO seam_items (label) VALUES ('script-a'); INSERT INTO seam_items (label) VALUES ('script-b');`,
    );
    assert.is((await db.query(`SELECT 1 FROM seam_items WHERE label LIKE 'script-%'`)).length, 2);
  });

  test('a notification sent in a transaction arrives after commit, never before', async ({ db }) => {
    const got: string[] = [];
    const unlisten = await db.listen('seam_channel', (p) => got.push(p));
    let seenInside = -1;
    await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_notify('seam_channel', $1)`, ['committed-payload']);
      await sleep(150);
      seenInside = got.length;
    });
    assert.ok(await waitFor(() => got.length === 1, 2000), 'notification after commit');
    assert.is(seenInside, 0);
    assert.equal(got, ['committed-payload']);
    await unlisten();
  });

  test('a notification sent in a rolled-back transaction never arrives', async ({ db }) => {
    const got: string[] = [];
    const unlisten = await db.listen('seam_channel2', (p) => got.push(p));
    await db
      .transaction(async (tx) => {
        await tx.query(`SELECT pg_notify('seam_channel2', 'rolled-back')`);
        throw new Error('abort');
      })
      .catch(() => {});
    await db.query(`SELECT pg_notify('seam_channel2', 'after')`);
    assert.ok(await waitFor(() => got.length >= 1, 2000));
    await sleep(100);
    assert.equal(got, ['after']);
    await unlisten();
  });

  test('after unlisten no more notifications are delivered', async ({ db }) => {
    const got: string[] = [];
    const unlisten = await db.listen('seam_channel3', (p) => got.push(p));
    await db.query(`SELECT pg_notify('seam_channel3', 'one')`);
    assert.ok(await waitFor(() => got.length === 1, 2000));
    await unlisten();
    await db.query(`SELECT pg_notify('seam_channel3', 'two')`);
    await sleep(150);
    assert.equal(got, ['one']);
  });

  test('concurrent queries and transactions do not interleave inside a transaction', async ({ db }) => {
    await db.exec(
      'DROP TABLE IF EXISTS seam_counter; CREATE TABLE seam_counter (n int); INSERT INTO seam_counter VALUES (0);',
    );
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          const [row] = await tx.query<{ n: number }>('SELECT n FROM seam_counter FOR UPDATE');
          await tx.query('UPDATE seam_counter SET n = $1', [row!.n + 1]);
        }),
      ),
    );
    assert.is((await db.query<{ n: number }>('SELECT n FROM seam_counter'))[0]!.n, 20);
  });

  test('statements asked together each get their own answer; one asked while a transaction is open never runs inside it', async ({
    db,
  }) => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => db.query<{ n: number }>('SELECT $1::int AS n', [i])),
    );
    assert.equal(
      answers.map(([row]) => row!.n),
      Array.from({ length: 50 }, (_, i) => i),
    );
    await db.exec('DROP TABLE IF EXISTS seam_outside; CREATE TABLE seam_outside (n int);');
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let inserted!: () => void;
    const insertedInside = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO seam_outside VALUES (1)');
        inserted();
        await gate;
        throw new Error('rolled back');
      })
      .catch((error: Error) => error.message);
    await insertedInside;
    // asked while the transaction is open: not part of it, so not rolled back with it
    const outside = Promise.all([db.query('INSERT INTO seam_outside VALUES (2)'), db.query('SELECT 1')]);
    open();
    assert.is(await rolledBack, 'rolled back');
    await outside;
    assert.equal(await db.query('SELECT n FROM seam_outside'), [{ n: 2 }]);
  });

  return test;
}

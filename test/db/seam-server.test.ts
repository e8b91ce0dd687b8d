// The seam's contract on the postgres.js adapter against a real PostgreSQL server process.

import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServerDatabase } from '../../src/db/postgres.ts';
import { DatabaseError } from '../../src/db/types.ts';
import { freshServerDatabase } from '../helpers/database.ts';
import { startPostgresServer } from '../helpers/postgres-server.ts';
import { sleep, waitFor, within } from '../helpers/wait.ts';
import { seamContract } from './seam-contract.ts';

const server = await startPostgresServer();
if ('skip' in server) {
  console.log(`Skipping the server adapter's tests: ${server.skip}`);
  test.skip('seam contract on a PostgreSQL server', () => {});
  test.run();
} else {
  console.log(`Server adapter tests on ${server.description}`);
  const fresh = await freshServerDatabase(server.url);
  const contract = seamContract(`postgres.js on ${server.description}`, async () => {
    const db = createServerDatabase({ url: fresh.url });
    return { db, dispose: () => db.close() };
  });
  contract('its sessions never JIT-compile a statement (compiling costs more than running a short one)', async () => {
    const db = createServerDatabase({ url: fresh.url });
    try {
      const [pool] = await db.query<{ jit: string }>('SHOW jit');
      const [session] = await db.session((s) => s.query<{ jit: string }>('SHOW jit'));
      assert.equal([pool?.jit, session?.jit], ['off', 'off']);
    } finally {
      await db.close();
    }
  });
  contract('a session advisory lock excludes a second holder until released', async () => {
    const a = createServerDatabase({ url: fresh.url });
    const b = createServerDatabase({ url: fresh.url });
    try {
      const held = await a.advisoryLock(777);
      assert.ok(held);
      assert.is(await b.advisoryLock(777, { wait: false }), undefined);
      await held!.release();
      const second = await b.advisoryLock(777, { wait: false });
      assert.ok(second, 'free after release');
      await second!.release();
    } finally {
      await a.close();
      await b.close();
    }
  });
  contract(
    'postgres.js as installed: a reserved connection whose backend is killed rejects its next statement; the process lives on',
    async () => {
      // postgres.js 3.4.9 threw from a setImmediate here (uncatchable: the process died), and
      // released the dead connection back into the pool: patches/postgres+3.4.9.patch fixes both.
      const sql = postgres(fresh.url, { max: 2, onnotice: () => {} });
      const killer = createServerDatabase({ url: fresh.url, max: 1 });
      try {
        const reserved = await sql.reserve();
        const [{ pid }] = (await reserved`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
        await killer.query('SELECT pg_terminate_backend($1::int)', [pid]);
        await sleep(200);
        const outcome = await reserved`SELECT 1 AS one`.then(
          () => 'answered',
          (e: { code?: string }) => e.code,
        );
        reserved.release();
        assert.is(outcome, 'CONNECTION_CLOSED');
        await sleep(100); // an immediate that would throw has run by now
        const [row] = await sql`SELECT 1 AS one`;
        assert.equal({ ...row }, { one: 1 }, 'the pool serves again');
      } finally {
        await sql.end({ timeout: 5 });
        await killer.close();
      }
    },
  );
  contract(
    'a copy whose backend is killed while it streams fails as unavailable, and the pool answers every query after it, kill after kill',
    async () => {
      // The copy's rows are slowed by a trigger, so that each kill lands while it streams. More
      // kills than the pool's connections: a connection lost to one would show at the next.
      const db = createServerDatabase({ url: fresh.url, max: 2 });
      const killer = createServerDatabase({ url: fresh.url, max: 1 });
      try {
        await db.exec(`
          DROP TABLE IF EXISTS seam_killed;
          CREATE TABLE seam_killed (id int, b bytea);
          CREATE OR REPLACE FUNCTION seam_slow_row() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END $$;
          CREATE TRIGGER seam_slow BEFORE INSERT ON seam_killed FOR EACH ROW EXECUTE FUNCTION seam_slow_row();`);
        const rows = Array.from({ length: 5000 }, (_, i) => [i, new Uint8Array(100)]);
        for (const inTransaction of [false, true, false, true, false]) {
          const copying = (
            inTransaction
              ? db.transaction((tx) => tx.copyIn('seam_killed', ['id', 'b'], rows))
              : db.copyIn('seam_killed', ['id', 'b'], rows)
          ).then(
            () => undefined,
            (e: unknown) => e,
          );
          const killed = await waitFor(
            async () =>
              (
                await killer.query(
                  `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                   WHERE query LIKE 'COPY "seam_killed"%' AND state = 'active' AND pid <> pg_backend_pid()`,
                )
              ).length > 0,
            20_000,
            5,
          );
          assert.ok(killed, 'the copy was found streaming and its backend killed');
          const err = await within(copying, 20_000, 'the killed copy to fail');
          assert.instance(err, DatabaseError, `${inTransaction ? 'in a transaction' : 'on the pool'}: ${err}`);
          assert.ok((err as DatabaseError).unavailable, `a lost connection: ${(err as DatabaseError).code}`);
          // a query sent down the dying connection before it closed may fail as unavailable, as
          // any query while a connection is lost does (callers retry); none may wait for good
          const answered = async () =>
            db.query('SELECT 1').then(
              () => true,
              (e: unknown) => {
                if (!(e instanceof DatabaseError && e.unavailable)) throw e;
                return false;
              },
            );
          assert.ok(
            await within(waitFor(answered, 10_000), 20_000, 'a query after the kill'),
            'the pool answers again',
          );
          const answers = await within(
            Promise.all(Array.from({ length: 4 }, (_, i) => db.query<{ n: number }>('SELECT $1::int AS n', [i]))),
            20_000,
            'the queries after the kill',
          );
          assert.equal(
            answers.map(([r]) => r!.n),
            [0, 1, 2, 3],
          );
        }
        const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM seam_killed')) as [
          { n: number },
        ];
        assert.is(n, 0, 'no killed copy left a row');
      } finally {
        await db.close();
        await killer.close();
      }
    },
  );
  contract('a lock whose session is terminated says it is lost', async () => {
    const db = createServerDatabase({ url: fresh.url });
    try {
      const lock = (await db.advisoryLock(4242))!;
      assert.is(lock.lost, false);
      await db.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242`);
      for (let i = 0; i < 100 && !lock.lost; i++) await sleep(20);
      assert.is(lock.lost, true);
      await lock.release(); // nothing to unlock; resolves
      const again = await db.advisoryLock(4242, { wait: false });
      assert.ok(again, 'the lock is free to take');
      await again!.release();
    } finally {
      await db.close();
    }
  });
  contract(
    "a statement on the pool that the server gives up as a deadlock's victim is sent again and answers; in a transaction the conflict is the caller's",
    async () => {
      const db = createServerDatabase({ url: fresh.url });
      const other = postgres(fresh.url, { max: 1, onnotice: () => {} });
      try {
        await db.exec(
          'CREATE TABLE deadlock_a (x int); CREATE TABLE deadlock_b (x int); INSERT INTO deadlock_a VALUES (1); INSERT INTO deadlock_b VALUES (2)',
        );
        const read = 'SELECT a.x + b.x AS sum FROM deadlock_a a, deadlock_b b';
        // `other` holds b and then asks for a, which the read holds while it waits for b: a
        // deadlock, which the read's backend finds first (the other's check waits 10 s)
        const deadlock = async (run: () => Promise<unknown>) => {
          const session = await other.reserve();
          try {
            await session`SET deadlock_timeout = '10s'`;
            await session`BEGIN`;
            await session`LOCK deadlock_b IN ACCESS EXCLUSIVE MODE`;
            const reading = run().then(
              (rows) => ({ rows }),
              (error: unknown) => ({ error }),
            );
            // the read waits for b
            const waiting = await waitFor(
              async () =>
                Number(
                  (
                    await session`SELECT count(*)::int AS n FROM pg_locks
                      WHERE NOT granted AND relation = 'deadlock_b'::regclass
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
                  )[0]!.n,
                ) > 0,
              10_000,
            );
            assert.ok(waiting, 'the read waits for its lock');
            await session`LOCK deadlock_a IN ACCESS EXCLUSIVE MODE`; // granted once the read gave up
            await session`COMMIT`;
            return await reading;
          } finally {
            session.release();
          }
        };
        const onPool = await deadlock(() => db.query<{ sum: number }>(read));
        assert.equal(onPool, { rows: [{ sum: 3 }] }, 'sent again after the other transaction committed');
        const inTransaction = await deadlock(() => db.transaction((tx) => tx.query(read)));
        assert.ok('error' in inTransaction, 'a transaction is not run again by the adapter');
        const error = inTransaction.error as DatabaseError;
        assert.instance(error, DatabaseError);
        assert.equal([error.code, error.conflict, error.unavailable], ['40P01', true, false]);
      } finally {
        await other.end({ timeout: 5 });
        await db.close();
      }
    },
  );
  contract('an unreachable server is reported as unavailable', async () => {
    const db = createServerDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' });
    const err = await db.query('SELECT 1').catch((e) => e);
    assert.is(err.name, 'DatabaseError');
    assert.ok(err.unavailable, `unavailable flag set (code ${err.code})`);
    await db.close();
  });
  contract.after(async () => {
    await fresh.dispose();
    await server.stop();
  });
  contract.run();
}

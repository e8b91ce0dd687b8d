import { openDatabase } from './src/db/index.ts';
const db = await openDatabase({ dataDir: '/tmp/launchpad-bench-api-1000-50000' });
const [tok] = await db.query<any>(`SELECT token_address FROM trades GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`);
const from = new Date(Date.now() - 90 * 86400000);
for (const sql of [
  `EXPLAIN (ANALYZE, SUMMARY) SELECT bucket, open::text FROM candles_1m WHERE token_address = $1 AND bucket >= $2 ORDER BY bucket DESC LIMIT 1000`,
  `EXPLAIN (ANALYZE, SUMMARY) SELECT tr.time FROM trades tr WHERE tr.token_address = $1 ORDER BY tr.time DESC, tr.seq DESC LIMIT 50`,
  `EXPLAIN (ANALYZE, SUMMARY) SELECT count(*) FROM trades WHERE token_address = $1 AND time > now() - interval '24 hours'`,
]) {
  const rows = await db.query<any>(sql, sql.includes('$2') ? [tok.token_address, from] : [tok.token_address]);
  const lines = rows.map((r: any) => r['QUERY PLAN']);
  console.log(lines.filter((l: string) => /Planning|Execution|Append|Limit|Scan on _hyper/.test(l)).slice(0, 12).join('\n'), '\n---', lines.length, 'lines');
}
await db.close();

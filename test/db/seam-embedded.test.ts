import { createEmbeddedDatabase } from '../../src/db/embedded.ts';
import { seamContract } from './seam-contract.ts';

seamContract('embedded TimescaleDB', async () => {
  const db = await createEmbeddedDatabase({ dataDir: 'memory://' });
  return { db, dispose: () => db.close() };
}).run();

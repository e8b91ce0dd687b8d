// The results worker's thread (src/indexer/read-results.ts): reads each `block_results`
// body it is sent and posts back what it comes to (src/indexer/shape-results.ts).
import { parentPort } from 'node:worker_threads';
import { type ResultsInput, readResultsBody } from './shape-results.ts';

export interface ResultsRequest {
  id: number;
  body: Uint8Array;
  input: ResultsInput;
}

parentPort?.on('message', ({ id, body, input }: ResultsRequest) => {
  const outcome = readResultsBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength), input);
  parentPort?.postMessage({ id, outcome });
});

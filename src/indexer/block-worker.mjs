// The block worker's entry (src/indexer/read-block.ts starts it without the parent's loader
// flags, whatever they were): tsx's loader for this thread, then the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./block-worker.ts');

// Messages between the embedded adapter (main thread) and its database worker.

export type WorkerRequest =
  | {
      id: number;
      op: 'query';
      text: string;
      params: readonly unknown[];
      /** A statement on its own, outside any transaction: the worker may prepare it (embedded-worker.mjs). */
      autocommit?: boolean;
    }
  | { id: number; op: 'exec'; text: string }
  | { id: number; op: 'describe'; text: string }
  | { id: number; op: 'copy'; text: string; data: string | Uint8Array }
  | { id: number; op: 'listen' | 'unlisten'; channel: string }
  | { id: number; op: 'snapshot' }
  | { id: number; op: 'close' };

/** What the worker is started with. */
export interface WorkerData {
  dataDir: string;
  /** A snapshot (`EmbeddedDatabase.snapshot`) an in-memory database starts as a copy of. */
  initialData?: Uint8Array;
}

export interface SerializedError {
  message: string;
  code?: string;
  detail?: string;
  /** Where in the statement the error is, in characters from 1. */
  position?: number;
  /** The WebAssembly trapped: the worker ends after this reply. */
  trapped?: boolean;
}

export type WorkerReply =
  | { id: number; ok: true; rows: Record<string, unknown>[] }
  | { id: number; ok: false; error: SerializedError }
  | { op: 'notify'; channel: string; payload: string }
  | { op: 'ready' }
  | { op: 'failed'; error: SerializedError };

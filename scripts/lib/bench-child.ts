// A bench's child process (a server or a node runs in its own process in production) and
// the parent's side of its protocol: the child (a script of scripts/lib run with tsx) gets
// its configuration as JSON in its first argument and prints `ready {json}` once it serves;
// then each command written to its stdin, one a line, is answered by one line of its stdout
// that starts with a word the parent waits for, and `quit` closes it. The child's side is
// bench-child-bootstrap.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface BenchChild {
  child: ChildProcess;
  /** Writes `command`; resolves to the rest of the next line that starts with `answer`, trimmed. */
  send(command: string, answer: string): Promise<string>;
  /** Sends `quit` and resolves once the child has exited. */
  stop(): Promise<void>;
}

export interface BenchChildOptions {
  /** The child in error messages: `the API bench server`. */
  name: string;
  /** Node options before `--import tsx`. */
  nodeOptions?: string[];
  /** Every line that is neither `ready` nor an awaited answer (progress reports). */
  onLine?: (line: string) => void;
}

/**
 * Starts `entry` with `config`; resolves to what its `ready` line holds, with the child's
 * handle. If the child exits before stop(), whatever waits on it fails (its readiness, the
 * answers awaited; with nothing waiting, the error is printed) and the bench's exit code is 1.
 */
export function startBenchChild<Ready extends object>(
  entry: URL,
  config: unknown,
  options: BenchChildOptions,
): Promise<Ready & BenchChild> {
  const child = spawn(
    process.execPath,
    [...(options.nodeOptions ?? []), '--import', 'tsx', fileURLToPath(entry), JSON.stringify(config)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const waiting: { prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let stopping = false;
  return new Promise((resolve, reject) => {
    let ready = false;
    child.once('exit', (code) => {
      if (stopping) return;
      const error = new Error(`${options.name} exited with code ${code}`);
      process.exitCode = 1;
      if (!ready) return reject(error);
      const pending = waiting.splice(0);
      for (const w of pending) w.reject(error);
      if (pending.length === 0) console.error(error.message);
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!ready && line.startsWith('ready ')) {
        ready = true;
        return resolve({
          ...(JSON.parse(line.slice(6)) as Ready),
          child,
          send: (command, answer) =>
            new Promise((resolveAnswer, rejectAnswer) => {
              waiting.push({
                prefix: answer,
                resolve: (found) => resolveAnswer(found.slice(answer.length).trim()),
                reject: rejectAnswer,
              });
              child.stdin!.write(`${command}\n`);
            }),
          stop: () =>
            new Promise<void>((done) => {
              stopping = true;
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.stdin!.write('quit\n');
            }),
        });
      }
      const i = waiting.findIndex((w) => line.startsWith(w.prefix));
      if (i >= 0) waiting.splice(i, 1)[0]!.resolve(line);
      else options.onLine?.(line);
    });
  });
}

// The child's side of bench-child.ts: its configuration (JSON in its first argument), the
// `ready {json}` line, commands read from stdin (a word, then arguments separated by spaces)
// each answered by one line on stdout, and `quit` (or the end of stdin: the parent is gone)
// closing what the child serves before it exits.
import { createInterface } from 'node:readline';

/** The configuration the parent passed. */
export function childConfig<T>(): T {
  return JSON.parse(process.argv[2] ?? '{}') as T;
}

/** Writes one line to the parent. */
export function tell(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A command's handler, given the words after its name; resolves to its answer line. */
export type Command = (args: string[]) => string | Promise<string>;

/**
 * Answers the parent's commands from now on (unknown ones are ignored), then tells it
 * `ready {json}` with `info`. `quit` runs `close`, then the process exits with code 0.
 */
export function serveCommands(info: object, commands: Record<string, Command>, close: () => Promise<void>): void {
  let closing = false;
  const quit = async () => {
    if (closing) return;
    closing = true;
    await close();
    process.exit(0);
  };
  const input = createInterface({ input: process.stdin });
  input.on('line', async (line) => {
    const [name, ...args] = line.split(' ');
    if (name === 'quit') await quit();
    else if (Object.hasOwn(commands, name!)) tell(await commands[name!]!(args));
  });
  input.on('close', () => void quit());
  tell(`ready ${JSON.stringify(info)}`);
}

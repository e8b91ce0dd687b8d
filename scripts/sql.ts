// npm run sql: a terminal client for POST /api/sql with psql's habits (docs/sql.md "npm run
// sql"): a query as an argument or from stdin, or an interactive prompt with history; aligned
// tables or CSV; \d for the relations it may read; errors with a caret under their position.
import { appendFileSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    csv: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(`npm run sql -- [--url http://127.0.0.1:3000] [--csv] ["SELECT …"]

  With a query: runs it and exits. Without one: reads a query from stdin when it is not a
  terminal, else opens a prompt (a query ends with ';'; \\d lists the relations, \\d name one
  relation's columns, \\q quits). docs/sql.md says what a query may read.`);
  process.exit(0);
}

const base = (values.url ?? `http://127.0.0.1:${process.env.LAUNCHPAD_API_PORT || 3000}`).replace(/\/$/, '');

interface Answer {
  columns: { name: string; type: string }[];
  rows: (string | null)[][];
  truncated: boolean;
}
interface Failure {
  error: string;
  details?: { message: string; position?: number; code?: string }[];
}

/** A failure the client prints and goes on from (at the prompt) or exits with (otherwise). */
class ClientError extends Error {}

async function call(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new ClientError(`could not connect to ${base} (${cause}): is the service running? (--url says where)`);
  }
}

/** psql's error: the message, then the query's line with a caret under the position. */
function errorText(failure: Failure, sql: string): string {
  const detail = failure.details?.[0];
  const lines = [`ERROR:  ${detail?.message ?? failure.error}`];
  if (detail?.position !== undefined) {
    const chars = [...sql];
    const before = chars.slice(0, detail.position - 1).join('');
    const lineNo = before.split('\n').length;
    const line = sql.split('\n')[lineNo - 1] ?? '';
    const column = [...(before.split('\n').at(-1) ?? '')].length;
    const label = `LINE ${lineNo}: `;
    lines.push(`${label}${line}`, `${' '.repeat(label.length + column)}^`);
  }
  return lines.join('\n');
}

async function runQuery(sql: string): Promise<string> {
  const res = await call(`${base}/api/sql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: values.csv ? 'text/csv' : 'application/json' },
    body: JSON.stringify({ sql }),
  });
  const text = await res.text();
  if (!res.ok) {
    let failure: Failure;
    try {
      failure = JSON.parse(text) as Failure;
    } catch {
      failure = { error: `${res.status} ${text.slice(0, 200)}` };
    }
    throw new ClientError(errorText(failure, sql));
  }
  // CSV as it is for a pipe or a file; what reaches a terminal shows its control characters
  if (values.csv) return process.stdout.isTTY ? visible(text.replace(/\n$/, '')) : text.replace(/\n$/, '');
  const answer = JSON.parse(text) as Answer;
  return table(
    answer.columns.map((c) => c.name),
    answer.rows,
    answer.columns.map((c) => NUMERIC.test(c.type)),
    answer.truncated,
  );
}

const NUMERIC = /^(smallint|integer|bigint|numeric|real|double precision|amount|oid)(\(|$)/;

/**
 * Text as it may reach a terminal: each control character but the newline (C0, DEL, C1) as
 * `\xHH`, as psql shows it. A value from the chain (a token's name) may hold an escape
 * sequence that would otherwise retitle, recolour or rewrite the analyst's terminal.
 */
const visible = (text: string) =>
  text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it escapes
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );

const width = (s: string) => [...s].length;
const padEnd = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));
const padStart = (s: string, n: number) => ' '.repeat(Math.max(0, n - width(s))) + s;
const center = (s: string, n: number) => {
  const left = Math.floor((n - width(s)) / 2);
  return padEnd(' '.repeat(Math.max(0, left)) + s, n);
};

/** psql's aligned format: centred headers, numbers to the right, `(n rows)` under. */
function table(headers: string[], rows: (string | null)[][], right: boolean[], truncated = false): string {
  const cells = rows.map((r) => r.map((v) => visible(v ?? '')));
  headers = headers.map(visible);
  const widths = headers.map((h, i) =>
    Math.max(width(h), ...cells.map((r) => Math.max(...r[i]!.split('\n').map(width)))),
  );
  const out = [
    ` ${headers.map((h, i) => center(h, widths[i]!)).join(' | ')}`,
    widths.map((w) => '-'.repeat(w + 2)).join('+'),
  ];
  for (const r of cells) {
    const lines = Math.max(1, ...r.map((v) => v.split('\n').length));
    for (let l = 0; l < lines; l++)
      out.push(
        ` ${r.map((v, i) => (right[i] ? padStart : padEnd)(v.split('\n')[l] ?? '', widths[i]!)).join(' | ')}`.trimEnd(),
      );
  }
  out.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`);
  if (truncated) out.push('(more rows: only the first are shown, as SQL_MAX_ROWS allows)');
  return out.join('\n');
}

interface Relation {
  name: string;
  kind: string;
  description: string;
  columns: { name: string; type: string }[];
}

async function describe(name: string | undefined): Promise<string> {
  const res = await call(`${base}/api/sql/relations`);
  const body = (await res.json()) as { relations?: Relation[] } & Failure;
  if (!res.ok) throw new ClientError(errorText(body, ''));
  const relations = body.relations ?? [];
  if (!name)
    return `${' '.repeat(Math.max(0, 20))}List of relations\n${table(
      ['Name', 'Type', 'Description'],
      relations.map((r) => [r.name, r.kind, r.description]),
      [false, false, false],
    )}`;
  const relation = relations.find((r) => r.name === name);
  if (!relation) throw new ClientError(`Did not find any relation named "${name}" that may be read (\\d lists them).`);
  return `${relation.kind[0]!.toUpperCase()}${relation.kind.slice(1)} "${relation.name}"\n${table(
    ['Column', 'Type'],
    relation.columns.map((c) => [c.name, c.type]),
    [false, false],
  )}`;
}

const HELP = `\\d          list the relations a query may read
\\d NAME     the columns of one relation
\\q          quit
A query ends with ';' and may span lines.`;

/** A backslash command; resolves to what it prints, or undefined to quit. */
async function command(line: string): Promise<string | undefined> {
  const [cmd, arg] = line.trim().split(/\s+/);
  if (cmd === '\\q') return undefined;
  if (cmd === '\\d' || cmd === '\\d+' || cmd === '\\dt' || cmd === '\\dv') return describe(arg?.replace(/;$/, ''));
  if (cmd === '\\?' || cmd === '\\h') return HELP;
  throw new ClientError(`invalid command ${cmd}\nTry \\? for help.`);
}

async function once(sql: string): Promise<number> {
  try {
    console.log(sql.trim().startsWith('\\') ? await command(sql) : await runQuery(sql.trim().replace(/;\s*$/, '')));
    return 0;
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    console.error(error.message);
    return 1;
  }
}

async function prompt(): Promise<void> {
  const historyFile = path.join(homedir(), '.launchpad_sql_history');
  let history: string[] = [];
  try {
    history = readFileSync(historyFile, 'utf8').split('\n').filter(Boolean).reverse().slice(0, 500);
  } catch {}
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    history,
    historySize: 500,
    terminal: true,
  });
  console.log(`launchpad SQL at ${base} (read-only). Type \\? for help, \\q to quit.`);
  let buffer = '';
  const ask = () => {
    rl.setPrompt(buffer ? 'launchpad-> ' : 'launchpad=> ');
    rl.prompt();
  };
  const remember = (entry: string) => {
    try {
      appendFileSync(historyFile, `${entry.replace(/\n/g, ' ')}\n`);
    } catch {}
  };
  rl.on('close', () => {
    process.stdout.write('\n');
    process.exit(0);
  });
  ask();
  for await (const line of rl) {
    if (!buffer && line.trim().startsWith('\\')) {
      remember(line.trim());
      try {
        const out = await command(line);
        if (out === undefined) return rl.close();
        console.log(out);
      } catch (error) {
        if (!(error instanceof ClientError)) throw error;
        console.error(error.message);
      }
    } else if (line.trim() || buffer) {
      buffer += (buffer ? '\n' : '') + line;
      if (buffer.trim().endsWith(';')) {
        const sql = buffer;
        buffer = '';
        remember(sql);
        await once(sql);
      }
    }
    ask();
  }
}

if (positionals.length > 0) process.exit(await once(positionals.join(' ')));
else if (!process.stdin.isTTY) process.exit(await once(readFileSync(0, 'utf8')));
else await prompt();

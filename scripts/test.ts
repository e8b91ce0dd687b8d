// `npm test`: runs every test/**/*.test.ts file (uvu) in its own process, two at a time,
// and ends with one summary line: "N passed, N failed, N skipped".
// Arguments filter files by substring: `npm test -- candles devnet`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.min(2, availableParallelism()));
const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 10 * 60_000);

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = findTests(path.join(root, 'test'))
  .map((f) => path.relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

interface Outcome {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  output: string;
  crashed?: string;
}

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const count = (out: string, label: string) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(out)?.[1] ?? 0);

function runFile(file: string): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = strip(output);
      const total = count(text, 'Total');
      const passed = count(text, 'Passed');
      const skipped = count(text, 'Skipped');
      let failed = Math.max(0, total - passed - skipped);
      let crashed: string | undefined;
      if (signal) crashed = `killed by ${signal}${signal === 'SIGKILL' ? ` (timeout ${timeoutMs} ms?)` : ''}`;
      else if (code !== 0 && failed === 0) crashed = `exited with code ${code}`;
      else if (total === 0 && skipped === 0) crashed = 'ran no test';
      if (crashed) failed = Math.max(failed, 1);
      resolve({ file, passed, failed, skipped, ms: Date.now() - started, output: text, crashed });
    });
  });
}

const outcomes: Outcome[] = [];
const queue = [...files];
async function worker() {
  for (let file = queue.shift(); file; file = queue.shift()) {
    const o = await runFile(file);
    outcomes.push(o);
    const mark = o.failed ? 'FAIL' : 'ok  ';
    console.log(`${mark} ${o.file}  ${o.passed} passed${o.failed ? `, ${o.failed} failed` : ''}${o.skipped ? `, ${o.skipped} skipped` : ''}  (${(o.ms / 1000).toFixed(1)}s)${o.crashed ? `  [${o.crashed}]` : ''}`);
    if (o.failed || process.env.TEST_VERBOSE) console.log(o.output.replace(/^/gm, '    │ '));
  }
}

if (files.length === 0) {
  console.log(`No test file matches ${filters.join(' ')}`);
  process.exit(1);
}
const started = Date.now();
await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
const sum = (k: 'passed' | 'failed' | 'skipped') => outcomes.reduce((n, o) => n + o[k], 0);
console.log(`\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(1)}s`);
console.log(`${sum('passed')} passed, ${sum('failed')} failed${sum('skipped') ? `, ${sum('skipped')} skipped` : ''}`);
process.exit(sum('failed') > 0 ? 1 : 0);

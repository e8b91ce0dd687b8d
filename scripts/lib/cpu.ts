// CPU time of processes and of the machine, from /proc (Linux), for the benches' notes on
// what else kept the cores busy.
import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process has used; NaN when it cannot be read. */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds all processes of the machine have used (busy time of every core, /proc/stat). */
export function machineCpuSeconds(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal …: busy = all but idle and iowait
  const n = fields.map(Number);
  return (n[0]! + n[1]! + n[2]! + n[5]! + n[6]! + n[7]!) / 100;
}

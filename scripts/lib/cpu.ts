// CPU time of processes and of the machine, from /proc (Linux), for the benches' notes on
// what else kept the cores busy.
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` after the command's name: [0] the state, [1] the parent, [11…14] utime, stime, cutime, cstime. */
const statFields = (pid: number | string | undefined) =>
  readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** CPU seconds (user + system) a process has used; NaN when it cannot be read. */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const fields = statFields(pid);
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

/**
 * CPU seconds a local PostgreSQL server has used: its postmaster, its live children, and the
 * children that exited (reaped by the postmaster, so counted in its cutime and cstime). The
 * postmaster is found as the parent of `backendPid`; NaN when /proc does not show it (a server
 * on another machine or in a container).
 */
export function serverCpuSeconds(backendPid: number): number {
  try {
    const postmaster = Number(statFields(backendPid)[1]);
    const own = statFields(postmaster);
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const fields = statFields(entry);
        if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // exited while the directory was read: its time is in the postmaster's cutime now
      }
    }
    return ticks / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds from now on, read when the returned function is called: this process's, the
 * process `pid`'s (NaN when it cannot be read) and the whole machine's.
 */
export function cpuSince(pid: number | undefined): () => { own: number; other: number; machine: number } {
  const own = process.cpuUsage();
  const other = processCpuSeconds(pid);
  const machine = machineCpuSeconds();
  return () => {
    const used = process.cpuUsage(own);
    return {
      own: (used.user + used.system) / 1e6,
      other: processCpuSeconds(pid) - other,
      machine: machineCpuSeconds() - machine,
    };
  };
}

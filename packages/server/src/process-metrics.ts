// The process's own series of a replica whose workers are threads, read by its main thread: the
// same names prom-client's default metrics give (the `process_` ones), but for the whole process
// and from its start. A thread's prom-client reads the same process-wide figures, yet counts CPU
// only from when that thread's registry began (a replaced thread starts again from zero); the
// main thread outlives every thread, so its reading is the process's. Lean on purpose (no
// prom-client): the primary loads it.
import { readdirSync, readFileSync } from 'node:fs';
import type { MetricJson } from './workers.js';

function gauge(name: string, help: string, value: number): MetricJson {
  return { name, help, type: 'gauge', aggregator: 'first', values: [{ value, labels: {} }] };
}

function counter(name: string, help: string, value: number): MetricJson {
  return { name, help, type: 'counter', aggregator: 'first', values: [{ value, labels: {} }] };
}

/** A `Vm...` line of /proc/self/status, in bytes. */
function statusBytes(status: string, field: string): number | undefined {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

/** The process_* series of this process (those /proc offers on this system). */
export function processSeries(): MetricJson[] {
  const cpu = process.cpuUsage();
  const out: MetricJson[] = [
    counter('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', cpu.user / 1e6),
    counter('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.', cpu.system / 1e6),
    counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', (cpu.user + cpu.system) / 1e6),
    gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', Math.round(Date.now() / 1000 - process.uptime())),
  ];
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const rss = statusBytes(status, 'VmRSS');
    const size = statusBytes(status, 'VmSize');
    const data = statusBytes(status, 'VmData');
    if (rss !== undefined) out.push(gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', rss));
    if (size !== undefined) out.push(gauge('process_virtual_memory_bytes', 'Virtual memory size in bytes.', size));
    if (data !== undefined) out.push(gauge('process_heap_bytes', 'Process heap size in bytes.', data));
  } catch {
    out.push(gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', process.memoryUsage.rss()));
  }
  try {
    // Less the descriptor readdir itself holds open.
    out.push(gauge('process_open_fds', 'Number of open file descriptors.', readdirSync('/proc/self/fd').length - 1));
    const limit = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (limit !== undefined) out.push(gauge('process_max_fds', 'Maximum number of open file descriptors.', Number(limit)));
  } catch {
    // Not Linux: the CPU, start time and memory above are what there is.
  }
  return out;
}

import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { Counter, type Registry } from 'prom-client';

export interface AuditLogOptions {
  /** File path, or `-` for standard output. */
  path: string;
  /** --audit-log-maxsize in megabytes; 0: never rotate. */
  maxSizeMB: number;
  /** --audit-log-maxbackup: rotated files kept; 0: all. */
  maxBackups: number;
  /** --audit-log-maxage in days; 0: no age limit. */
  maxAgeDays: number;
  /** Lines held while the file catches up; more are dropped (and counted), never waited for. */
  bufferLines?: number;
  metrics?: Registry;
  now?: () => Date;
}

/**
 * The audit log backend: JSON lines appended to a file (or stdout), rotated by size with
 * upstream's backup naming (`<name>-<timestamp><ext>`) and pruned by count and age. Requests never
 * wait for it: events go into a bounded buffer written in the background, and when the buffer is
 * full the event is dropped and counted in `apiserver_audit_error_total{plugin="log"}`.
 */
export class AuditLogBackend {
  private readonly queue: string[] = [];
  private stream: WriteStream | NodeJS.WriteStream | undefined;
  private size = 0;
  private writing = false;
  private closed = false;
  private idle: (() => void)[] = [];
  private readonly events: Counter | undefined;
  private readonly errors: Counter<'plugin'> | undefined;

  constructor(private readonly opts: AuditLogOptions) {
    if (opts.metrics) {
      this.events = new Counter({ name: 'apiserver_audit_event_total', help: 'Counter of audit events generated and sent to the audit backend.', registers: [opts.metrics] });
      this.errors = new Counter({
        name: 'apiserver_audit_error_total',
        help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
        labelNames: ['plugin'],
        registers: [opts.metrics],
      });
    }
  }

  /** Queues one event; returns at once. */
  write(event: object): void {
    if (this.closed) return;
    this.events?.inc();
    if (this.queue.length >= (this.opts.bufferLines ?? 10_000)) {
      this.errors?.inc({ plugin: 'log' });
      return;
    }
    this.queue.push(`${JSON.stringify(event)}\n`);
    if (!this.writing) void this.drain();
  }

  /** Resolves once every queued event has been handed to the file. */
  flush(): Promise<void> {
    if (!this.writing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    const s = this.stream;
    this.stream = undefined;
    if (s && s !== process.stdout) await new Promise<void>((resolve) => (s as WriteStream).end(resolve));
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.queue.length).join('');
        const bytes = Buffer.byteLength(batch);
        await this.rotateIfNeeded(bytes);
        const s = await this.open();
        this.size += bytes;
        if (!s.write(batch)) await new Promise<void>((resolve) => s.once('drain', resolve));
      }
    } catch {
      this.errors?.inc({ plugin: 'log' });
    } finally {
      this.writing = false;
      for (const f of this.idle.splice(0)) f();
    }
  }

  private async open(): Promise<WriteStream | NodeJS.WriteStream> {
    if (this.stream) return this.stream;
    if (this.opts.path === '-') return (this.stream = process.stdout);
    this.size = await stat(this.opts.path).then((s) => s.size, () => 0);
    const s = createWriteStream(this.opts.path, { flags: 'a', mode: 0o600 });
    s.on('error', () => this.errors?.inc({ plugin: 'log' }));
    return (this.stream = s);
  }

  private async rotateIfNeeded(incoming: number): Promise<void> {
    const max = this.opts.maxSizeMB * 1024 * 1024;
    if (this.opts.path === '-' || max <= 0) return;
    if (!this.stream) await this.open();
    if (this.size === 0 || this.size + incoming <= max) return;
    const s = this.stream as WriteStream;
    this.stream = undefined;
    await new Promise<void>((resolve) => s.end(resolve));
    const now = (this.opts.now ?? (() => new Date()))();
    await rename(this.opts.path, backupName(this.opts.path, now));
    this.size = 0;
    await this.prune(now);
  }

  /** Removes backups beyond --audit-log-maxbackup (oldest first) and older than --audit-log-maxage. */
  private async prune(now: Date): Promise<void> {
    const dir = dirname(this.opts.path);
    const ext = extname(this.opts.path);
    const prefix = `${basename(this.opts.path, ext)}-`;
    const backups = (await readdir(dir)).filter((f) => f.startsWith(prefix) && f.endsWith(ext)).sort();
    const doomed = new Set<string>();
    if (this.opts.maxBackups > 0) for (const f of backups.slice(0, Math.max(0, backups.length - this.opts.maxBackups))) doomed.add(f);
    if (this.opts.maxAgeDays > 0) {
      const cutoff = now.getTime() - this.opts.maxAgeDays * 24 * 3600 * 1000;
      for (const f of backups) {
        const at = backupTime(f.slice(prefix.length, f.length - ext.length));
        if (at !== undefined && at < cutoff) doomed.add(f);
      }
    }
    await Promise.all([...doomed].map((f) => unlink(join(dir, f)).catch(() => undefined)));
  }
}

/** `audit.log` rotated at 2024-01-02T03:04:05.678Z becomes `audit-2024-01-02T03-04-05.678.log`. */
export function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stamp = at.toISOString().replace(/:/g, '-').replace(/Z$/, '');
  return join(dirname(path), `${basename(path, ext)}-${stamp}${ext}`);
}

function backupTime(stamp: string): number | undefined {
  const m = /^(\d{4}-\d\d-\d\dT)(\d\d)-(\d\d)-(\d\d\.\d{3})$/.exec(stamp);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}${m[2]}:${m[3]}:${m[4]}Z`);
  return Number.isNaN(t) ? undefined : t;
}

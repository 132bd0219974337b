import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { AuditLogBackend, backupName } from './log-backend.js';

const dir = () => mkdtempSync(join(tmpdir(), 'audit-log-'));

describe('AuditLogBackend', () => {
  test('events are appended as JSON lines', async () => {
    const path = join(dir(), 'audit.log');
    const b = new AuditLogBackend({ path, maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 });
    b.write({ n: 1 });
    b.write({ n: 2 });
    await b.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  });

  test('the file rotates by size and keeps at most maxBackups backups', async () => {
    const d = dir();
    const path = join(d, 'audit.log');
    let t = Date.parse('2030-01-01T00:00:00Z');
    const b = new AuditLogBackend({ path, maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0, now: () => new Date((t += 1000)) });
    const big = { pad: 'x'.repeat(400 * 1024) };
    for (let i = 0; i < 6; i++) {
      b.write({ i, ...big });
      await b.flush();
    }
    await b.close();
    const files = readdirSync(d).sort();
    expect(files).toHaveLength(3);
    expect(files).toContain('audit.log');
    expect(files.filter((f) => /^audit-2030-01-01T00-00-\d\d\.000\.log$/.test(f))).toHaveLength(2);
    for (const f of files) expect(readFileSync(join(d, f)).length).toBeLessThanOrEqual(1024 * 1024);
  });

  test('a full buffer drops events and counts them, never blocking the writer', async () => {
    const registry = new Registry();
    const b = new AuditLogBackend({ path: join(dir(), 'audit.log'), maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, bufferLines: 2, metrics: registry });
    for (let i = 0; i < 50; i++) b.write({ i });
    await b.close();
    const text = await registry.metrics();
    expect(text).toContain('apiserver_audit_event_total 50');
    expect(text).toMatch(/apiserver_audit_error_total\{plugin="log"\} [1-9]\d*/);
  });

  test('backup names carry the rotation time as upstream', () => {
    expect(backupName('/var/log/audit.log', new Date('2024-01-02T03:04:05.678Z'))).toBe('/var/log/audit-2024-01-02T03-04-05.678.log');
  });
});

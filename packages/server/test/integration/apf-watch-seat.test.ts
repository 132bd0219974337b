import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../support/test-server.js';

// Issue 30, as upstream: a watch holds a seat of its priority level while its initial events are
// written, and gives it back once they are, while it goes on streaming. A client that does not
// read keeps the initial events (tens of megabytes) from being written, so the seat stays taken
// (apiserver_flowcontrol_current_executing_requests); once it reads them the seat is free.
const dir = mkdtempSync(join(tmpdir(), 'apf-watch-seat-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, 'watcher-token,watcher,u1\n');
const ts = useTestServer(['--token-auth-file', tokenFile, '--controllers=-namespace', '--workers=1']);

const NS = 'apf-watch';
const OBJECTS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests executing in the limited priority levels (the watcher's requests land in one of them). */
async function executing(): Promise<number> {
  const text = (await ts().request('GET', '/metrics')).text;
  return text
    .split('\n')
    .filter((l) => l.startsWith('apiserver_flowcontrol_current_executing_requests{') && !l.includes('priority_level="exempt"'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('a watch holds its seat while its initial events are written, then gives it back', async () => {
  expect((await ts().request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status).toBe(201);
  // 40 ConfigMaps of 900 KB: 36 MB of initial events, more than loopback's socket buffers hold.
  const big = 'x'.repeat(900 * 1024);
  for (let i = 0; i < OBJECTS; i++) {
    const r = await ts().request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { big } } });
    expect(r.status).toBe(201);
  }
  expect(await executing()).toBe(0);
  const url = new URL(`/api/v1/namespaces/${NS}/configmaps?watch=true`, ts().server.url);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpsRequest(url, { agent: false, ca: ts().server.caPem, headers: { Authorization: 'Bearer watcher-token' } }, resolve);
    req.on('error', reject);
    req.end();
  });
  try {
    expect(res.statusCode).toBe(200);
    expect(res.headers).toHaveProperty('x-kubernetes-pf-prioritylevel-uid');
    // Not reading: the initial events stay unwritten and the seat stays taken.
    res.pause();
    await sleep(500);
    expect(await executing()).toBe(1);
    // Reading them all: the seat is given back while the watch stays open.
    let added = 0;
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('{"type":"ADDED"')) added++;
    });
    res.resume();
    await until('the initial events', async () => added === OBJECTS);
    await until('the seat to be free', async () => (await executing()) === 0);
    expect(res.complete).toBe(false);
    // A change still streams to the watch.
    expect((await ts().request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } } })).status).toBe(201);
    await until('the live event', async () => added === OBJECTS + 1);
  } finally {
    res.destroy();
  }
}, 120_000);

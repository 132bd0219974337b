import { request } from 'node:https';
import { decodeProtobufObject, decodeWatchEventFrame, encodeProtobufObject } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';

const ts = useTestServer(['--controllers=-namespace']);
const PB = 'application/vnd.kubernetes.protobuf';

describe('Protobuf over HTTP (SPEC 2.7, 4.5 item 5)', () => {
  test('a Protobuf create is answered in Protobuf and decodes to the stored object', async () => {
    const body = Buffer.from(
      encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb', namespace: 'default' }, data: { a: 'b' } }),
    );
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body,
      headers: { 'Content-Type': PB, Accept: `${PB},application/json` },
    });
    expect(res.status).toBe(201);
    expect(String(res.headers['content-type'])).toContain(PB);
    const obj = decodeProtobufObject(res.body);
    expect(obj).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'pb', namespace: 'default' }, data: { a: 'b' } });
    expect(obj.metadata.uid).toBeTruthy();
  });

  test('lists and errors come back in Protobuf when asked', async () => {
    const list = await ts().request('GET', '/api/v1/namespaces/default/configmaps', { headers: { Accept: PB } });
    expect(list.status).toBe(200);
    const decoded = decodeProtobufObject(list.body);
    expect(decoded.kind).toBe('ConfigMapList');
    expect((decoded as unknown as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)).toContain('pb');
    const missing = await ts().request('GET', '/api/v1/namespaces/default/configmaps/absent', { headers: { Accept: PB } });
    expect(missing.status).toBe(404);
    expect(decodeProtobufObject(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  test('garbage in a Protobuf body is 400, never a crash', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0x01]),
      headers: { 'Content-Type': PB },
    });
    expect(res.status).toBe(400);
  });

  test('a Protobuf watch is a stream of length-prefixed frames', async () => {
    const server = ts().server;
    const frames: { type: string; name?: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request(
        new URL('/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dpb', server.url),
        { headers: { Authorization: `Bearer ${server.adminToken}`, Accept: PB }, ca: server.caPem },
        (res) => {
          expect(res.statusCode).toBe(200);
          expect(String(res.headers['content-type'])).toContain(`${PB};stream=watch`);
          let buf = Buffer.alloc(0);
          res.on('data', (chunk: Buffer) => {
            buf = Buffer.concat([buf, chunk]);
            for (;;) {
              const frame = decodeWatchEventFrame(buf);
              if (!frame) break;
              buf = buf.subarray(frame.frameLength);
              frames.push({ type: frame.type, name: frame.object.metadata?.name });
              if (frames.length === 2) {
                req.destroy();
                resolve();
              }
            }
          });
        },
      );
      req.on('error', (e) => (frames.length === 2 ? resolve() : reject(e)));
      req.end();
      // The initial ADDED arrives at once; a label change makes the MODIFIED.
      setTimeout(() => {
        void ts().request('PATCH', '/api/v1/namespaces/default/configmaps/pb', {
          body: { metadata: { labels: { x: 'y' } } },
          headers: { 'Content-Type': 'application/merge-patch+json' },
        });
      }, 300);
      setTimeout(() => reject(new Error(`only ${frames.length} frames`)), 10_000).unref();
    });
    expect(frames).toEqual([
      { type: 'ADDED', name: 'pb' },
      { type: 'MODIFIED', name: 'pb' },
    ]);
  }, 20_000);
});

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import type { Context } from 'koa';
import { ApiApplication } from './api-application.js';

// ApiApplication writes its answers itself (Koa's response step without on-finished): every kind
// of body and outcome must give the client the same status, headers and bytes as Koa does.

type Step = (ctx: Context) => void | Promise<void>;

const cases: Record<string, Step> = {
  buffer: (ctx) => {
    ctx.status = 201;
    ctx.set('Content-Type', 'application/json');
    ctx.body = Buffer.from('{"kind":"ConfigMap"}');
  },
  string: (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = '404 page not found\n';
  },
  json: (ctx) => {
    ctx.body = { kind: 'Status', code: 200 };
  },
  stream: (ctx) => {
    ctx.set('Content-Type', 'application/json');
    ctx.body = Readable.from([Buffer.from('{"items":['), Buffer.from('1,2'), Buffer.from(']}')]);
  },
  'no body (status text)': (ctx) => {
    ctx.status = 202;
  },
  'nothing set (404)': () => undefined,
  'explicit null body': (ctx) => {
    ctx.set('Content-Type', 'application/json');
    ctx.body = null;
  },
  '204': (ctx) => {
    ctx.body = 'ignored';
    ctx.status = 204;
  },
  '304': (ctx) => {
    ctx.set('ETag', '"x"');
    ctx.status = 304;
  },
  'respond false': (ctx) => {
    ctx.respond = false;
    ctx.res.writeHead(200, { 'Content-Type': 'text/plain' }).end('direct');
  },
  'thrown error': () => {
    throw Object.assign(new Error('secret detail'), { status: 500 });
  },
  'thrown exposed error': () => {
    throw Object.assign(new Error('bad input'), { status: 400, expose: true });
  },
  'rejected later': async () => {
    await new Promise((r) => setImmediate(r));
    throw new Error('late');
  },
  'unserializable body': (ctx) => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    ctx.body = a;
  },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function serve(app: Koa): Promise<{ server: Server; port: number }> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}

function ask(port: number, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers = { ...res.headers };
        delete headers['date'];
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function appOf(app: Koa): Koa {
  app.silent = true;
  app.use(async (ctx) => {
    const step = cases[decodeURIComponent(ctx.path.slice(1))];
    if (step) await step(ctx);
  });
  return app;
}

let koa: { server: Server; port: number };
let ours: { server: Server; port: number };

beforeAll(async () => {
  koa = await serve(appOf(new Koa()));
  ours = await serve(appOf(new ApiApplication()));
});

afterAll(async () => {
  await Promise.all([koa, ours].map(({ server }) => new Promise((r) => server.close(r))));
});

describe('ApiApplication answers as Koa does', () => {
  for (const name of Object.keys(cases)) {
    for (const method of ['GET', 'HEAD']) {
      it(`${method} ${name}`, async () => {
        const path = `/${encodeURIComponent(name)}`;
        const expected = await ask(koa.port, method, path);
        const got = await ask(ours.port, method, path);
        expect(got).toEqual(expected);
      });
    }
  }

  it('does not attach on-finished listeners to the socket', async () => {
    const app = new ApiApplication();
    let socketListeners = -1;
    app.use((ctx) => {
      socketListeners = ctx.req.socket.listenerCount('error');
      ctx.body = 'ok';
    });
    const s1 = await serve(app);
    const s2 = await serve(new Koa().use((ctx) => {
      ctx.body = String(ctx.req.socket.listenerCount('error'));
    }));
    try {
      await ask(s1.port, 'GET', '/');
      const koaCount = Number((await ask(s2.port, 'GET', '/')).body);
      // Koa's on-finished adds one 'error' listener to the socket (ee-first); ours adds none.
      expect(socketListeners).toBe(koaCount - 1);
    } finally {
      await Promise.all([s1, s2].map(({ server }) => new Promise((r) => server.close(r))));
    }
  });
});

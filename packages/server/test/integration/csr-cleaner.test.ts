import { approveCsr, csrBody as csr, CSRS, until } from '../support/csr.js';
import { useTestServer } from '../support/test-server.js';

// The CSR garbage collector against a real replica, with the SPEC 3.2 periods shortened. Each test
// waits up to 10 s for the deletion, so its own bound is longer than jest's default 5 s.
const ts = useTestServer([], { csrRetention: { finishedMs: 1500, pendingMs: 3000 } });

describe('csrcleaner', () => {
  test('a pending request is deleted once the pending retention passes', async () => {
    const body = csr('pending', { commonName: 'p' }, 'example.com/custom', ['client auth']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await ts().request('GET', `${CSRS}/pending`)).status).toBe(200);
    await until('deletion', async () => ((await ts().request('GET', `${CSRS}/pending`)).status === 404 ? true : undefined), 10_000);
  }, 20_000);

  test('a finished request is deleted once its retention passes', async () => {
    const body = csr('to-collect', { commonName: 'gone' }, 'example.com/custom', ['client auth']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    await approveCsr(ts(), 'to-collect');
    await until('deletion', async () => ((await ts().request('GET', `${CSRS}/to-collect`)).status === 404 ? true : undefined), 10_000);
  }, 20_000);
});

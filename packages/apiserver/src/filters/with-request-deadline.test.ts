import { StatusError } from '@cluster/apimachinery';
import type { Context, Next } from 'koa';
import type { RequestState } from './state.js';
import { requestDeadlineMs, withRequestDeadline } from './with-request-deadline.js';

describe('requestDeadlineMs', () => {
  test.each([
    // [timeout parameter, server --request-timeout ms, deadline ms]
    [null, 60_000, 60_000],
    ['', 60_000, 60_000],
    ['30s', 60_000, 30_000],
    ['1.5s', 60_000, 1_500],
    ['250ms', 60_000, 250],
    ['3m', 60_000, 60_000], // beyond the server's limit: the limit
    ['60s', 60_000, 60_000],
    ['0s', 60_000, 60_000], // 0: no limit of the client's own
    ['0', 60_000, 60_000],
    ['-5s', 60_000, 60_000],
    ['10s', 0, 10_000], // no server limit: the client's
    [null, 0, 0],
  ] as const)('timeout=%p with --request-timeout=%p ms -> %p ms', (param, server, expected) => {
    expect(requestDeadlineMs(param, server)).toBe(expected);
  });

  test.each([
    ['invalid', 'time: invalid duration "invalid"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['.s', 'time: invalid duration ".s"'],
  ])('timeout=%p is a 400 naming the parse error', (param, why) => {
    let thrown: unknown;
    try {
      requestDeadlineMs(param, 60_000);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(StatusError);
    expect((thrown as StatusError).status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: `invalid timeout specified in the request URL - ${why}`,
    });
  });
});

describe('withRequestDeadline', () => {
  const ctxFor = (verb: string, query: string) =>
    ({ state: { requestInfo: { verb } }, URL: new URL(`https://host/api/v1/configmaps${query}`) }) as unknown as Context & { state: RequestState };
  const slowHandler = (ms: number): Next => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

  test('a request past its deadline is a 504 Timeout with upstream\'s message', async () => {
    const run = withRequestDeadline(60_000)(ctxFor('list', '?timeout=20ms'), slowHandler(500));
    await expect(run).rejects.toMatchObject({
      status: {
        code: 504,
        reason: 'Timeout',
        message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      },
    });
  });

  test('the server limit applies without a parameter; a request within it passes', async () => {
    await expect(withRequestDeadline(20)(ctxFor('get', ''), slowHandler(500))).rejects.toMatchObject({ status: { code: 504 } });
    await expect(withRequestDeadline(60_000)(ctxFor('get', '?timeout=5s'), slowHandler(5))).resolves.toBeUndefined();
  });

  test('a handler error within the deadline is passed on unchanged', async () => {
    const failing: Next = () => Promise.reject(new Error('storage down'));
    await expect(withRequestDeadline(60_000)(ctxFor('create', ''), failing)).rejects.toThrow('storage down');
  });

  test('watches are long-running: neither the parameter nor the limit applies', async () => {
    await expect(withRequestDeadline(20)(ctxFor('watch', '?timeout=invalid'), slowHandler(60))).resolves.toBeUndefined();
  });
});

import { isTransientStartupError, retryStartupStep } from './startup-retry.js';

const statusError = (code: number) => Object.assign(new Error(`status ${code}`), { status: { code } });

describe('isTransientStartupError', () => {
  test.each([
    [statusError(503), true],
    [statusError(504), true],
    [statusError(500), true],
    [statusError(429), true],
    [statusError(409), true],
    [statusError(422), false],
    [statusError(403), false],
    [statusError(404), false],
    [new Error('plain'), false],
    [null, false],
    [{ status: { code: '503' } }, false],
  ])('%p -> %p', (err, transient) => {
    expect(isTransientStartupError(err)).toBe(transient);
  });
});

describe('retryStartupStep', () => {
  /** A clock that only moves when the step sleeps. */
  function fakeTime() {
    let t = 0;
    const waits: number[] = [];
    return { now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)), waits };
  }

  test('a step failing with etcd unavailable is retried with doubling waits until it succeeds', async () => {
    const time = fakeTime();
    const logged: string[] = [];
    let calls = 0;
    const result = await retryStartupStep(
      'namespaces',
      async () => {
        if (++calls <= 5) throw statusError(503);
        return 'done';
      },
      { ...time, initialDelayMs: 100, maxDelayMs: 800, log: (m) => logged.push(m) },
    );
    expect(result).toBe('done');
    expect(calls).toBe(6);
    expect(time.waits).toEqual([100, 200, 400, 800, 800]);
    expect(logged[0]).toBe('start-up step namespaces failed (attempt 1); retrying in 100 ms');
    expect(logged).toHaveLength(5);
  });

  test('an error that will not go away by itself fails at once', async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(
      retryStartupStep('rbac', async () => {
        calls++;
        throw statusError(422);
      }, time),
    ).rejects.toThrow('status 422');
    expect(calls).toBe(1);
    expect(time.waits).toEqual([]);
  });

  test('past the deadline the last error is thrown', async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(
      retryStartupStep('rbac', async () => {
        calls++;
        throw statusError(504);
      }, { ...time, deadlineMs: 1_000, initialDelayMs: 100, maxDelayMs: 400 }),
    ).rejects.toThrow('status 504');
    // Waits 100 + 200 + 400 = 700 ms; the next 400 would pass the 1 s deadline.
    expect(time.waits).toEqual([100, 200, 400]);
    expect(calls).toBe(4);
  });
});

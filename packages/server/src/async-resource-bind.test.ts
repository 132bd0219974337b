import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import { installLeanAsyncResourceBind } from './async-resource-bind.js';

beforeAll(() => installLeanAsyncResourceBind());

test('a bound function runs in the resource scope with its arguments and receiver', () => {
  const r = new AsyncResource('Test');
  const seen: unknown[] = [];
  const fn = function (this: unknown, a: number, b: string) {
    seen.push(executionAsyncId(), this, a, b);
    return a + b.length;
  };
  const receiver = { name: 'receiver' };
  const unbound = r.bind(fn);
  expect(unbound.call(receiver, 1, 'ab')).toBe(3);
  expect(seen).toEqual([r.asyncId(), receiver, 1, 'ab']);
  seen.length = 0;
  // Node's typings omit bind's thisArg, which its implementation (and Node's own callers) use.
  const withThis = Reflect.apply(r.bind, r, [fn, receiver]) as (this: unknown, a: number, b: string) => number;
  expect(withThis.call({ other: true }, 2, 'x')).toBe(3);
  expect(seen).toEqual([r.asyncId(), receiver, 2, 'x']);
  expect(() => r.bind(undefined as unknown as () => void)).toThrow(TypeError);
  installLeanAsyncResourceBind(); // idempotent
});

test('the async context where the resource was made is the one the bound function sees', () => {
  const als = new AsyncLocalStorage<string>();
  const bound = als.run('inside', () => new AsyncResource('Test').bind(() => als.getStore()));
  expect(als.run('elsewhere', () => bound())).toBe('inside');
});

import { decodeContinue, encodeContinue } from './continue-token.js';
import { StorageError } from '../errors.js';

describe('continue tokens', () => {
  test('round trip', () => {
    const t = encodeContinue(42, 'ns/name\u0000');
    expect(decodeContinue(t)).toEqual({ revision: 42, startRelative: 'ns/name\u0000' });
  });
  test('revision -1 (handed out for a compacted token) continues at the latest revision', () => {
    expect(decodeContinue(encodeContinue(-1, 'ns/b\u0000'))).toEqual({ revision: 0, startRelative: 'ns/b\u0000' });
  });
  test.each([
    ['not base64 json', '!!!'],
    ['wrong version', Buffer.from(JSON.stringify({ v: 'x', rv: 1, start: 'a' })).toString('base64url')],
    ['bad revision', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: -2, start: 'a' })).toString('base64url')],
    ['zero revision', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' })).toString('base64url')],
    ['empty start', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 3, start: '' })).toString('base64url')],
    ['escaping start', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' })).toString('base64url')],
    ['absolute start', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 3, start: '/registry/x' })).toString('base64url')],
    ['array', Buffer.from('[]').toString('base64url')],
  ])('%s is refused', (_name, token) => {
    expect(() => decodeContinue(token)).toThrow(StorageError);
  });
});

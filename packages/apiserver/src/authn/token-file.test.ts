import { TokenFileAuthenticator } from './token-file.js';

const user = { username: 'alice', uid: '1', groups: ['dev'] };

describe('TokenFileAuthenticator', () => {
  const a = new TokenFileAuthenticator(new Map([['t0k', user]]), ['https://api', 'second']);
  test.each<[string, string, string[] | undefined, object | undefined]>([
    ['known token, no audiences', 't0k', undefined, { user }],
    ['known token, empty audiences', 't0k', [], { user }],
    ['unknown token', 'nope', undefined, undefined],
    ['requested audiences intersect the server\'s', 't0k', ['x', 'second'], { user, audiences: ['second'] }],
    ['requested audiences are all foreign', 't0k', ['x'], undefined],
  ])('%s', (_n, token, auds, want) => {
    expect(a.authenticateToken(token, auds)).toEqual(want);
  });

  test('no --api-audiences: a review naming audiences does not accept file tokens', () => {
    expect(new TokenFileAuthenticator(new Map([['t0k', user]])).authenticateToken('t0k', ['a'])).toBeUndefined();
  });
});

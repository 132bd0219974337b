import { userFromHeaders } from './request-header.js';

const opts = { usernameHeaders: ['X-Remote-User', 'X-Other-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

describe('userFromHeaders (SPEC 5.3)', () => {
  test.each<[string, string[], object | undefined]>([
    ['no username header', ['X-Remote-Group', 'g'], undefined],
    ['an empty first username header falls through to the next', ['X-Remote-User', '', 'x-other-user', 'bob'], { username: 'bob', groups: [] }],
    [
      'every header line, case-insensitive names, extras lower-cased and percent-decoded',
      ['x-remote-user', 'alice', 'X-Remote-Uid', 'u1', 'X-REMOTE-GROUP', 'a', 'X-Remote-Group', 'b,c', 'X-Remote-Extra-Scopes', 's1', 'X-Remote-Extra-Scopes', 's2', 'X-Remote-Extra-Example.com%2FKey', 'v'],
      { username: 'alice', uid: 'u1', groups: ['a', 'b,c'], extra: { scopes: ['s1', 's2'], 'example.com/key': ['v'] } },
    ],
  ])('%s', (_, raw, want) => {
    expect(userFromHeaders(raw, opts)).toEqual(want);
  });
});

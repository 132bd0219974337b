import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTokenRecord, parseTokenCsv, parseTokenFile, type TokenUser } from './token-file.js';

const P = '/etc/tokens.csv';

describe('parseTokenCsv', () => {
  test.each<[string, string, Array<[string, TokenUser]>]>([
    ['three columns', 'tok1,alice,uid-1\n', [['tok1', { username: 'alice', uid: 'uid-1', groups: [] }]]],
    ['one group', 'tok1,alice,uid-1,dev\n', [['tok1', { username: 'alice', uid: 'uid-1', groups: ['dev'] }]]],
    [
      'quoted group list',
      'tok1,alice,uid-1,"system:masters,dev,ops"\n',
      [['tok1', { username: 'alice', uid: 'uid-1', groups: ['system:masters', 'dev', 'ops'] }]],
    ],
    ['columns after the fourth are ignored', 'tok1,alice,uid-1,dev,extra\n', [['tok1', { username: 'alice', uid: 'uid-1', groups: ['dev'] }]]],
    ['empty groups column gives one empty group, as upstream', 'tok1,alice,uid-1,\n', [['tok1', { username: 'alice', uid: 'uid-1', groups: [''] }]]],
    ['no trimming', 'tok1, alice ,uid-1\n', [['tok1', { username: ' alice ', uid: 'uid-1', groups: [] }]]],
    [
      'blank lines, CRLF and no final newline',
      '\ntok1,alice,uid-1\r\n\r\ntok2,bob,uid-2',
      [
        ['tok1', { username: 'alice', uid: 'uid-1', groups: [] }],
        ['tok2', { username: 'bob', uid: 'uid-2', groups: [] }],
      ],
    ],
    ['escaped quotes', '"a""b",alice,uid-1\n', [['a"b', { username: 'alice', uid: 'uid-1', groups: [] }]]],
    ['a quoted field across lines', 'tok1,alice,uid-1,"a,\r\nb"\ntok2,bob,2\n', [
      ['tok1', { username: 'alice', uid: 'uid-1', groups: ['a', '\nb'] }],
      ['tok2', { username: 'bob', uid: '2', groups: [] }],
    ]],
    ['empty token skipped', ',alice,uid-1\ntok2,bob,uid-2\n', [['tok2', { username: 'bob', uid: 'uid-2', groups: [] }]]],
    ['duplicate token: last wins', 'tok1,alice,uid-1\ntok1,bob,uid-2\n', [['tok1', { username: 'bob', uid: 'uid-2', groups: [] }]]],
    ['empty file', '', []],
  ])('%s', (_name, text, expected) => {
    expect([...parseTokenCsv(text, P)]).toEqual(expected);
  });

  test('warns about empty and duplicate tokens with record numbers', () => {
    const warnings: string[] = [];
    parseTokenCsv('tok1,a,1\n,b,2\ntok1,c,3\n', P, (m) => warnings.push(m));
    expect(warnings).toEqual([
      `empty token has been found in token file '${P}', record number '2'`,
      `duplicate token has been found in token file '${P}', record number '3'`,
    ]);
  });

  test.each<[string, string, string]>([
    ['too few columns', 'tok1,alice\n', `token file '${P}' must have at least 3 columns (token, user name, user uid), found 2 (line 1)`],
    ['one column on a later line', 'tok1,alice,1\n\n# comment\n', `token file '${P}' must have at least 3 columns (token, user name, user uid), found 1 (line 3)`],
    ['bare quote', 'tok1,ali"ce,1\n', `token file '${P}': parse error on line 1, column 9: bare " in non-quoted-field`],
    ['text after a closing quote', 'tok1,"alice"x,1\n', `token file '${P}': parse error on line 1, column 12: extraneous or missing " in quoted-field`],
    ['unterminated quote', 'tok1,alice,1,"dev\nmore\n', `token file '${P}': record on line 1; parse error on line 2, column 6: extraneous or missing " in quoted-field`],
    ['unterminated quote without final newline', 'tok1,alice,1,"dev', `token file '${P}': parse error on line 1, column 18: extraneous or missing " in quoted-field`],
  ])('%s', (_name, text, message) => {
    expect(() => parseTokenCsv(text, P)).toThrow(message);
  });
});

describe('parseTokenFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tokens-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('reads a file', async () => {
    const path = join(dir, 't.csv');
    await writeFile(path, 'tok1,alice,uid-1,"a,b"\n');
    expect((await parseTokenFile(path)).get('tok1')).toEqual({ username: 'alice', uid: 'uid-1', groups: ['a', 'b'] });
  });

  test('a missing file is an error', async () => {
    await expect(parseTokenFile(join(dir, 'nope.csv'))).rejects.toThrow(/ENOENT/);
  });
});

describe('formatTokenRecord', () => {
  test.each<[string, TokenUser, string]>([
    ['tok', { username: 'admin', uid: 'admin', groups: ['system:masters'] }, 'tok,admin,admin,"system:masters"'],
    ['tok', { username: 'a', uid: 'u', groups: ['g1', 'g2'] }, 'tok,a,u,"g1,g2"'],
    ['tok', { username: 'a,b', uid: 'u"1', groups: [] }, 'tok,"a,b","u""1"'],
  ])('%s %j', (token, user, line) => {
    expect(formatTokenRecord(token, user)).toBe(line);
    expect(parseTokenCsv(line, P).get(token)).toEqual(user);
  });
});

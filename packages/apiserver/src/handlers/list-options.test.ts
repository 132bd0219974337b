import { parseListQuery } from './list-options.js';
import { StatusError } from '@cluster/apimachinery';

const q = (s: string) => new URLSearchParams(s);

// Every cell of the SPEC 4.4 list table, plus the "Invalid" ones.
describe('parseListQuery semantics (SPEC 4.4)', () => {
  test.each([
    ['', { kind: 'MostRecent' }],
    ['resourceVersion=0', { kind: 'Any' }],
    ['resourceVersion=15', { kind: 'NotOlderThan', resourceVersion: '15' }],
    ['limit=5', { kind: 'MostRecent' }],
    ['limit=5&resourceVersion=0', { kind: 'Any' }],
    ['limit=5&resourceVersion=15', { kind: 'Exact', resourceVersion: '15' }],
    ['limit=5&continue=tok', { kind: 'Continue', token: 'tok' }],
    ['limit=5&continue=tok&resourceVersion=0', { kind: 'Continue', token: 'tok' }],
    ['resourceVersionMatch=Exact&resourceVersion=15', { kind: 'Exact', resourceVersion: '15' }],
    ['resourceVersionMatch=Exact&resourceVersion=15&limit=3', { kind: 'Exact', resourceVersion: '15' }],
    ['resourceVersionMatch=NotOlderThan&resourceVersion=0', { kind: 'Any' }],
    ['resourceVersionMatch=NotOlderThan&resourceVersion=0&limit=3', { kind: 'Any' }],
    ['resourceVersionMatch=NotOlderThan&resourceVersion=15', { kind: 'NotOlderThan', resourceVersion: '15' }],
    ['resourceVersionMatch=NotOlderThan&resourceVersion=15&limit=3', { kind: 'NotOlderThan', resourceVersion: '15' }],
  ])('%s', (query, semantic) => {
    expect(parseListQuery(q(query), false).semantic).toEqual(semantic);
  });

  test.each([
    ['limit=5&continue=tok&resourceVersion=15', 'specifying resource version is not allowed when using continue'],
    ['resourceVersionMatch=Exact', 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersionMatch=Exact&limit=2', 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersionMatch=Exact&resourceVersion=0', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersionMatch=Sometimes&resourceVersion=3', 'Unsupported value'],
    ['resourceVersionMatch=Exact&resourceVersion=3&continue=x', 'forbidden when continue is provided'],
    ['resourceVersion=abc', 'invalid resource version'],
    ['limit=ten', 'invalid value for limit'],
  ])('invalid: %s', (query, message) => {
    try {
      parseListQuery(q(query), false);
      throw new Error('expected a 400');
    } catch (e) {
      expect(e).toBeInstanceOf(StatusError);
      expect((e as StatusError).status.code).toBe(400);
      expect((e as StatusError).status.message).toContain(message);
    }
  });

  test('watch semantics', () => {
    expect(parseListQuery(q('watch=1'), true).semantic).toEqual({ kind: 'MostRecent' });
    expect(parseListQuery(q('watch=1&resourceVersion=0'), true).semantic).toEqual({ kind: 'Any' });
    expect(parseListQuery(q('watch=1&resourceVersion=7'), true).semantic).toEqual({ kind: 'NotOlderThan', resourceVersion: '7' });
    expect(() => parseListQuery(q('watch=1&resourceVersion=7&resourceVersionMatch=Exact'), true)).toThrow(StatusError);
  });
});

import { StatusError } from '../errors/status-error.js';
import { scanAll, type TokenKind } from './lexer.js';
import { LabelRequirement, newLabelRequirement, SelectorParseError, type LabelOperator } from './requirement.js';
import { LabelSelector, parseLabelSelector, parseLabelSelectorParam } from './selector.js';

const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const parseError = (s: string): string => {
  try {
    parseLabelSelector(s);
  } catch (e) {
    if (e instanceof SelectorParseError) return e.message;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
};

const reqs = (s: string): [string, LabelOperator, readonly string[]][] =>
  parseLabelSelector(s).requirements.map((r) => [r.key, r.operator, r.values]);

describe('lexer', () => {
  test.each<[string, TokenKind]>([
    ['', 'EndOfString'],
    [',', 'Comma'],
    ['notin', 'NotIn'],
    ['in', 'In'],
    ['=', 'Equals'],
    ['==', 'DoubleEquals'],
    ['>', 'GreaterThan'],
    ['<', 'LessThan'],
    ['!', 'DoesNotExist'],
    ['!=', 'NotEquals'],
    ['(', 'OpenPar'],
    [')', 'ClosedPar'],
    ['~', 'Identifier'],
    ['||', 'Identifier'],
  ])('single token %j is %s', (s, kind) => {
    const first = scanAll(s)[0];
    expect(first?.kind).toBe(kind);
    expect(first?.literal).toBe(s);
  });

  test.each<[string, TokenKind[]]>([
    ['key in ( value )', ['Identifier', 'In', 'OpenPar', 'Identifier', 'ClosedPar']],
    ['key notin ( value )', ['Identifier', 'NotIn', 'OpenPar', 'Identifier', 'ClosedPar']],
    ['key in ( value1, value2 )', ['Identifier', 'In', 'OpenPar', 'Identifier', 'Comma', 'Identifier', 'ClosedPar']],
    ['key', ['Identifier']],
    ['!key', ['DoesNotExist', 'Identifier']],
    ['()', ['OpenPar', 'ClosedPar']],
    ['x in (),y', ['Identifier', 'In', 'OpenPar', 'ClosedPar', 'Comma', 'Identifier']],
    ['== != (), = notin', ['DoubleEquals', 'NotEquals', 'OpenPar', 'ClosedPar', 'Comma', 'Equals', 'NotIn']],
    ['key>2', ['Identifier', 'GreaterThan', 'Identifier']],
    ['key<1', ['Identifier', 'LessThan', 'Identifier']],
    ['a=!b', ['Identifier', 'Equals', 'DoesNotExist', 'Identifier']],
  ])('sequence %j', (s, kinds) => {
    expect(scanAll(s).map((t) => t.kind)).toEqual([...kinds, 'EndOfString']);
  });
});

describe('parseLabelSelector: good strings re-print in canonical form', () => {
  test.each<[string, string]>([
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x==a', 'x==a'],
    ['a,b', 'a,b'],
    ['  x  in  ( b , a )  ', 'x in (a,b)'],
    ['x notin ()', 'x notin ()'],
  ])('%j', (s, want) => {
    expect(parseLabelSelector(s).toString()).toBe(want);
  });

  test('output is sorted by key, so parse is deterministic', () => {
    expect(parseLabelSelector('x=a,a=x').toString()).toBe(parseLabelSelector('a=x,x=a').toString());
    expect(parseLabelSelector('x=a,a=x').toString()).toBe('a=x,x=a');
  });
});

describe('parseLabelSelector: structure', () => {
  test.each<[string, [string, LabelOperator, string[]][]]>([
    ['', []],
    ['\rx', [['x', 'exists', []]]],
    ['this-is-a-dns.domain.com/key-with-dash', [['this-is-a-dns.domain.com/key-with-dash', 'exists', []]]],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', [['this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what']]]],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', [['0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tack.clock']]]],
    ['foo  in\t (abc)', [['foo', 'in', ['abc']]]],
    ['x notin\n (abc)', [['x', 'notin', ['abc']]]],
    ['x  notin\t\t\t(abc,def)', [['x', 'notin', ['abc', 'def']]]],
    ['x in (abc,)', [['x', 'in', ['', 'abc']]]],
    ['x in ()', [['x', 'in', ['']]]],
    [
      'x notin (abc,def),bar,z in (),w',
      [
        ['bar', 'exists', []],
        ['w', 'exists', []],
        ['x', 'notin', ['abc', 'def']],
        ['z', 'in', ['']],
      ],
    ],
    ['x,y in (a)', [['x', 'exists', []], ['y', 'in', ['a']]]],
    ['x=a', [['x', '=', ['a']]]],
    ['x>1', [['x', 'gt', ['1']]]],
    ['x<7', [['x', 'lt', ['7']]]],
    ['x=a,y!=b', [['x', '=', ['a']], ['y', '!=', ['b']]]],
    ['x=a,y!=b,z in (h,i,j)', [['x', '=', ['a']], ['y', '!=', ['b']], ['z', 'in', ['h', 'i', 'j']]]],
    ['x notin ( )', [['x', 'notin', ['']]]],
    ['x notin (, a)', [['x', 'notin', ['', 'a']]]],
    ['a ', [['a', 'exists', []]]],
    ['a in (x,y,notin, z,in)', [['a', 'in', ['in', 'notin', 'x', 'y', 'z']]]],
    ['notin=in', [['notin', '=', ['in']]]],
    ['x in (b,a,b)', [['x', 'in', ['a', 'b']]]],
    ['!x,y', [['x', '!', []], ['y', 'exists', []]]],
  ])('%j', (s, want) => {
    expect(reqs(s)).toEqual(want);
  });
});

describe('parseLabelSelector: errors', () => {
  test.each<[string, string]>([
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a (', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${labelValueMsg}`],
    ['x in (a,b@)', `unable to parse requirement: values[1][x]: Invalid value: "b@": ${labelValueMsg}`],
    [
      'x>a@',
      `unable to parse requirement: [values[0]: Invalid value: "a@": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "a@": ${labelValueMsg}]`,
    ],
  ])('%j', (s, want) => {
    expect(parseError(s)).toBe(want);
  });

  test('an invalid key is reported with a nil field path, as upstream', () => {
    expect(parseError('a/b/c=d')).toBe(
      "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
  });

  test('several key problems are joined with "; "', () => {
    expect(parseError('/-')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "\/-": prefix part must be non-empty; name part must consist of /);
  });

  test('the error is itself a 400 BadRequest StatusError, so callers need not convert it', () => {
    let err: unknown;
    try {
      parseLabelSelector('x==a==b');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SelectorParseError);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      status: 'Failure',
      message: "found '==', expected: ',' or 'end of string'",
    });
  });

  test('a 254-byte key fails', () => {
    expect(parseError(`${'a'.repeat(254)}/b`)).toContain('prefix part must be no more than 253 characters');
  });
});

describe('matching', () => {
  test.each<[string, Record<string, string>, boolean]>([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x<1', { x: '-5' }, true],
    ['x>0', { x: '+1' }, true],
    ['x<0', { x: '-1' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['x>1', {}, false],
    ['x>1', { x: 'v2' }, false],
    ['x>1', { x: '99999999999999999999' }, false],
    ['x>9007199254740992', { x: '9007199254740993' }, true],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=', {}, true],
    ['x in (foo)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['x in ()', { x: '' }, true],
    ['foo=bar,baz=blah', { foo: 'bar', baz: 'blah' }, true],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
    ['constructor', {}, false],
    ['!toString', {}, true],
  ])('%j on %j is %s', (s, labels, want) => {
    expect(parseLabelSelector(s).matches(labels)).toBe(want);
  });

  test('undefined labels are no labels', () => {
    expect(parseLabelSelector('').matches(undefined)).toBe(true);
    expect(parseLabelSelector('!a').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a').matches(undefined)).toBe(false);
  });
});

describe('LabelSelector', () => {
  test('empty', () => {
    expect(parseLabelSelector('').empty).toBe(true);
    expect(parseLabelSelector(' ').empty).toBe(true);
    expect(parseLabelSelector('a').empty).toBe(false);
    expect(LabelSelector.everything().empty).toBe(true);
    expect(LabelSelector.nothing().empty).toBe(false);
    expect(LabelSelector.nothing().matches({})).toBe(false);
  });

  test.each<[string, string, string | undefined]>([
    ['a=b', 'a', 'b'],
    ['a==b', 'a', 'b'],
    ['a in (b)', 'a', 'b'],
    ['a in (b,c)', 'a', undefined],
    ['a!=b', 'a', undefined],
    ['x=y', 'a', undefined],
    ['a', 'a', undefined],
  ])('requiresExactMatch(%j, %j)', (s, key, want) => {
    expect(parseLabelSelector(s).requiresExactMatch(key)).toBe(want);
  });

  test.each<[LabelRequirement[], string]>([
    [[new LabelRequirement('x', 'in', ['abc', 'def']), new LabelRequirement('y', 'notin', ['jkl']), new LabelRequirement('z', 'exists', [])], 'x in (abc,def),y notin (jkl),z'],
    [[new LabelRequirement('x', 'notin', ['def', 'abc']), new LabelRequirement('y', '!=', ['jkl']), new LabelRequirement('z', '!', [])], 'x notin (abc,def),y!=jkl,!z'],
    [[new LabelRequirement('x', 'notin', ['abc']), new LabelRequirement('y', 'in', ['jkl', 'mno']), new LabelRequirement('z', 'notin', [''])], 'x notin (abc),y in (jkl,mno),z notin ()'],
    [[new LabelRequirement('x', '=', ['abc']), new LabelRequirement('y', '==', ['jkl']), new LabelRequirement('z', '!=', ['a']), new LabelRequirement('z', 'exists', [])], 'x=abc,y==jkl,z!=a,z'],
    [[new LabelRequirement('x', 'gt', ['2']), new LabelRequirement('y', 'lt', ['8']), new LabelRequirement('z', 'exists', [])], 'x>2,y<8,z'],
  ])('toString %#', (rs, want) => {
    expect(LabelSelector.of(rs).toString()).toBe(want);
  });

  test('add keeps key order', () => {
    const sel = parseLabelSelector('b=1').add(newLabelRequirement('a', 'in', ['x']));
    expect(sel.toString()).toBe('a in (x),b=1');
  });
});

describe('newLabelRequirement', () => {
  test.each<[string, LabelOperator, string[], boolean]>([
    ['x', 'in', [], false],
    ['x', 'notin', [], false],
    ['x', 'in', ['foo'], true],
    ['x', 'notin', ['foo'], true],
    ['x', 'exists', [], true],
    ['x', '!', [], true],
    ['x', 'exists', ['a'], false],
    ['x', '=', ['a', 'b'], false],
    ['1foo', 'in', ['bar'], true],
    ['1234', 'in', ['bar'], true],
    ['y', 'gt', ['1'], true],
    ['z', 'lt', ['6'], true],
    ['foo', 'gt', ['bar'], false],
    ['barz', 'lt', ['blah'], false],
    ['x', 'gt', ['1', '2'], false],
    ['a'.repeat(254), 'exists', [], false],
    ['x', 'bogus' as LabelOperator, ['a'], false],
  ])('%j %s %j valid=%s', (key, op, values, ok) => {
    const build = (): LabelRequirement => newLabelRequirement(key, op, values);
    if (ok) expect(build()).toBeInstanceOf(LabelRequirement);
    else expect(build).toThrow(SelectorParseError);
  });

  test('paths are prefixed', () => {
    expect(() => newLabelRequirement('a b', 'in', ['-'], 'spec.selector')).toThrow(
      /^\[spec\.selector\.key: Invalid value: "a b": name part .*, spec\.selector\.values\[0\]\[a b\]: Invalid value: "-": a valid label/,
    );
  });
});

describe('parseLabelSelectorParam', () => {
  test('absent or empty selects everything', () => {
    expect(parseLabelSelectorParam(undefined).empty).toBe(true);
    expect(parseLabelSelectorParam('').empty).toBe(true);
  });

  test('parses', () => {
    expect(parseLabelSelectorParam('a=b').matches({ a: 'b' })).toBe(true);
  });

  test('a parse error is a 400 BadRequest carrying the parse message', () => {
    let err: unknown;
    try {
      parseLabelSelectorParam('x in (a b)');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    const status = (err as StatusError).status;
    expect(status.code).toBe(400);
    expect(status.reason).toBe('BadRequest');
    expect(status.message).toBe("unable to parse requirement: found 'b', expected: ',' or ')'");
  });
});

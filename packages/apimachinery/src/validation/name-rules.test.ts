import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  regexError,
} from './name-rules.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const qnameNameMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const configKeyMsg =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe('regexError', () => {
  test('without examples', () => {
    expect(regexError('bad', 'x+')).toBe("bad (regex used for validation is 'x+')");
  });
  test('with examples keeps the upstream spacing', () => {
    expect(regexError('bad', 'x+', 'a', 'b')).toBe("bad (e.g. 'a',  or 'b', regex used for validation is 'x+')");
  });
});

describe('isDNS1123Subdomain', () => {
  test.each(['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '1.a', 'a.b.c', 'a.1', 'a--1.b-2', 'x'.repeat(253)])(
    'accepts %s',
    (v) => expect(isDNS1123Subdomain(v)).toEqual([]),
  );
  test.each(['', 'A', 'ABC', 'aBc', 'A1', 'a@b', '-', 'a-', '-a', 'a.', '.a', 'a..b', 'a_b', 'a b', 'ä'])(
    'rejects %j with the regex message',
    (v) => expect(isDNS1123Subdomain(v)).toEqual([subdomainMsg]),
  );
  test('rejects more than 253 bytes', () => {
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
  test('too long and malformed gives both messages', () => {
    expect(isDNS1123Subdomain('A'.repeat(254))).toEqual(['must be no more than 253 characters', subdomainMsg]);
  });
});

describe('isDNS1123Label', () => {
  test.each(['a', 'ab', 'a-1', '0', '1-2', 'a'.repeat(63)])('accepts %s', (v) => expect(isDNS1123Label(v)).toEqual([]));
  test.each(['', 'A', 'a_b', '-a', 'a-', 'a b', 'a@b'])('rejects %j', (v) => expect(isDNS1123Label(v)).toEqual([labelMsg]));
  test('a subdomain with dots is told about the dots', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
  });
  test('rejects 64 bytes', () => {
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isQualifiedName', () => {
  test.each([
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes',
    'now.with.dots/simple',
    'now-with.dashes-and.dots/simple',
    '1-num.2-num/3-num',
    '1234/5678',
    '1.2.3.4/5678',
    'Uppercase_Is_OK_123',
    'example.com/Uppercase_Is_OK_123',
    'requests.storage-foo',
    'a'.repeat(63),
    `${'a'.repeat(253)}/${'b'.repeat(63)}`,
  ])('accepts %s', (v) => expect(isQualifiedName(v)).toEqual([]));

  test.each([
    ['nospecialchars%^=@', [qnameNameMsg]],
    ['cantendwithadash-', [qnameNameMsg]],
    ['-cantstartwithadash-', [qnameNameMsg]],
    ['only/one/slash', [expect.stringMatching(/^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/)]],
    ['Example.com/abc', [`prefix part ${subdomainMsg}`]],
    ['example_com/abc', [`prefix part ${subdomainMsg}`]],
    ['example.com/', ['name part must be non-empty', qnameNameMsg]],
    ['/simple', ['prefix part must be non-empty']],
    ['', ['name part must be non-empty', qnameNameMsg]],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
    [`${'a'.repeat(254)}/abc`, ['prefix part must be no more than 253 characters']],
  ] as const)('rejects %j', (v, want) => {
    expect(isQualifiedName(v)).toEqual(want);
  });
});

describe('isValidLabelValue', () => {
  test.each(['', 'simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'a'.repeat(63), 'Upper_Case.ok'])(
    'accepts %j',
    (v) => expect(isValidLabelValue(v)).toEqual([]),
  );
  test.each(['nospecialchars%^=@', 'Tama-nui-te-rā.is.Māori.sun', '\\backslashes\\are\\bad', '-starts-with-dash', 'ends-with-dash-', '.starts.with.dot', 'ends.with.dot.', 'a/b'])(
    'rejects %j',
    (v) => expect(isValidLabelValue(v)).toEqual([labelValueMsg]),
  );
  test('rejects 64 bytes', () => {
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isConfigMapKey', () => {
  test.each(['a', 'ab', 'abc', 'a1', '-', 'a-', '-a', 'a-b', 'a-1-2', 'a.a', '.a', '_', 'a_', '_a', 'a_b', 'a.b-c_d', 'KEY_NAME', 'x'.repeat(253), '.a.b', 'a..b'])(
    'accepts %j',
    (v) => expect(isConfigMapKey(v)).toEqual([]),
  );
  test.each([
    ['', [configKeyMsg]],
    ['a b', [configKeyMsg]],
    ['a/b', [configKeyMsg]],
    ['ä', [configKeyMsg]],
    ['.', ["must not be '.'"]],
    ['..', ["must not be '..'"]],
    ['..a', ["must not start with '..'"]],
    ['x'.repeat(254), ['must be no more than 253 characters']],
    ['../x', [configKeyMsg, "must not start with '..'"]],
  ] as const)('rejects %j', (v, want) => {
    expect(isConfigMapKey(v)).toEqual(want);
  });
});

describe('name validators', () => {
  test('generateName may end with a dash', () => {
    expect(nameIsDNSSubdomain('foo-', true)).toEqual([]);
    expect(nameIsDNSLabel('foo-', true)).toEqual([]);
  });
  test('a name may not', () => {
    expect(nameIsDNSSubdomain('foo-', false)).toEqual([subdomainMsg]);
    expect(nameIsDNSLabel('foo-', false)).toEqual([labelMsg]);
  });
  test('a lone dash stays invalid as a prefix', () => {
    expect(nameIsDNSSubdomain('-', true)).toEqual([subdomainMsg]);
  });
  test.each([
    ['.', false, ["may not be '.'"]],
    ['..', false, ["may not be '..'"]],
    ['..', true, []],
    ['a/b%c', false, ["may not contain '/'", "may not contain '%'"]],
    ['Any_Thing', false, []],
  ] as const)('path segment %j prefix=%s', (name, prefix, want) => {
    expect(nameIsPathSegment(name, prefix)).toEqual(want);
  });
});

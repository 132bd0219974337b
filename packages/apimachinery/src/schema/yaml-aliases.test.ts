import { parseYamlStrict, YamlSyntaxError } from './parse-yaml-strict.js';

const laughs = (levels: number, width = 9): string => {
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
  return lines.join('\n');
};

describe('YAML alias guard (go-yaml rules)', () => {
  test.each<[string, string, string]>([
    ['billion laughs', laughs(9), 'yaml: document contains excessive aliasing'],
    ['an anchor that contains itself', 'metadata: &m\n  name: a\n  labels: *m\n', "yaml: anchor 'm' value contains itself"],
    ['an alias before its anchor', 'a: *x\nb: &x 1\n', "yaml: unknown anchor 'x' referenced"],
    ['a merge of a scalar', 'a: &x 1\nb:\n  <<: *x\n', 'yaml: map merge requires map or sequence of maps as the value'],
  ])('%s is refused', (_name, text, message) => {
    expect(() => parseYamlStrict(text)).toThrow(new YamlSyntaxError(message));
  });

  test('a small expansion decodes', () => {
    const value = parseYamlStrict(laughs(2, 3)).value as { a2: string[][][] };
    expect(value.a2).toHaveLength(3);
    expect(value.a2[2]).toHaveLength(3);
    expect(value.a2[2]![2]).toEqual(Array(9).fill('lol'));
  });

  test('a manifest with many ordinary aliases is accepted (more than 100, as go-yaml allows)', () => {
    const items = Array.from({ length: 150 }, (_, i) => `  - name: c${i}\n    <<: *defaults`).join('\n');
    const text = `defaults: &defaults\n  image: nginx\n  imagePullPolicy: Always\nitems:\n${items}\n`;
    const value = parseYamlStrict(text).value as { items: Array<Record<string, string>> };
    expect(value.items).toHaveLength(150);
    expect(value.items[149]).toEqual({ name: 'c149', image: 'nginx', imagePullPolicy: 'Always' });
  });

  test('very deep nesting is a syntax error, not a crash', () => {
    expect(() => parseYamlStrict(`a: ${'['.repeat(20000)}${']'.repeat(20000)}`)).toThrow(YamlSyntaxError);
  });
});

import fc from 'fast-check';
import { StatusError } from './errors/status-error.js';
import type { JsonValue } from './meta/types.js';
import { parseFieldSelector } from './fields/index.js';
import { parseLabelSelector } from './labels/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, parsePatchJson } from './patch/index.js';
import { decodeApplyPatch, decodeWithFieldValidation, parseYamlStrict, YamlSyntaxError } from './schema/index.js';
import { canonicalQuantity } from './schema/quantity.js';
import { CONFIG_MAP, loadTestDefinitions } from './schema/test-schemas.js';
import type { Definitions } from './schema/schema-node.js';

/**
 * Property tests over every parser and applier a request body or query reaches: whatever the
 * input, the result is a value or a typed client error (a 4xx StatusError, or the syntax error
 * type its caller turns into one), never a generic exception that the server would answer with a
 * 500. Runs are bounded in count; jest's timeout bounds them in time.
 */

const RUNS = 400;

/** Runs fn and reports what escaped it, if that was not a typed client error. */
function untypedFailure(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof StatusError && e.status.code !== undefined && e.status.code >= 400 && e.status.code < 500) return undefined;
    if (e instanceof YamlSyntaxError) return undefined;
    return `${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`;
  }
}

const expectTyped = (fn: () => unknown): void => {
  expect(untypedFailure(fn)).toBeUndefined();
};

/** Text made of the characters that matter to a grammar, so that near-misses are common. */
const textOf = (alphabet: string[], maxLength = 80): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((parts) => parts.join(''));

const JSON_ALPHABET = ['{', '}', '[', ']', '"', ':', ',', 'a', '1', '-', 'e', '.', ' ', '\\', 'u', 'n', 't', 'f', '0', '\u00e9', '\ud800', 'null', 'true', '"metadata"', '"name"', '"kind"'];
const YAML_ALPHABET = ['a', ':', ' ', '\n', '  ', '- ', '&a ', '*a', '[', ']', '{', '}', '!!str ', '|', '>', '"', "'", '#', '<<: ', '%', '? ', '---\n', 'metadata', 'name', 'kind: ConfigMap', '\t', '1e9', '.inf', '~'];
const SELECTOR_ALPHABET = ['a', 'b', '=', '==', '!=', ',', ' in ', ' notin ', '(', ')', '!', ' ', '/', '.', '-', '1', '>', '<', 'x.y/z', '\\', '\u00e9'];

/** Patch-shaped values: objects that use the directive keys strategic merge gives meaning to. */
const directiveKeys = ['$patch', '$retainKeys', '$setElementOrder/finalizers', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers', '$deleteFromPrimitiveList/args', 'metadata', 'name', 'namespace', 'finalizers', 'spec', 'containers', 'args', 'data', 'kind', 'apiVersion', 'labels'];
const patchValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<JsonValue>(null, 'replace', 'delete', 'merge', 'bogus', 1, true, 'a', ''),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...directiveKeys), tie('value'), { maxKeys: 5 }),
  ),
})).value;

const objectLike: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>,
  patchValue,
  fc.constant<JsonValue>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', finalizers: ['x'] }, spec: { containers: [{ name: 'c', args: ['1'] }] } }),
);

/** A small patch schema: containers merge by name, finalizers merge as scalars. */
const patchSchema = {
  lookup(field: string) {
    if (field === 'containers') return { meta: { patchStrategy: 'merge', patchMergeKey: 'name' }, schema: patchSchema };
    if (field === 'finalizers') return { meta: { patchStrategy: 'merge' }, schema: patchSchema };
    return { meta: {}, schema: patchSchema };
  },
};

let definitions: Definitions;
beforeAll(async () => {
  definitions = await loadTestDefinitions();
});

describe('body decoders never fail untyped', () => {
  test('JSON bodies', () => {
    fc.assert(
      fc.property(fc.oneof(textOf(JSON_ALPHABET), fc.json({ maxDepth: 5 }), fc.string({ unit: 'binary', maxLength: 60 })), (text) => {
        expectTyped(() => decodeWithFieldValidation(text, 'json', definitions, CONFIG_MAP, 'ConfigMap', 'Strict'));
        expectTyped(() => decodeWithFieldValidation(text, 'json', definitions, CONFIG_MAP, 'ConfigMap', 'Warn'));
      }),
      { numRuns: RUNS },
    );
  });

  test('YAML bodies, including anchors and aliases', () => {
    fc.assert(
      fc.property(fc.oneof(textOf(YAML_ALPHABET, 60), fc.string({ unit: 'binary', maxLength: 60 })), (text) => {
        expectTyped(() => parseYamlStrict(text));
        expectTyped(() => decodeWithFieldValidation(text, 'yaml', definitions, CONFIG_MAP, 'ConfigMap', 'Strict'));
        expectTyped(() => decodeApplyPatch(text));
      }),
      { numRuns: RUNS },
    );
  });

  test('alias expansion is refused before it happens, at any depth of nesting', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 2, max: 12 }), (levels, width) => {
        const lines = ['a0: &a0 ["lol"]'];
        for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
        const text = lines.join('\n');
        // Small expansions decode; large ones are a typed error. Neither may expand the document.
        expectTyped(() => parseYamlStrict(text));
        expectTyped(() => decodeApplyPatch(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nx:\n  ${text.replace(/\n/g, '\n  ')}`));
      }),
      { numRuns: 60 },
    );
  });
});

describe('patch appliers never fail untyped', () => {
  test('strategic merge patch', () => {
    fc.assert(
      fc.property(objectLike, patchValue, (original, patch) => {
        expectTyped(() => applyStrategicMergePatch(original, patch, patchSchema as never));
      }),
      { numRuns: RUNS },
    );
  });

  test('JSON merge patch', () => {
    fc.assert(
      fc.property(objectLike, objectLike, (original, patch) => {
        expectTyped(() => applyMergePatch(original, patch));
      }),
      { numRuns: RUNS },
    );
  });

  test('JSON patch', () => {
    const op = fc.record(
      {
        op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', ''),
        path: fc.oneof(fc.constantFrom('', '/', '/metadata', '/metadata/name', '/a/-', '/a/0', '/a/01', '/~2', '/spec/containers/0/args'), fc.string({ maxLength: 12 })),
        from: fc.constantFrom('/metadata', '/a', '/nope', '', 'x'),
        value: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(objectLike, fc.oneof(fc.array(op, { maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), (original, ops) => {
        expectTyped(() => applyJsonPatch(original, ops as JsonValue));
      }),
      { numRuns: RUNS },
    );
  });

  test('patch bodies of every type parse or fail typed', () => {
    fc.assert(
      fc.property(textOf(JSON_ALPHABET), fc.constantFrom('application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'), (text, type) => {
        expectTyped(() => parsePatchJson(text, type as never));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('selectors and quantities never fail untyped', () => {
  test('label selectors', () => {
    fc.assert(
      fc.property(fc.oneof(textOf(SELECTOR_ALPHABET, 30), fc.string({ maxLength: 30 })), (text) => {
        expectTyped(() => parseLabelSelector(text));
      }),
      { numRuns: RUNS },
    );
  });

  test('field selectors', () => {
    fc.assert(
      fc.property(fc.oneof(textOf(SELECTOR_ALPHABET, 30), fc.string({ maxLength: 30 })), (text) => {
        expectTyped(() => parseFieldSelector(text));
      }),
      { numRuns: RUNS },
    );
  });

  test('quantities parse or give Go\'s error text', () => {
    fc.assert(
      fc.property(fc.oneof(textOf(['1', '0', '.', '-', '+', 'e', 'E', 'Ki', 'Mi', 'm', 'k', 'n', 'u', 'G', ' ', 'x'], 12), fc.string({ maxLength: 12 })), (text) => {
        const r = canonicalQuantity(text);
        expect('value' in r ? typeof r.value : typeof r.error).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });
});

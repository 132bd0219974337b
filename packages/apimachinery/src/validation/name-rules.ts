/**
 * Syntax rules for names, keys and values, returning upstream's error detail texts
 * (k8s.io/apimachinery/pkg/util/validation). Each rule returns an empty list when the value is valid.
 * Lengths are counted in UTF-8 bytes, as Go's len() does.
 */

/** Upstream's DNS1123LabelMaxLength. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Upstream's DNS1123SubdomainMaxLength. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Upstream's LabelValueMaxLength, also the limit of the name part of a qualified name. */
export const LABEL_VALUE_MAX_LENGTH = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${qualifiedNameFmt})?`;
const configMapKeyFmt = '[-._a-zA-Z0-9]+';

const whole = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);
const dns1123LabelRe = whole(dns1123LabelFmt);
const dns1123SubdomainRe = whole(dns1123SubdomainFmt);
const qualifiedNameRe = whole(qualifiedNameFmt);
const labelValueRe = whole(labelValueFmt);
const configMapKeyRe = whole(configMapKeyFmt);

const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** Byte length of a string in UTF-8, the unit upstream's length limits use. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Upstream's MaxLenError text. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** Upstream's EmptyError text. */
export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * Upstream's RegexError text: the message, then examples and the regex in parentheses.
 * The odd `',  or '` spacing is upstream's and clients may match on it.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

/** RFC 1123 label: lower-case alphanumerics and '-', at most 63 bytes. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a label can only be failing on its dots (length was checked above).
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** RFC 1123 subdomain: dot-separated labels, at most 253 bytes. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/**
 * Qualified name (label keys, annotation keys, finalizers): an optional DNS-subdomain prefix and '/',
 * then a name of at most 63 bytes.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > LABEL_VALUE_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_VALUE_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** Label value: empty, or at most 63 bytes of alphanumerics, '-', '_', '.' starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Rejects the names a path segment resolves specially (`.`, `..`, a `..` prefix), as upstream's hasChDirPrefix. */
function chDirPrefixErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

/** Key of a ConfigMap or Secret: `[-._a-zA-Z0-9]+`, at most 253 bytes, not `.`/`..`, not starting with `..`. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value)) {
    errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  errs.push(...chDirPrefixErrors(value));
  return errs;
}

/**
 * Name check applied to `metadata.name` (prefix=false) or `metadata.generateName` (prefix=true),
 * as upstream's ValidateNameFunc.
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** A generateName may end in '-' because random characters follow; mask it so the DNS rule can pass. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
}

/** Upstream's NameIsDNSSubdomain (ConfigMap, Secret and most named objects). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Upstream's NameIsDNSLabel (Namespace). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/**
 * Upstream's ValidatePathSegmentName: the weakest rule, applied to every object so its name can
 * be a URL path segment (custom resources use only this one).
 */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  if (!prefix) {
    if (name === '.' || name === '..') return [`may not be '${name}'`];
  }
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
};

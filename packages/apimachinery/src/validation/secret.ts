import type { ObjectMeta } from '../meta/types.js';
import { forbidden, invalid, key, required, tooLong, type FieldErrorList } from './field-error.js';
import { isConfigMapKey } from './name-rules.js';
import { validateObjectMeta, type ObjectMetaOptions } from './object-meta.js';
import { validateObjectMetaUpdate, FIELD_IMMUTABLE_ERROR_MSG } from './object-meta-update.js';
import { validateBootstrapTokenSecret } from './bootstrap-token.js';
import { JsonSyntaxError, parseJsonStrict } from '../schema/parse-json-strict.js';

/** Upstream's MaxSecretSize: the decoded values of `data` together. */
export const MAX_SECRET_SIZE_BYTES = 1024 * 1024;

/** The fields of a Secret that validation reads, in their JSON form (data values are base64). */
export interface SecretFields {
  metadata: ObjectMeta;
  type?: string;
  data?: Record<string, string> | null;
  immutable?: boolean | null;
}

/**
 * Secret type names. Upstream spells them `kubernetes.io/...`; here the product domain is the
 * `--api-domain` (SPEC naming convention), so `k8s.io/tls` by default, and the bootstrap token type
 * is `bootstrap.<apiDomain>/token` (SPEC 2.9).
 */
export function secretTypes(apiDomain: string) {
  return {
    opaque: 'Opaque',
    serviceAccountToken: `${apiDomain}/service-account-token`,
    dockercfg: `${apiDomain}/dockercfg`,
    dockerConfigJson: `${apiDomain}/dockerconfigjson`,
    basicAuth: `${apiDomain}/basic-auth`,
    sshAuth: `${apiDomain}/ssh-auth`,
    tls: `${apiDomain}/tls`,
    bootstrapToken: `bootstrap.${apiDomain}/token`,
  } as const;
}

/** Annotation naming the account of a service-account-token Secret (upstream `kubernetes.io/service-account.name`). */
export function serviceAccountNameAnnotation(apiDomain: string): string {
  return `${apiDomain}/service-account.name`;
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };
const immutableMsg = 'field is immutable when `immutable` is set';

/** Decoded bytes of a base64 value (the decoder has already rejected malformed base64). */
function bytesOf(b64: string): Buffer {
  return Buffer.from(b64, 'base64');
}

/** Checks a JSON document value of a docker config type, redacting the value as upstream does. */
function jsonValue(data: Record<string, string>, k: string, errs: FieldErrorList): void {
  const v = data[k];
  if (v === undefined) {
    errs.push(required(key('data', k), ''));
    return;
  }
  const why = dockerConfigError(bytesOf(v).toString('utf8'));
  if (why) errs.push(invalid(key('data', k), '<secret contents redacted>', why));
}

/**
 * Why a docker config value is not a JSON object, in the words of Go's json.Unmarshal into a map:
 * the scanner's error (which names one character at most) or the JSON kind that came instead.
 * Never V8's JSON.parse message, which quotes the start of the text: the secret itself.
 */
function dockerConfigError(text: string): string | undefined {
  let value;
  try {
    value = parseJsonStrict(text).value;
  } catch (e) {
    return e instanceof JsonSyntaxError ? e.message : 'invalid JSON';
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/** Rules of the typed Secrets (upstream ValidateSecret's switch on type). */
function validateTyped(s: SecretFields, apiDomain: string): FieldErrorList {
  const t = secretTypes(apiDomain);
  const data = s.data ?? {};
  const errs: FieldErrorList = [];
  const has = (k: string) => Object.hasOwn(data, k);
  switch (s.type) {
    case t.serviceAccountToken: {
      const ann = serviceAccountNameAnnotation(apiDomain);
      if (!s.metadata.annotations?.[ann]) errs.push(required(key('metadata.annotations', ann), ''));
      break;
    }
    case t.dockercfg:
      jsonValue(data, '.dockercfg', errs);
      break;
    case t.dockerConfigJson:
      jsonValue(data, '.dockerconfigjson', errs);
      break;
    case t.basicAuth:
      if (!has('username') && !has('password')) {
        errs.push(required(key('data', 'username'), ''), required(key('data', 'password'), ''));
      }
      break;
    case t.sshAuth:
      if (!data['ssh-privatekey']) errs.push(required(key('data', 'ssh-privatekey'), ''));
      break;
    case t.tls:
      if (!has('tls.crt')) errs.push(required(key('data', 'tls.crt'), ''));
      if (!has('tls.key')) errs.push(required(key('data', 'tls.key'), ''));
      break;
    case t.bootstrapToken:
      errs.push(...validateBootstrapTokenSecret(s.metadata.name ?? '', decodeData(data)));
      break;
    default:
  }
  return errs;
}

/** The data map with its values decoded to UTF-8 text. */
export function decodeData(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, bytesOf(v).toString('utf8')]));
}

/**
 * Validates a Secret on create (upstream ValidateSecret): metadata, keys as ConfigMap keys, the
 * 1 MiB total, then the rules of its type. Pure; returns the errors.
 */
export function validateSecret(s: SecretFields, apiDomain: string): FieldErrorList {
  return [...validateObjectMeta(s.metadata, metaOptions), ...validateSecretContent(s, apiDomain)];
}

function validateSecretContent(s: SecretFields, apiDomain: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let total = 0;
  for (const [k, v] of Object.entries(s.data ?? {})) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('data', k), k, msg));
    total += bytesOf(v).length;
  }
  if (total > MAX_SECRET_SIZE_BYTES) errs.push(tooLong('data', MAX_SECRET_SIZE_BYTES));
  errs.push(...validateTyped(s, apiDomain));
  return errs;
}

function sameMap(a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean {
  if (a == null || b == null) return a == null && b == null;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * Validates a Secret update (upstream ValidateSecretUpdate): metadata update rules, `type` is
 * immutable, an immutable Secret keeps `immutable` and `data`, then the create rules.
 */
export function validateSecretUpdate(s: SecretFields, old: SecretFields, apiDomain: string): FieldErrorList {
  const errs = validateObjectMetaUpdate(s.metadata, old.metadata, metaOptions);
  if ((s.type ?? '') !== (old.type ?? '')) errs.push(invalid('type', s.type ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  if (old.immutable === true) {
    if (s.immutable !== true) errs.push(forbidden('immutable', immutableMsg));
    if (!sameMap(s.data, old.data)) errs.push(forbidden('data', immutableMsg));
  }
  errs.push(...validateSecretContent(s, apiDomain));
  return errs;
}

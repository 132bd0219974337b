import {
  checkAgainstSchema,
  isJsonObject,
  newBadRequest,
  parseJsonStrict,
  newInvalid,
  notSupported,
  invalid,
  type FieldError,
  type JsonObject,
} from '@cluster/apimachinery';
import type { Preconditions } from '@cluster/storage';
import { parseJsonBody } from './decode-body.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Options shared by create, update and patch (CreateOptions/UpdateOptions/PatchOptions). */
export interface WriteQuery {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidation;
  force: boolean;
}

const optionsGroup = 'meta.k8s.io';

function invalidOptions(kind: string, errs: FieldError[]): Error {
  return newInvalid({ group: optionsGroup, kind }, '', errs);
}

/**
 * Reads dryRun (bare `?dryRun` or `All`, SPEC 4.6), fieldManager, fieldValidation and force.
 * Bad values are 422 Invalid on the options kind, as upstream's ValidateCreateOptions answers.
 */
export function parseWriteQuery(query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): WriteQuery {
  const errs: FieldError[] = [];
  const dryRun = parseDryRun(query, errs);
  const fieldManager = query.get('fieldManager') ?? '';
  if (fieldManager.length > 128) errs.push(invalid('fieldManager', fieldManager, 'must be at most 128 characters'));
  else if (/[^\x20-\x7e]/.test(fieldManager)) errs.push(invalid('fieldManager', fieldManager, 'must only contain printable characters'));
  const fv = query.get('fieldValidation') ?? '';
  let fieldValidation: FieldValidation = 'Warn';
  if (fv === 'Ignore' || fv === 'Warn' || fv === 'Strict') fieldValidation = fv;
  else if (fv !== '') errs.push(notSupported('fieldValidation', fv, ['Ignore', 'Strict', 'Warn']));
  const forceText = query.get('force');
  const force = forceText === 'true' || forceText === '1' || forceText === '';
  if (errs.length) throw invalidOptions(kind, errs);
  return { dryRun, fieldManager, fieldValidation, force };
}

function parseDryRun(query: URLSearchParams, errs: FieldError[]): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All' && v !== '') errs.push(notSupported('dryRun', v, ['All']));
  }
  return true;
}

export interface DeleteQuery {
  dryRun: boolean;
  preconditions?: Preconditions;
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
}

const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';

/**
 * A DeleteOptions body decoded as upstream decodes it into its Go type: malformed JSON or a value
 * of the wrong type (`"gracePeriodSeconds": "x"`) is 400 with Go's decoder message, before the
 * object is looked up.
 */
function decodeDeleteBody(body: Buffer, definitions: Readonly<Record<string, JsonObject>> | undefined): unknown {
  if (!definitions?.[DELETE_OPTIONS]) return parseJsonBody(body.toString('utf8'));
  let parsed;
  try {
    parsed = parseJsonStrict(body.toString('utf8'));
  } catch (e) {
    throw newBadRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  const checked = checkAgainstSchema(parsed.value, definitions, DELETE_OPTIONS, { numberText: parsed.numberText, duplicates: parsed.duplicates });
  if (checked.decodeError) throw newBadRequest(checked.decodeError.goMessage);
  return checked.value;
}

/** DeleteOptions from the query and/or a JSON body (kubectl sends both forms). */
export function parseDeleteOptions(
  query: URLSearchParams,
  body: Buffer | undefined,
  definitions?: Readonly<Record<string, JsonObject>>,
): DeleteQuery {
  const errs: FieldError[] = [];
  const out: DeleteQuery = { dryRun: parseDryRun(query, errs) };
  const policy = query.get('propagationPolicy');
  if (policy) out.propagationPolicy = policy;
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null && grace !== '') out.gracePeriodSeconds = Number(grace);
  if (body && body.length > 0) {
    const value = decodeDeleteBody(body, definitions);
    if (isJsonObject(value)) {
      if (typeof value.propagationPolicy === 'string') out.propagationPolicy = value.propagationPolicy;
      if (typeof value.gracePeriodSeconds === 'number') out.gracePeriodSeconds = value.gracePeriodSeconds;
      if (Array.isArray(value.dryRun)) {
        for (const v of value.dryRun) {
          if (v !== 'All') errs.push(notSupported('dryRun', v, ['All']));
        }
        if (value.dryRun.length > 0) out.dryRun = true;
      }
      const pre = value.preconditions;
      if (isJsonObject(pre)) {
        out.preconditions = {};
        if (typeof pre.uid === 'string') out.preconditions.uid = pre.uid;
        if (typeof pre.resourceVersion === 'string') out.preconditions.resourceVersion = pre.resourceVersion;
      }
    }
  }
  if (out.propagationPolicy !== undefined && !propagationPolicies.includes(out.propagationPolicy)) {
    errs.push(notSupported('propagationPolicy', out.propagationPolicy, propagationPolicies));
  }
  if (out.gracePeriodSeconds !== undefined && (!Number.isInteger(out.gracePeriodSeconds) || out.gracePeriodSeconds < 0)) {
    errs.push(invalid('gracePeriodSeconds', out.gracePeriodSeconds, 'must be a non-negative integer'));
  }
  if (errs.length) throw invalidOptions('DeleteOptions', errs);
  return out;
}

/** The field manager of a non-apply write: the fieldManager option, else the user agent's program name. */
export function managerFor(query: WriteQuery, userAgent: string): string {
  if (query.fieldManager) return query.fieldManager;
  const program = userAgent.split('/')[0] ?? '';
  return program.slice(0, 128) || 'unknown';
}

import { newInvalid, notSupported, invalid, type FieldError, type JsonObject } from '@cluster/apimachinery';
import { invalidDeleteOptions, readDeleteOptions, type DeleteOptions, type DeleteOptionsBase } from '../registry/delete-options.js';

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

export type DeleteQuery = DeleteOptions;

/**
 * DeleteOptions from the query and/or the decoded body (decodeDeleteOptionsBody; kubectl sends both
 * forms; the body's values win). Bad values are 422 Invalid on DeleteOptions.
 */
export function parseDeleteOptions(query: URLSearchParams, body: JsonObject | undefined): DeleteQuery {
  const errs: FieldError[] = [];
  const fromQuery: DeleteOptionsBase = { dryRun: parseDryRun(query, errs) };
  const policy = query.get('propagationPolicy');
  if (policy) fromQuery.propagationPolicy = policy;
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null && grace !== '') fromQuery.gracePeriodSeconds = Number(grace);
  const orphanText = query.get('orphanDependents');
  if (orphanText !== null && orphanText !== '') fromQuery.orphanDependents = orphanText === 'true' || orphanText === '1';
  const out = readDeleteOptions(body, errs, fromQuery);
  if (out.gracePeriodSeconds !== undefined && (!Number.isInteger(out.gracePeriodSeconds) || out.gracePeriodSeconds < 0)) {
    errs.push(invalid('gracePeriodSeconds', out.gracePeriodSeconds, 'must be a non-negative integer'));
  }
  if (errs.length) throw invalidDeleteOptions(errs);
  return out;
}

/** The field manager of a non-apply write: the fieldManager option, else the user agent's program name. */
export function managerFor(query: WriteQuery, userAgent: string): string {
  if (query.fieldManager) return query.fieldManager;
  const program = userAgent.split('/')[0] ?? '';
  return program.slice(0, 128) || 'unknown';
}

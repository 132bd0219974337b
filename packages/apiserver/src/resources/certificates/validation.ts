import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  isDNS1123Label,
  nameIsPathSegment,
  notSupported,
  required,
  tooLong,
  validateImmutableField,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
} from '@cluster/apimachinery';
import { certificatePemError, verifyCertificateRequest } from '@cluster/apimachinery';
import { FINAL_CONDITION_TYPES, KNOWN_USAGES, legacyUnknownSigner, type CertificateSigningRequest, type CsrCondition, type CsrSpec } from './types.js';

/** CSR names are path segments: upstream accepts any name, but ours go into URLs and keys. */
const csrMeta = { namespaced: false, nameValidator: 'pathSegment' as const };
const DOMAIN_MAX_LENGTH = 253;
const MIN_EXPIRATION_SECONDS = 600;
const CONDITION_STATUSES = ['True', 'False', 'Unknown'];
/** Upstream shows this instead of the certificate bytes in errors. */
const CERTIFICATE_PLACEHOLDER = '<certificate data>';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** The conditions only the `approval` subresource may add or change. */
const APPROVAL_CONDITION_TYPES = ['Approved', 'Denied'] as const;

/** What an update may keep that a create may not (upstream's validation options from the old object). */
interface SpecOptions {
  allowLegacySigner: boolean;
  allowDuplicateUsages: boolean;
}

/** A new request: metadata, spec (request, signerName, usages, expirationSeconds) and status. */
export function validateCsr(csr: CertificateSigningRequest, apiDomain: string, allowLegacySigner = false): FieldErrorList {
  return [
    ...validateObjectMeta(csr.metadata, csrMeta),
    ...validateSpec(csr.spec ?? {}, apiDomain, { allowLegacySigner, allowDuplicateUsages: false }),
    ...validateStatus(csr),
  ];
}

/** An update of the main resource: metadata rules, and every spec field unchanged ("field is immutable"). */
export function validateCsrUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, apiDomain: string): FieldErrorList {
  return [
    ...validateObjectMetaUpdate(csr.metadata, old.metadata, csrMeta),
    ...validateSpecUnchanged(csr.spec ?? {}, old.spec ?? {}),
    ...validateSpec(csr.spec ?? {}, apiDomain, optionsFrom(old, apiDomain)),
    ...validateStatus(csr),
  ];
}

/** Which endpoint an update of the status came through (upstream's per-subresource validation options). */
export type CsrStatusEndpoint = 'status' | 'approval';

/**
 * An update through `status` or `approval` (upstream's ValidateCertificateSigningRequestStatusUpdate
 * and ...ApprovalUpdate): the common update rules; no Approved, Denied or Failed condition removed;
 * Approved and Denied conditions added or changed only through `approval`; status.certificate set
 * only through `status`, and never changed once set.
 */
export function validateCsrStatusUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, apiDomain: string, endpoint: CsrStatusEndpoint): FieldErrorList {
  const errs = validateCsrUpdate(csr, old, apiDomain);
  errs.push(...validateConditionChanges(csr.status?.conditions ?? [], old.status?.conditions ?? [], endpoint === 'approval'));
  const oldCert = old.status?.certificate ?? '';
  const cert = csr.status?.certificate ?? '';
  if (cert !== oldCert) {
    if (endpoint !== 'status') errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert !== '') errs.push(invalid('status.certificate', CERTIFICATE_PLACEHOLDER, 'updates may not modify existing certificate content'));
  }
  return errs;
}

function optionsFrom(old: CertificateSigningRequest, apiDomain: string): SpecOptions {
  const usages = old.spec?.usages ?? [];
  return {
    allowLegacySigner: old.spec?.signerName === legacyUnknownSigner(apiDomain),
    allowDuplicateUsages: new Set(usages).size !== usages.length,
  };
}

/** Spec rules of upstream's ValidateCertificateRequestSpec for v1. */
export function validateSpec(spec: CsrSpec, apiDomain: string, opts: SpecOptions): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!spec.request) {
    errs.push(required('spec.request'));
  } else {
    const reason = BASE64.test(spec.request) ? requestError(Buffer.from(spec.request, 'base64')) : 'illegal base64 data';
    if (reason) errs.push(invalid('spec.request', spec.request, reason));
  }
  errs.push(...validateSignerName(spec.signerName ?? '', 'spec.signerName'));
  if (spec.signerName === legacyUnknownSigner(apiDomain) && !opts.allowLegacySigner) {
    errs.push(invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  }
  const usages = spec.usages ?? [];
  if (usages.length === 0) errs.push(required('spec.usages', 'usages must be provided'));
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (!KNOWN_USAGES.includes(u)) errs.push(notSupported(index('spec.usages', i), u, KNOWN_USAGES));
    if (seen.has(u) && !opts.allowDuplicateUsages) errs.push(duplicate(index('spec.usages', i), u));
    seen.add(u);
  });
  const exp = spec.expirationSeconds;
  if (exp !== undefined && exp !== null && exp < MIN_EXPIRATION_SECONDS) {
    errs.push(invalid('spec.expirationSeconds', exp, `may not specify a duration less than ${MIN_EXPIRATION_SECONDS} seconds (10 minutes)`));
  }
  return errs;
}

function requestError(pem: Buffer): string | undefined {
  try {
    verifyCertificateRequest(pem);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** `<domain>/<path>`: a domain of at least two DNS labels, then one path segment (upstream's ValidateSignerName). */
export function validateSignerName(name: string, path: string): FieldErrorList {
  if (name === '') return [required(path)];
  const slash = name.indexOf('/');
  if (slash < 0 || slash === name.length - 1) {
    return [invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const errs: FieldErrorList = [];
  const domain = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  if (domain.length > DOMAIN_MAX_LENGTH) errs.push(tooLong(path, DOMAIN_MAX_LENGTH));
  const labels = domain.split('.');
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    for (const msg of msgs) errs.push(invalid(path, domain, `validating label "${label}": ${msg}`));
    if (msgs.length) break;
  }
  if (labels.length < 2) errs.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  const maxPath = DOMAIN_MAX_LENGTH - domain.length - 1;
  if (rest.length > maxPath) errs.push(tooLong(path, maxPath));
  for (const msg of nameIsPathSegment(rest, false)) errs.push(invalid(path, rest, msg));
  return errs;
}

/** Conditions (unique non-empty types, True/False/Unknown, Approved xor Denied) and the certificate PEM. */
export function validateStatus(csr: CertificateSigningRequest): FieldErrorList {
  const errs = validateConditions(csr.status?.conditions ?? [], 'status.conditions');
  const cert = csr.status?.certificate ?? '';
  if (cert !== '') {
    const reason = BASE64.test(cert) ? certificatePemError(Buffer.from(cert, 'base64')) : 'illegal base64 data';
    if (reason) errs.push(invalid('status.certificate', CERTIFICATE_PLACEHOLDER, reason));
  }
  return errs;
}

export function validateConditions(conditions: CsrCondition[], path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const p = index(path, i);
    if (!c.type) errs.push(required(child(p, 'type')));
    if (!c.status) errs.push(required(child(p, 'status')));
    else if (!CONDITION_STATUSES.includes(c.status)) errs.push(notSupported(child(p, 'status'), c.status, CONDITION_STATUSES));
    else if (isFinalType(c.type) && c.status !== 'True') {
      errs.push(invalid(child(p, 'status'), c.status, `${c.type} condition may only be set to True`));
    }
    if (c.type && seen.has(c.type)) errs.push(duplicate(child(p, 'type'), c.type));
    seen.add(c.type);
  });
  if (seen.has('Approved') && seen.has('Denied')) {
    errs.push(invalid(path, conditions, 'Approved and Denied conditions are mutually exclusive'));
  }
  return errs;
}

function isFinalType(type: string): boolean {
  return (FINAL_CONDITION_TYPES as readonly string[]).includes(type);
}

const ofType = (conditions: CsrCondition[], type: string) => conditions.filter((c) => c.type === type);

/**
 * Upstream's condition rules of an update: Approved, Denied and Failed conditions are never
 * removed; unless `approving`, Approved and Denied conditions are neither added nor changed.
 */
function validateConditionChanges(conditions: CsrCondition[], old: CsrCondition[], approving: boolean): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const type of FINAL_CONDITION_TYPES) {
    if (ofType(conditions, type).length < ofType(old, type).length) {
      errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${type}"`));
    }
  }
  if (approving) return errs;
  for (const type of APPROVAL_CONDITION_TYPES) {
    const before = ofType(old, type);
    const after = ofType(conditions, type);
    if (after.length > before.length) {
      errs.push(forbidden('status.conditions', `updates may not add a condition of type "${type}"`));
    } else if (after.length === before.length && !after.every((c, i) => sameValue(c, before[i]))) {
      errs.push(forbidden('status.conditions', `updates may not modify a condition of type "${type}"`));
    }
  }
  return errs;
}

const SPEC_FIELDS = ['request', 'signerName', 'expirationSeconds', 'usages', 'username', 'uid', 'groups', 'extra'] as const;

function validateSpecUnchanged(spec: CsrSpec, old: CsrSpec): FieldErrorList {
  return SPEC_FIELDS.flatMap((f) => validateImmutableField(spec[f], old[f], child('spec', f), sameValue));
}

/** JSON equality that ignores key order and treats absent, null and empty values alike. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (v === undefined || v === null || v === '') return 'null';
  if (Array.isArray(v)) return v.length ? `[${v.map(canonical).join(',')}]` : 'null';
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    if (!keys.length) return 'null';
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

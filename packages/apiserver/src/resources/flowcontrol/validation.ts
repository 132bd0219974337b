import {
  child,
  duplicate,
  FLOWCONTROL,
  flowControlBootstrap,
  forbidden,
  index,
  invalid,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  notSupported,
  required,
  semanticallyEqual,
  type FieldErrorList,
  type FlowControlCondition,
  type FlowSchema,
  type FlowSchemaSpec,
  type FlowSubject,
  type NonResourcePolicyRule,
  type PolicyRulesWithSubjects,
  type PriorityLevelConfiguration,
  type PriorityLevelConfigurationSpec,
  type QueuingConfiguration,
  type ResourcePolicyRule,
} from '@cluster/apimachinery';
import { requiredEntropyBits, MAX_HASH_BITS } from '../../flowcontrol/shuffle-sharding.js';

const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const LEVEL_TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSES = ['Queue', 'Reject'];
const MAX_QUEUES = 10_000_000;
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const hasWildcard = (list: readonly string[]) => list.includes(FLOWCONTROL.all);

/** Upstream's rule for a list of verbs: one '*' alone, or only supported verbs. */
function validateVerbs(verbs: readonly string[] | undefined, path: string): FieldErrorList {
  const v = verbs ?? [];
  if (v.length === 0) return [required(child(path, 'verbs'), 'verbs must contain at least one value')];
  if (hasWildcard(v)) return v.length > 1 ? [invalid(child(path, 'verbs'), v, "if '*' is present, must not specify other verbs")] : [];
  return v.every((x) => VERBS.includes(x)) ? [] : [notSupported(child(path, 'verbs'), v, VERBS)];
}

/** A non-resource URL: '/', or a slash-led path without spaces or '//' whose only '*' is a final '/*'. */
export function validateNonResourceURLPath(path: string, field: string): FieldErrorList {
  if (path === '') return [invalid(field, path, 'must not be empty')];
  if (path === '/') return [];
  if (!path.startsWith('/')) return [invalid(field, path, 'must start with slash')];
  if (path.includes(' ')) return [invalid(field, path, 'must not contain white-space')];
  if (path.includes('//')) return [invalid(field, path, 'must not contain double slash')];
  const stars = path.split('*').length - 1;
  if (stars > 1 || (stars === 1 && !path.endsWith('/*'))) return [invalid(field, path, 'wildcard can only do suffix matching')];
  return [];
}

function validateSubject(s: FlowSubject, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const others = (allowed: 'user' | 'group' | 'serviceAccount') => {
    if (allowed !== 'serviceAccount' && s.serviceAccount) errs.push(forbidden(child(path, 'serviceAccount'), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"));
    if (allowed !== 'user' && s.user) errs.push(forbidden(child(path, 'user'), "user is forbidden when subject kind is not 'User'"));
    if (allowed !== 'group' && s.group) errs.push(forbidden(child(path, 'group'), "group is forbidden when subject kind is not 'Group'"));
  };
  switch (s.kind) {
    case 'ServiceAccount': {
      const p = child(path, 'serviceAccount');
      const sa = s.serviceAccount;
      if (!sa) errs.push(required(p, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = sa.name ?? '';
        if (name === '') errs.push(required(child(p, 'name')));
        else if (name !== FLOWCONTROL.all) for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(child(p, 'name'), name, m));
        const ns = sa.namespace ?? '';
        if (ns === '') errs.push(required(child(p, 'namespace'), 'must specify namespace for service account'));
        else for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(child(p, 'namespace'), ns, m));
      }
      others('serviceAccount');
      break;
    }
    case 'User':
    case 'Group': {
      const which = s.kind === 'User' ? 'user' : 'group';
      const p = child(path, which);
      const subject = s[which];
      if (!subject) errs.push(required(p, `${which} is required when subject kind is '${s.kind}'`));
      else if (!subject.name) errs.push(required(child(p, 'name')));
      others(which);
      break;
    }
    default:
      errs.push(notSupported(child(path, 'kind'), s.kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

function validateResourceRule(r: ResourcePolicyRule, path: string): FieldErrorList {
  const errs = validateVerbs(r.verbs, path);
  const groups = r.apiGroups ?? [];
  if (groups.length === 0) errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(child(path, 'apiGroups'), groups, "if '*' is present, must not specify other api groups"));
  const resources = r.resources ?? [];
  if (resources.length === 0) errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && hasWildcard(resources)) errs.push(invalid(child(path, 'resources'), resources, "if '*' is present, must not specify other resources"));
  const namespaces = r.namespaces ?? [];
  if (namespaces.length === 0 && !r.clusterScope) {
    errs.push(required(child(path, 'namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errs.push(invalid(child(path, 'namespaces'), namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(index(child(path, 'namespaces'), i), ns, NS_INTRO + m));
    });
  }
  return errs;
}

function validateNonResourceRule(r: NonResourcePolicyRule, path: string): FieldErrorList {
  const errs = validateVerbs(r.verbs, path);
  const urls = r.nonResourceURLs ?? [];
  const p = child(path, 'nonResourceURLs');
  if (urls.length === 0) errs.push(required(p, 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errs.push(invalid(p, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else urls.forEach((u, i) => errs.push(...validateNonResourceURLPath(u, index(p, i))));
  return errs;
}

function validateRule(rule: PolicyRulesWithSubjects, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const subjects = rule.subjects ?? [];
  if (subjects.length === 0) errs.push(required(child(path, 'subjects'), 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(s, index(child(path, 'subjects'), i))));
  const rr = rule.resourceRules ?? [];
  const nr = rule.nonResourceRules ?? [];
  if (rr.length === 0 && nr.length === 0) errs.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  rr.forEach((r, i) => errs.push(...validateResourceRule(r, index(child(path, 'resourceRules'), i))));
  nr.forEach((r, i) => errs.push(...validateNonResourceRule(r, index(child(path, 'nonResourceRules'), i))));
  return errs;
}

/** Upstream's ValidateFlowSchemaSpec. */
export function validateFlowSchemaSpec(name: string, spec: FlowSchemaSpec, path = 'spec'): FieldErrorList {
  const errs: FieldErrorList = [];
  const mp = spec.matchingPrecedence ?? 0;
  if (mp <= 0) errs.push(invalid(child(path, 'matchingPrecedence'), mp, 'must be a positive value'));
  if (mp > FLOWCONTROL.maxMatchingPrecedence) errs.push(invalid(child(path, 'matchingPrecedence'), mp, `must not be greater than ${FLOWCONTROL.maxMatchingPrecedence}`));
  if (mp === 1 && name !== FLOWCONTROL.exempt) errs.push(invalid(child(path, 'matchingPrecedence'), mp, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const dm = spec.distinguisherMethod;
  if (dm && !DISTINGUISHERS.includes(dm.type ?? '')) errs.push(notSupported(child(path, 'distinguisherMethod', 'type'), dm, DISTINGUISHERS));
  const plName = spec.priorityLevelConfiguration?.name ?? '';
  const plPath = child(path, 'priorityLevelConfiguration', 'name');
  if (plName === '') errs.push(required(plPath, 'must reference a priority level'));
  else for (const m of nameIsDNSSubdomain(plName, false)) errs.push(invalid(plPath, plName, m));
  (spec.rules ?? []).forEach((r, i) => errs.push(...validateRule(r, index(child(path, 'rules'), i))));
  return errs;
}

/** Conditions: each has a type, and no type appears twice. */
export function validateConditions(conditions: readonly FlowControlCondition[] | undefined, path = 'status'): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const p = index(child(path, 'conditions'), i);
    const t = c.type ?? '';
    if (seen.has(t)) errs.push(duplicate(child(p, 'type'), t));
    seen.add(t);
    if (t === '') errs.push(required(child(p, 'type'), 'must not be empty'));
  });
  return errs;
}

/** The spec of a mandatory object (exempt, catch-all) must equal the fixed value. */
function mandatorySpecErrors(kind: 'fs' | 'pl', name: string, spec: unknown, apiDomain: string): FieldErrorList {
  const b = flowControlBootstrap(apiDomain);
  const list: Array<{ metadata: { name?: string }; spec?: unknown }> = kind === 'fs' ? b.mandatoryFlowSchemas : b.mandatoryPriorityLevels;
  const fixed = list.find((o) => o.metadata.name === name);
  if (!fixed || semanticallyEqual(spec, fixed.spec)) return [];
  return [invalid('spec', spec, `spec of '${name}' must equal the fixed value`)];
}

/** Upstream's ValidateFlowSchema, without the metadata checks. */
export function validateFlowSchemaFields(fs: FlowSchema, apiDomain: string): FieldErrorList {
  const name = fs.metadata.name ?? '';
  return [...validateFlowSchemaSpec(name, fs.spec ?? {}), ...mandatorySpecErrors('fs', name, fs.spec, apiDomain), ...validateConditions(fs.status?.conditions)];
}

function validateQueuing(q: QueuingConfiguration, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const qll = q.queueLengthLimit ?? 0;
  const queues = q.queues ?? 0;
  const hand = q.handSize ?? 0;
  if (qll <= 0) errs.push(invalid(child(path, 'queueLengthLimit'), qll, 'must be positive'));
  if (queues <= 0) errs.push(invalid(child(path, 'queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(invalid(child(path, 'queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  if (hand <= 0) errs.push(invalid(child(path, 'handSize'), hand, 'must be positive'));
  else if (hand > queues) errs.push(invalid(child(path, 'handSize'), hand, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, hand) > MAX_HASH_BITS) {
    errs.push(invalid(child(path, 'handSize'), hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validatePercent(value: number | null | undefined, path: string): FieldErrorList {
  if (value === undefined || value === null) return [];
  return value < 0 || value > 100 ? [invalid(path, value, 'must be between 0 and 100, inclusive')] : [];
}

/** Upstream's ValidatePriorityLevelConfigurationSpec. */
export function validatePriorityLevelSpec(spec: PriorityLevelConfigurationSpec, name: string, path = 'spec'): FieldErrorList {
  const errs: FieldErrorList = [];
  const type = spec.type ?? '';
  if ((name === FLOWCONTROL.exempt) !== (type === 'Exempt')) errs.push(invalid(child(path, 'type'), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (type) {
    case 'Exempt':
      if (spec.limited) errs.push(forbidden(child(path, 'limited'), 'must be nil if the type is not Limited'));
      break;
    case 'Limited': {
      const p = child(path, 'limited');
      const l = spec.limited;
      if (spec.exempt) errs.push(forbidden(child(path, 'exempt'), 'must be nil if the type is Limited'));
      if (!l) {
        errs.push(required(p, 'must not be empty when type is Limited'));
        break;
      }
      const acs = l.assuredConcurrencyShares ?? 0;
      if (acs <= 0) errs.push(invalid(child(p, 'assuredConcurrencyShares'), acs, 'must be positive'));
      errs.push(...validatePercent(l.lendablePercent, child(p, 'lendablePercent')));
      if (l.borrowingLimitPercent !== undefined && l.borrowingLimitPercent !== null && l.borrowingLimitPercent < 0) {
        errs.push(invalid(child(p, 'borrowingLimitPercent'), l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
      }
      const lr = l.limitResponse ?? {};
      const lrp = child(p, 'limitResponse');
      if (lr.type === 'Reject') {
        if (lr.queuing) errs.push(forbidden(child(lrp, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
      } else if (lr.type === 'Queue') {
        if (!lr.queuing) errs.push(required(child(lrp, 'queuing'), 'must not be empty if limited.limitResponse.type is Limited'));
        else errs.push(...validateQueuing(lr.queuing, child(lrp, 'queuing')));
      } else errs.push(notSupported(child(lrp, 'type'), lr.type ?? '', LIMIT_RESPONSES));
      break;
    }
    default:
      errs.push(notSupported(child(path, 'type'), type, LEVEL_TYPES));
  }
  return errs;
}

/** Upstream's ValidatePriorityLevelConfiguration, without the metadata checks. */
export function validatePriorityLevelFields(pl: PriorityLevelConfiguration, apiDomain: string): FieldErrorList {
  const name = pl.metadata.name ?? '';
  return [...validatePriorityLevelSpec(pl.spec ?? {}, name), ...mandatorySpecErrors('pl', name, pl.spec, apiDomain), ...validateConditions(pl.status?.conditions)];
}

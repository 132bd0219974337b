import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  isDNS1123Label,
  notFoundField,
  notSupported,
  required,
  validateLabels,
  validateAnnotations,
  type FieldErrorList,
} from '@cluster/apimachinery';
import { VOLUME_SOURCES } from './defaults.js';
import { validateSysctls } from './sysctls.js';
import type { Container, PodSpec, PodTemplateSpec, Volume } from './types.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TERMINATION_MESSAGE_POLICIES = ['FallbackToLogsOnError', 'File'];
const PORT_RANGE_MSG = 'must be between 1 and 65535, inclusive';

/** Upstream's IsValidPortName (IANA_SVC_NAME): messages of a bad port name. */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

function validPort(port: unknown): boolean {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
}

export interface PodSpecOptions {
  /** Pods need an image; workload templates may leave it for config tools to fill. */
  requireImage: boolean;
}

function validateContainer(c: Container, path: string, volumes: Set<string>, opts: PodSpecOptions): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = c.name ?? '';
  if (!name) errs.push(required(child(path, 'name')));
  else for (const msg of isDNS1123Label(name)) errs.push(invalid(child(path, 'name'), name, msg));
  if (opts.requireImage && !c.image) errs.push(required(child(path, 'image')));
  else if (c.image !== undefined && c.image.trim() !== c.image) {
    errs.push(invalid(child(path, 'image'), c.image, 'must not have leading or trailing whitespace'));
  }
  if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy)) {
    errs.push(notSupported(child(path, 'imagePullPolicy'), c.imagePullPolicy, PULL_POLICIES));
  }
  if (c.terminationMessagePolicy !== undefined && !TERMINATION_MESSAGE_POLICIES.includes(c.terminationMessagePolicy)) {
    errs.push(notSupported(child(path, 'terminationMessagePolicy'), c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES));
  }
  const portNames = new Set<string>();
  (c.ports ?? []).forEach((p, i) => {
    const pp = index(child(path, 'ports'), i);
    if (p.name !== undefined && p.name !== '') {
      for (const msg of portNameErrors(p.name)) errs.push(invalid(child(pp, 'name'), p.name, msg));
      if (portNames.has(p.name)) errs.push(duplicate(child(pp, 'name'), p.name));
      portNames.add(p.name);
    }
    if (p.containerPort === undefined || p.containerPort === 0) errs.push(required(child(pp, 'containerPort')));
    else if (!validPort(p.containerPort)) errs.push(invalid(child(pp, 'containerPort'), p.containerPort, PORT_RANGE_MSG));
    if (p.hostPort !== undefined && p.hostPort !== 0 && !validPort(p.hostPort)) {
      errs.push(invalid(child(pp, 'hostPort'), p.hostPort, PORT_RANGE_MSG));
    }
    if (p.protocol === undefined || p.protocol === '') errs.push(required(child(pp, 'protocol')));
    else if (!PROTOCOLS.includes(p.protocol)) errs.push(notSupported(child(pp, 'protocol'), p.protocol, PROTOCOLS));
  });
  (c.env ?? []).forEach((e, i) => {
    if (!e.name) errs.push(required(child(index(child(path, 'env'), i), 'name')));
  });
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const mp = index(child(path, 'volumeMounts'), i);
    if (!m.name) errs.push(required(child(mp, 'name')));
    else if (!volumes.has(m.name)) errs.push(notFoundField(child(mp, 'name'), m.name));
    if (!m.mountPath) errs.push(required(child(mp, 'mountPath')));
    else if (mountPaths.has(m.mountPath)) errs.push(invalid(child(mp, 'mountPath'), m.mountPath, 'must be unique'));
    else mountPaths.add(m.mountPath);
  });
  return errs;
}

function validateVolumes(vols: Volume[], path: string): { errs: FieldErrorList; names: Set<string> } {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  vols.forEach((v, i) => {
    const vp = index(path, i);
    const name = v.name ?? '';
    if (!name) errs.push(required(child(vp, 'name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(child(vp, 'name'), name, msg));
      if (names.has(name)) errs.push(duplicate(child(vp, 'name'), name));
      names.add(name);
    }
    const sources = VOLUME_SOURCES.filter((s) => v[s] !== undefined && v[s] !== null);
    if (sources.length > 1) errs.push(forbidden(child(vp, sources[1]!), 'may not specify more than 1 volume type'));
  });
  return { errs, names };
}

/** Upstream's main ValidatePodSpec rules (names, images, ports, volumes, policies). */
export function validatePodSpec(spec: PodSpec | undefined, path: string, opts: PodSpecOptions): FieldErrorList {
  const s = spec ?? {};
  const { errs, names: volumes } = validateVolumes(s.volumes ?? [], child(path, 'volumes'));
  const containers = s.containers ?? [];
  if (containers.length === 0) errs.push(required(child(path, 'containers')));
  const seen = new Set<string>();
  const checkGroup = (list: Container[], field: string) =>
    list.forEach((c, i) => {
      const cp = index(child(path, field), i);
      errs.push(...validateContainer(c, cp, volumes, opts));
      if (c.name) {
        if (seen.has(c.name)) errs.push(duplicate(child(cp, 'name'), c.name));
        seen.add(c.name);
      }
    });
  checkGroup(s.initContainers ?? [], 'initContainers');
  checkGroup(containers, 'containers');
  checkGroup(s.ephemeralContainers ?? [], 'ephemeralContainers');
  if (s.restartPolicy === undefined || s.restartPolicy === '') errs.push(required(child(path, 'restartPolicy')));
  else if (!RESTART_POLICIES.includes(s.restartPolicy)) errs.push(notSupported(child(path, 'restartPolicy'), s.restartPolicy, RESTART_POLICIES));
  if (s.dnsPolicy !== undefined && !DNS_POLICIES.includes(s.dnsPolicy)) errs.push(notSupported(child(path, 'dnsPolicy'), s.dnsPolicy, DNS_POLICIES));
  errs.push(...validateSysctls(s.securityContext?.['sysctls'], child(path, 'securityContext', 'sysctls')));
  if (s.terminationGracePeriodSeconds !== undefined && s.terminationGracePeriodSeconds < 0) {
    errs.push(invalid(child(path, 'terminationGracePeriodSeconds'), s.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  if (s.activeDeadlineSeconds !== undefined && (s.activeDeadlineSeconds <= 0 || s.activeDeadlineSeconds > 2147483647)) {
    errs.push(invalid(child(path, 'activeDeadlineSeconds'), s.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  }
  if (s.nodeName) for (const msg of isDNS1123SubdomainLike(s.nodeName)) errs.push(invalid(child(path, 'nodeName'), s.nodeName, msg));
  return errs;
}

function isDNS1123SubdomainLike(value: string): string[] {
  return value.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value)
    ? []
    : ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"];
}

/**
 * A workload's pod template (upstream's ValidatePodTemplateSpec plus the controllers' rule that
 * only restartPolicy Always makes sense for pods that are meant to keep running).
 */
export function validatePodTemplateSpec(
  template: PodTemplateSpec | undefined,
  path: string,
  opts: { requireAlwaysRestart: boolean },
): FieldErrorList {
  if (!template) return [required(path)];
  const errs: FieldErrorList = [];
  const meta = template.metadata ?? {};
  errs.push(...validateLabels(meta.labels, child(path, 'metadata', 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(path, 'metadata', 'annotations')));
  const specPath = child(path, 'spec');
  errs.push(...validatePodSpec(template.spec, specPath, { requireImage: false }));
  const restart = template.spec?.restartPolicy;
  if (opts.requireAlwaysRestart && restart !== undefined && restart !== '' && restart !== 'Always') {
    errs.push(notSupported(child(specPath, 'restartPolicy'), restart, ['Always']));
  }
  return errs;
}

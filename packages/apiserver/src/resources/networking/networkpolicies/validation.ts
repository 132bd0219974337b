import { child, forbidden, index, invalid, notSupported, required, type FieldErrorList } from '@cluster/apimachinery';
import { validateLabelSelector } from '../../apps/workload/selector.js';
import { portNameErrors } from '../../core/pod-spec/validation.js';
import { isStrictSubset, parseCidr } from '../cidr.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from '../types.js';
import { portNumErrors } from '../validation.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const POLICY_TYPES = ['Egress', 'Ingress'];

/** Upstream's ValidateNetworkPolicyPort: a protocol, a port number or name, and an endPort only after a numeric port. */
export function validateNetworkPolicyPort(port: NetworkPolicyPort, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(path, 'protocol'), port.protocol, ['TCP', 'UDP', 'SCTP']));
  const p = port.port;
  if (p === undefined) {
    if (port.endPort !== undefined) errs.push(invalid(child(path, 'endPort'), port.endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof p === 'number') {
    for (const m of portNumErrors(p)) errs.push(invalid(child(path, 'port'), p, m));
    if (port.endPort !== undefined) {
      if (port.endPort < p) errs.push(invalid(child(path, 'endPort'), p, 'must be greater than or equal to `port`'));
      for (const m of portNumErrors(port.endPort)) errs.push(invalid(child(path, 'endPort'), port.endPort, m));
    }
  } else {
    if (port.endPort !== undefined) errs.push(invalid(child(path, 'endPort'), port.endPort, 'may not be specified when `port` is non-numeric'));
    for (const m of portNameErrors(p)) errs.push(invalid(child(path, 'port'), p, m));
  }
  return errs;
}

function validateIPBlock(block: NonNullable<NetworkPolicyPeer['ipBlock']>, path: string): FieldErrorList {
  const cidrText = block.cidr ?? '';
  if (cidrText === '') return [required(child(path, 'cidr'))];
  const cidr = parseCidr(cidrText);
  if (!cidr) return [invalid(child(path, 'cidr'), cidrText, 'not a valid CIDR')];
  const errs: FieldErrorList = [];
  for (const [i, text] of (block.except ?? []).entries()) {
    const ep = index(child(path, 'except'), i);
    const except = parseCidr(text);
    if (!except) return [...errs, invalid(ep, text, 'not a valid CIDR')];
    if (!isStrictSubset(cidr, except)) errs.push(invalid(ep, text, 'must be a strict subset of `cidr`'));
  }
  return errs;
}

/** Upstream's ValidateNetworkPolicyPeer: at least one selector or an ipBlock, and an ipBlock alone. */
export function validateNetworkPolicyPeer(peer: NetworkPolicyPeer, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let peers = 0;
  if (peer.podSelector) {
    peers++;
    errs.push(...validateLabelSelector(peer.podSelector, child(path, 'podSelector')));
  }
  if (peer.namespaceSelector) {
    peers++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, child(path, 'namespaceSelector')));
  }
  if (peer.ipBlock) {
    peers++;
    errs.push(...validateIPBlock(peer.ipBlock, child(path, 'ipBlock')));
  }
  if (peers === 0) errs.push(required(path, 'must specify a peer'));
  else if (peers > 1 && peer.ipBlock) errs.push(forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Upstream's ValidateNetworkPolicySpec. */
export function validateNetworkPolicySpec(np: NetworkPolicy): FieldErrorList {
  const spec = np.spec ?? {};
  const errs: FieldErrorList = [...validateLabelSelector(spec.podSelector, 'spec.podSelector')];
  for (const [dir, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    (spec[dir] ?? []).forEach((rule, i) => {
      const rp = index(child('spec', dir), i);
      (rule.ports ?? []).forEach((p, j) => errs.push(...validateNetworkPolicyPort(p, index(child(rp, 'ports'), j))));
      const peers = (rule as Record<string, NetworkPolicyPeer[] | undefined>)[peersKey] ?? [];
      peers.forEach((p, j) => errs.push(...validateNetworkPolicyPeer(p, index(child(rp, peersKey), j))));
    });
  }
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) return [...errs, invalid('spec.policyTypes', types, 'may not specify more than two policyTypes')];
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(notSupported(index('spec.policyTypes', i), t, ['Ingress', 'Egress']));
  });
  return errs;
}

import type { ApiService } from '../resources/apiregistration/types.js';
import { LOCAL_MESSAGE, localAvailableCondition, planLocalApiServices } from './local-apiservices.js';
import { localApiService } from './priorities.js';

const D = 'k8s.io';
const label = 'kube-aggregator.k8s.io/automanaged';
const served = [
  { group: '', version: 'v1', custom: false },
  { group: 'apps', version: 'v1', custom: false },
  { group: `rbac.authorization.${D}`, version: 'v1', custom: false },
  { group: 'toys.example.io', version: 'v1', custom: true },
];
const names = (svcs: ApiService[]) => svcs.map((s) => s.metadata.name);

describe('planLocalApiServices', () => {
  test('creates one APIService per served group version with upstream priorities', () => {
    const plan = planLocalApiServices(served, [], D);
    expect(names(plan.create)).toEqual(['v1.', 'v1.apps', `v1.rbac.authorization.${D}`, 'v1.toys.example.io']);
    expect(plan.create.map((s) => [s.spec?.groupPriorityMinimum, s.spec?.versionPriority, s.metadata.labels?.[label]])).toEqual([
      [18000, 1, 'onstart'],
      [17800, 15, 'onstart'],
      [17000, 15, 'onstart'],
      [1000, 100, 'true'],
    ]);
    expect(plan.update).toEqual([]);
    expect(plan.delete).toEqual([]);
  });

  test('restores a drifted automanaged spec, leaves a hand-made one alone, deletes automanaged ones no longer served', () => {
    const drifted = { ...localApiService(served[1]!, D), spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 } };
    const handMade: ApiService = { metadata: { name: 'v1.' }, spec: { group: '', version: 'v1', groupPriorityMinimum: 5, versionPriority: 5, service: { namespace: 'x', name: 'y' } } };
    const gone = localApiService({ group: 'old.example.io', version: 'v1', custom: true }, D);
    const userOwned: ApiService = { metadata: { name: 'v1.metrics.io' }, spec: { group: 'metrics.io', version: 'v1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'm', name: 'm' } } };
    const plan = planLocalApiServices(served, [drifted, handMade, gone, userOwned, localApiService(served[2]!, D), localApiService(served[3]!, D)], D);
    expect(plan.create).toEqual([]);
    expect(names(plan.update)).toEqual(['v1.apps']);
    expect(plan.update[0]!.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    expect(names(plan.delete)).toEqual(['v1.old.example.io']);
  });

  test('after start-up, built-in (onstart) ones are neither corrected nor removed; custom resource ones still are', () => {
    const drifted = { ...localApiService(served[1]!, D), spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 } };
    const newerReplicas = localApiService({ group: 'storage.k8s.io', version: 'v1', custom: false }, D);
    const goneCrd = localApiService({ group: 'old.example.io', version: 'v1', custom: true }, D);
    const plan = planLocalApiServices(served, [drifted, newerReplicas, goneCrd], D, false);
    expect(plan.update).toEqual([]);
    expect(names(plan.delete)).toEqual(['v1.old.example.io']);
    expect(names(plan.create)).toEqual(['v1.', `v1.rbac.authorization.${D}`, 'v1.toys.example.io']);
  });
});

describe('localAvailableCondition', () => {
  test('a local APIService is Available (Local); one with a service is not judged here', () => {
    const svc = localApiService(served[0]!, D);
    expect(localAvailableCondition(svc, 'T')).toEqual({ type: 'Available', status: 'True', lastTransitionTime: 'T', reason: 'Local', message: LOCAL_MESSAGE });
    svc.status = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: 'T0', reason: 'Local', message: LOCAL_MESSAGE }] };
    expect(localAvailableCondition(svc, 'T')).toBeUndefined();
    expect(localAvailableCondition({ ...svc, spec: { ...svc.spec, service: { namespace: 'a', name: 'b' } } }, 'T')).toBeUndefined();
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeProtobufObject } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';

// pods/eviction (upstream's EvictionREST, v1.24): the upstream e2e DisruptionController eviction
// specs ("should block an eviction until the PDB is updated to allow it", "evictions: ...") POST
// Evictions and expect 429 with a DisruptionBudget cause while the budget allows none.
const tokenFile = join(mkdtempSync(join(tmpdir(), 'eviction-test-')), 'tokens.csv');
writeFileSync(tokenFile, 'nobody-token,nobody,u1\nevictor-token,evictor,u2\n');
const ts = useTestServer(['--controllers=-namespace', '--authorization-mode=RBAC', '--token-auth-file', tokenFile]);
const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const merge = { 'Content-Type': 'application/merge-patch+json' };

async function runningPod(name: string, labels: Record<string, string> = { app: 'guarded' }): Promise<void> {
  const created = await ts().request('POST', PODS, { body: { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'pause' }] } } });
  expect(created.status).toBe(201);
  const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const status = await ts().request('PATCH', `${PODS}/${name}/status`, {
    headers: merge,
    body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: t }] } },
  });
  expect(status.status).toBe(200);
}

const evict = (name: string, body: Record<string, unknown> = {}, query = '') =>
  ts().request('POST', `${PODS}/${name}/eviction${query}`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...body } });

async function setBudgetStatus(name: string, status: Record<string, unknown>): Promise<void> {
  const cur = (await ts().request('GET', `${PDBS}/${name}`)).json;
  const res = await ts().request('PUT', `${PDBS}/${name}/status`, { body: { ...cur, status: { observedGeneration: cur.metadata.generation, ...status } } });
  expect(res.status).toBe(200);
}

const exists = async (name: string) => (await ts().request('GET', `${PODS}/${name}`)).status === 200;

describe('pods/eviction', () => {
  beforeAll(async () => {
    const pdb = await ts().request('POST', PDBS, { body: { metadata: { name: 'budget' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } } });
    expect(pdb.status).toBe(201);
  });

  test('is listed in discovery as policy/v1 Eviction, create only', async () => {
    const res = await ts().request('GET', '/api/v1');
    const r = res.json.resources.find((x: { name: string }) => x.name === 'pods/eviction');
    expect(r).toMatchObject({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'], namespaced: true });
  });

  test('a pending pod is deleted without a budget check', async () => {
    expect((await ts().request('POST', PODS, { body: { metadata: { name: 'pending', labels: { app: 'guarded' } }, spec: { containers: [{ name: 'c', image: 'pause' }] } } })).status).toBe(201);
    const res = await evict('pending');
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    expect(await exists('pending')).toBe(false);
  });

  test('a budget its controller has not processed yet refuses with 429', async () => {
    await runningPod('fresh');
    const res = await evict('fresh');
    expect(res.status).toBe(429);
    expect(res.json.reason).toBe('TooManyRequests');
    expect(res.json.details.causes).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget budget is still being processed by the server.' }]);
    expect(await exists('fresh')).toBe(true);
  });

  test('no disruption allowed: 429 with the DisruptionBudget cause, the pod stays', async () => {
    await setBudgetStatus('budget', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const res = await evict('fresh');
    expect(res.status).toBe(429);
    expect(res.json.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(res.json.details.causes).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget budget needs 1 healthy pods and has 1 currently' }]);
    expect(await exists('fresh')).toBe(true);
  });

  test('dry run charges nothing and deletes nothing', async () => {
    await setBudgetStatus('budget', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    const res = await evict('fresh', {}, '?dryRun=All');
    expect(res.status).toBe(201);
    expect(await exists('fresh')).toBe(true);
    expect((await ts().request('GET', `${PDBS}/budget`)).json.status.disruptionsAllowed).toBe(1);
  });

  test('an allowed disruption is charged to the budget and the pod deleted', async () => {
    const res = await evict('fresh');
    expect(res.status).toBe(201);
    expect(await exists('fresh')).toBe(false);
    const status = (await ts().request('GET', `${PDBS}/budget`)).json.status;
    expect(status.disruptionsAllowed).toBe(0);
    expect(Object.keys(status.disruptedPods)).toEqual(['fresh']);
    expect(status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);
  });

  test('a pod no budget selects is deleted', async () => {
    await runningPod('free', { app: 'free' });
    expect((await evict('free')).status).toBe(201);
    expect(await exists('free')).toBe(false);
  });

  test('two budgets selecting the pod: a 500 Status in the answer, the pod stays', async () => {
    expect((await ts().request('POST', PDBS, { body: { metadata: { name: 'second' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'guarded' } } } } })).status).toBe(201);
    await runningPod('twice');
    const res = await evict('twice');
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' });
    expect(await exists('twice')).toBe(true);
  });

  test('authorization: create on pods/eviction is needed (403 without), and enough without delete on pods', async () => {
    await runningPod('authz', { app: 'authz' });
    const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'authz' } };
    const denied = await ts().request('POST', `${PODS}/authz/eviction`, { body, token: 'nobody-token' });
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe('pods "authz" is forbidden: User "nobody" cannot create resource "pods/eviction" in API group "" in the namespace "default"');
    expect(await exists('authz')).toBe(true);
    const G = 'rbac.authorization.k8s.io';
    const role = { metadata: { name: 'evict' }, rules: [{ apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] }] };
    expect((await ts().request('POST', `/apis/${G}/v1/namespaces/default/roles`, { body: role })).status).toBe(201);
    const rb = { metadata: { name: 'evict' }, roleRef: { apiGroup: G, kind: 'Role', name: 'evict' }, subjects: [{ kind: 'User', apiGroup: G, name: 'evictor' }] };
    expect((await ts().request('POST', `/apis/${G}/v1/namespaces/default/rolebindings`, { body: rb })).status).toBe(201);
    let res = await ts().request('POST', `${PODS}/authz/eviction`, { body, token: 'evictor-token' });
    for (let i = 0; i < 100 && res.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await ts().request('POST', `${PODS}/authz/eviction`, { body, token: 'evictor-token' });
    }
    expect(res.status).toBe(201);
    expect(await exists('authz')).toBe(false);
    // The grant is for evictions only: a plain delete is still refused.
    await runningPod('authz2', { app: 'authz' });
    expect((await ts().request('DELETE', `${PODS}/authz2`, { token: 'evictor-token' })).status).toBe(403);
  });

  test('bad requests: another name in the body (400), a missing pod (404)', async () => {
    const res = await ts().request('POST', `${PODS}/twice/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } } });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('name in URL does not match name in Eviction object');
    expect((await evict('missing')).status).toBe(404);
  });

  test('a policy/v1beta1 Eviction is accepted too (JSON and Protobuf), as upstream\'s AcceptsGroupVersion; other versions are 400', async () => {
    await runningPod('beta', { app: 'beta' });
    const res = await ts().request('POST', `${PODS}/beta/eviction`, { body: { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'beta' } } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(await exists('beta')).toBe(false);
    await runningPod('beta-pb', { app: 'beta' });
    const PB = 'application/vnd.kubernetes.protobuf';
    const body = Buffer.from(encodeProtobufObject({ apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'beta-pb' }, deleteOptions: { gracePeriodSeconds: 0 } }));
    const pb = await ts().request('POST', `${PODS}/beta-pb/eviction`, { body, headers: { 'Content-Type': PB, Accept: PB } });
    expect(pb.status).toBe(201);
    expect(await exists('beta-pb')).toBe(false);
    await runningPod('beta-bad', { app: 'beta' });
    const bad = await ts().request('POST', `${PODS}/beta-bad/eviction`, { body: { apiVersion: 'policy/v2', kind: 'Eviction', metadata: { name: 'beta-bad' } } });
    expect(bad.status).toBe(400);
    expect(bad.json.reason).toBe('BadRequest');
    expect(await exists('beta-bad')).toBe(true);
  });

  test('deleteOptions upstream\'s ValidateDeleteOptions refuses: 422 Invalid on DeleteOptions from the pod\'s delete, after the budget\'s 429', async () => {
    await runningPod('badopts', { app: 'free' });
    for (const deleteOptions of [{ dryRun: ['Foo'] }, { propagationPolicy: 'Sideways' }, { orphanDependents: true, propagationPolicy: 'Orphan' }]) {
      const res = await evict('badopts', { deleteOptions });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({ reason: 'Invalid', details: { group: 'meta.k8s.io', kind: 'DeleteOptions' } });
    }
    expect(await exists('badopts')).toBe(true);
    // upstream's propagateDryRun: the URL's dryRun and another list in the body are a 500.
    const mismatch = await evict('badopts', { deleteOptions: { dryRun: ['Foo'] } }, '?dryRun=All');
    expect(mismatch.status).toBe(500);
    expect(mismatch.json.message).toBe('Internal error occurred: Non-matching dry-run options in request and content: [All] and [Foo]');
    const pdb = await ts().request('POST', PDBS, { body: { metadata: { name: 'opts-budget' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'opts' } } } } });
    expect(pdb.status).toBe(201);
    await runningPod('badopts-guarded', { app: 'opts' });
    await setBudgetStatus('opts-budget', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const blocked = await evict('badopts-guarded', { deleteOptions: { propagationPolicy: 'Sideways' } });
    expect(blocked.status).toBe(429);
    expect(await exists('badopts-guarded')).toBe(true);
  });
});

import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectl, startServerProcess, type KubectlResult, type ServerProcess } from './support/server-process.js';

// The Node authorizer and NodeRestriction for the storage kinds, through kubectl with node client
// certificates signed by the cluster CA (as a joined node's are): a node reads the claims its pods
// use, the PVs bound to them and their mount secrets, its own VolumeAttachments and CSINode, and
// nothing of another node's; forged identities get none of it; the graph follows pods and
// attachments as they come and go.
let server: ServerProcess;
const env: Record<string, Record<string, string>> = {};

const ok = async (args: string[], as: Record<string, string> = {}): Promise<string> => {
  const r = await kubectl(server, args, as);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};
const forbidden = (r: KubectlResult) => r.code !== 0 && /Forbidden|forbidden/.test(r.stderr);

/** Retries `probe` (bounded in count and time) until it says done; the graph follows objects by watches. */
async function until(what: string, probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const start = Date.now();
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    if (Date.now() - start > ms) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A kubeconfig whose user is a client certificate with this subject, signed by the server's CA. */
async function certKubeconfig(label: string, subject: string): Promise<Record<string, string>> {
  const certs = join(server.dataDir, 'certs');
  const dir = server.dataDir;
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${label}.key`, '-out', `${label}.csr`, '-subj', subject);
  ssl('x509', '-req', '-in', `${label}.csr`, '-CA', join(certs, 'ca.crt'), '-CAkey', join(certs, 'ca.key'), '-set_serial', String(Date.now()), '-out', `${label}.crt`, '-days', '1');
  const file = join(dir, `${label}.kubeconfig`);
  await writeFile(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: c\n  cluster:\n    server: ${server.url}\n    certificate-authority: ${join(certs, 'ca.crt')}`,
      'users:',
      `- name: u\n  user:\n    client-certificate: ${join(dir, `${label}.crt`)}\n    client-key: ${join(dir, `${label}.key`)}`,
      'contexts:',
      '- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: default',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return { KUBECONFIG: file };
}

/** Creates (as admin) the objects given, from one JSON List file. */
async function create(label: string, items: unknown[]): Promise<void> {
  const file = join(server.dataDir, `${label}.json`);
  await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  await ok(['create', '-f', file]);
}

const pod = (name: string, nodeName: string, claim: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
});
const claim = (name: string) => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' },
});
const pv = (name: string, claimName: string, secret: string) => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: {
    capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '',
    claimRef: { namespace: 'default', name: claimName },
    csi: { driver: 'csi.example.com', volumeHandle: name, nodePublishSecretRef: { namespace: 'cred', name: secret }, controllerPublishSecretRef: { namespace: 'cred', name: 'controller' } },
  },
});
const attachment = (name: string, nodeName: string, pvName: string) => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name },
  spec: { attacher: 'csi.example.com', nodeName, source: { persistentVolumeName: pvName } },
});
const csiNode = (name: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [] } });

beforeAll(async () => {
  server = await startServerProcess(['--authorization-mode=Node,RBAC']);
  env.n1 = await certKubeconfig('n1', '/O=system:nodes/CN=system:node:n1');
  env.n2 = await certKubeconfig('n2', '/O=system:nodes/CN=system:node:n2');
  // Forged and odd identities, all signed by the same CA.
  env.noGroup = await certKubeconfig('no-group', '/CN=system:node:n1');
  env.noPrefix = await certKubeconfig('no-prefix', '/O=system:nodes/CN=n1');
  env.upper = await certKubeconfig('upper', '/O=system:nodes/CN=system:node:N1');
  env.empty = await certKubeconfig('empty', '/O=system:nodes/CN=system:node:');
  env.otherOrg = await certKubeconfig('other-org', '/O=system:node/CN=system:node:n1');
  env.suffix = await certKubeconfig('suffix', '/O=system:nodes/CN=system:node:n1.evil');
  await ok(['create', 'namespace', 'cred']);
  for (const s of ['publish-1', 'publish-2', 'controller']) await ok(['-n', 'cred', 'create', 'secret', 'generic', s, '--from-literal=k=v']);
  await create('storage', [
    claim('c1'), claim('c2'),
    pv('pv1', 'c1', 'publish-1'), pv('pv2', 'c2', 'publish-2'),
    pod('p1', 'n1', 'c1'), pod('p2', 'n2', 'c2'),
    attachment('va1', 'n1', 'pv1'), attachment('va2', 'n2', 'pv2'),
    csiNode('n2'),
    { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: {} },
    { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'runc' }, handler: 'runc' },
  ]);
  await until('n1 to reach its PV', async () => (await kubectl(server, ['get', 'pv', 'pv1', '-o', 'name'], env.n1)).code === 0);
}, 120_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

test('a node gets its pods\' claims, their PVs and mount secrets, and its attachments; not another node\'s', async () => {
  expect((await ok(['get', 'pvc', 'c1', '-o', 'name'], env.n1)).trim()).toBe('persistentvolumeclaim/c1');
  expect((await ok(['get', 'pv', 'pv1', '-o', 'jsonpath={.spec.claimRef.name}'], env.n1)).trim()).toBe('c1');
  expect((await ok(['-n', 'cred', 'get', 'secret', 'publish-1', '-o', 'name'], env.n1)).trim()).toBe('secret/publish-1');
  expect((await ok(['get', 'volumeattachment', 'va1', '-o', 'jsonpath={.spec.nodeName}'], env.n1)).trim()).toBe('n1');
  for (const args of [['get', 'pvc', 'c2'], ['get', 'pv', 'pv2'], ['-n', 'cred', 'get', 'secret', 'publish-2'], ['get', 'volumeattachment', 'va2']]) {
    const r = await kubectl(server, args, env.n1);
    expect(forbidden(r)).toBe(true);
    expect(r.stderr).toContain("no relationship found between node 'n1' and this object");
  }
  // The CSI controller's secret is not the node's, even on its own PV.
  expect(forbidden(await kubectl(server, ['-n', 'cred', 'get', 'secret', 'controller'], env.n1))).toBe(true);
  // Single gets only: no lists or watches of these kinds.
  for (const args of [['get', 'pv'], ['get', 'pvc'], ['get', 'volumeattachments'], ['get', 'pv', 'pv1', '--watch', '--request-timeout=2s']]) {
    expect(forbidden(await kubectl(server, args, env.n1))).toBe(true);
  }
  // The same through the other node.
  expect((await ok(['get', 'pv', 'pv2', '-o', 'name'], env.n2)).trim()).toBe('persistentvolume/pv2');
  expect(forbidden(await kubectl(server, ['get', 'pv', 'pv1'], env.n2))).toBe(true);
  // Kinds every node follows.
  expect((await ok(['get', 'csidrivers', '-o', 'name'], env.n1)).trim()).toBe('csidriver.storage.k8s.io/csi.example.com');
  expect((await ok(['get', 'runtimeclasses', '-o', 'name'], env.n1)).trim()).toBe('runtimeclass.node.k8s.io/runc');
  expect(forbidden(await kubectl(server, ['delete', 'runtimeclass', 'runc'], env.n1))).toBe(true);
  expect(forbidden(await kubectl(server, ['get', 'storageclasses'], env.n1))).toBe(true);
}, 90_000);

test('a node manages only its own CSINode', async () => {
  const file = join(server.dataDir, 'csinode-n1.json');
  await writeFile(file, JSON.stringify(csiNode('n1')));
  await ok(['create', '-f', file], env.n1);
  await ok(['label', 'csinode', 'n1', 'example.com/x=y'], env.n1);
  expect((await ok(['get', 'csinode', 'n1', '-o', 'jsonpath={.metadata.labels}'], env.n1))).toContain('example.com/x');
  // Another node's: creating one under its name (admission reads the body), reading, changing, deleting.
  const other = join(server.dataDir, 'csinode-n3.json');
  await writeFile(other, JSON.stringify(csiNode('n3')));
  const created = await kubectl(server, ['create', '-f', other], env.n1);
  expect(forbidden(created)).toBe(true);
  expect(created.stderr).toContain('can only access CSINode with the same name as the requesting node');
  for (const args of [['get', 'csinode', 'n2'], ['label', 'csinode', 'n2', 'stolen=yes'], ['delete', 'csinode', 'n2'], ['get', 'csinodes']]) {
    expect(forbidden(await kubectl(server, args, env.n1))).toBe(true);
  }
  expect(await ok(['get', 'csinode', 'n2', '-o', 'jsonpath={.metadata.labels}'])).not.toContain('stolen');
  expect((await ok(['get', 'csinodes', '-o', 'name'])).split('\n').filter(Boolean).sort()).toEqual(['csinode.storage.k8s.io/n1', 'csinode.storage.k8s.io/n2']);
  await ok(['delete', 'csinode', 'n1'], env.n1);
}, 60_000);

/** PUTs the claim's status as node `as`, from the claim it reads itself with `change` applied (the node agent's way: no get of status). */
async function putClaimStatus(name: string, as: Record<string, string>, change: (c: { metadata: Record<string, unknown>; status: Record<string, unknown> }) => void): Promise<KubectlResult> {
  const current = JSON.parse(await ok(['get', 'pvc', name, '-o', 'json'], env.n1));
  change(current);
  const file = join(server.dataDir, `claim-${name}-status.json`);
  await writeFile(file, JSON.stringify(current));
  return kubectl(server, ['replace', '--raw', `/api/v1/namespaces/default/persistentvolumeclaims/${name}/status`, '-f', file], as);
}

test('a node changes only the capacity and conditions of its claims\' status', async () => {
  const grown = await putClaimStatus('c1', env.n1, (c) => {
    c.status.capacity = { storage: '2Gi' };
    c.status.conditions = [{ type: 'FileSystemResizePending', status: 'True' }];
  });
  expect(grown.stderr).toBe('');
  expect(await ok(['get', 'pvc', 'c1', '-o', 'jsonpath={.status.capacity.storage}'])).toBe('2Gi');
  const phase = await putClaimStatus('c1', env.n1, (c) => void (c.status.phase = 'Lost'));
  expect(forbidden(phase)).toBe(true);
  expect(phase.stderr).toContain('node "n1" is not allowed to update fields other than status.capacity and status.conditions: status.phase');
  const labelled = await putClaimStatus('c1', env.n1, (c) => void (c.metadata.labels = { stolen: 'yes' }));
  expect(forbidden(labelled)).toBe(true);
  // As upstream, a node may not get a claim's status (so kubectl's patch, which gets first, is refused).
  const viaKubectl = await kubectl(server, ['patch', 'pvc', 'c1', '--subresource=status', '--type=merge', '-p', '{"status":{"capacity":{"storage":"3Gi"}}}'], env.n1);
  expect(viaKubectl.stderr).toContain('can only get/update/patch this type');
  expect(forbidden(await kubectl(server, ['label', 'pvc', 'c1', 'stolen=yes'], env.n1))).toBe(true);
  expect(forbidden(await kubectl(server, ['delete', 'pvc', 'c1', '--wait=false'], env.n1))).toBe(true);
  // Another node's claim: the node cannot even read it to build the update; a blind PUT is refused too.
  const file = join(server.dataDir, 'claim-c2-blind.json');
  await writeFile(file, JSON.stringify({ ...claim('c2'), status: { capacity: { storage: '9Gi' } } }));
  expect(forbidden(await kubectl(server, ['replace', '--raw', '/api/v1/namespaces/default/persistentvolumeclaims/c2/status', '-f', file], env.n1))).toBe(true);
  expect(await ok(['get', 'pvc', 'c2', '-o', 'jsonpath={.status.capacity}'])).not.toContain('9Gi');
  expect(await ok(['get', 'pvc', 'c1', '-o', 'jsonpath={.metadata.labels}'])).not.toContain('stolen');
}, 60_000);

test('forged and odd identities reach none of it', async () => {
  // Each certificate authenticates, as the identity it names: a refusal below is authorization's.
  const whoami = async (who: string) => (await ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'], env[who])).trim();
  expect(await whoami('empty')).toBe('system:node: ["system:nodes","system:authenticated"]');
  expect(await whoami('noGroup')).toBe('system:node:n1 ["system:authenticated"]');
  expect(await whoami('suffix')).toBe('system:node:n1.evil ["system:nodes","system:authenticated"]');
  for (const who of ['noGroup', 'noPrefix', 'upper', 'empty', 'otherOrg', 'suffix']) {
    for (const args of [['get', 'pv', 'pv1'], ['get', 'pvc', 'c1'], ['get', 'volumeattachment', 'va1'], ['-n', 'cred', 'get', 'secret', 'publish-1']]) {
      const r = await kubectl(server, args, env[who]);
      expect([who, args.join(' '), forbidden(r)]).toEqual([who, args.join(' '), true]);
    }
  }
  // A node with no name is no node at all (upstream's reason), even for what every node may do.
  const nameless = await kubectl(server, ['get', 'csidrivers'], env.empty);
  expect(forbidden(nameless)).toBe(true);
  expect(nameless.stderr).toContain('unknown node for user "system:node:"');
  // A name that merely starts with another node's is another node.
  expect(forbidden(await kubectl(server, ['get', 'csinode', 'n2'], env.suffix))).toBe(true);
  const file = join(server.dataDir, 'csinode-upper.json');
  await writeFile(file, JSON.stringify(csiNode('n1')));
  expect(forbidden(await kubectl(server, ['create', '-f', file], env.upper))).toBe(true);
}, 90_000);

test('the graph follows pods and attachments: deleted or rebound, access moves with them', async () => {
  await ok(['delete', 'pod', 'p1', '--wait=false']);
  await until('n1 to lose pv1 with its pod', async () => forbidden(await kubectl(server, ['get', 'pv', 'pv1'], env.n1)));
  expect(forbidden(await kubectl(server, ['-n', 'cred', 'get', 'secret', 'publish-1'], env.n1))).toBe(true);
  expect(forbidden(await kubectl(server, ['get', 'pvc', 'c1'], env.n1))).toBe(true);
  // The same pod name comes back on n2: n2 reaches the claim, its PV and secret; n1 still does not.
  await until('the old pod to be gone', async () => (await kubectl(server, ['get', 'pod', 'p1'])).code !== 0);
  await create('p1-on-n2', [pod('p1', 'n2', 'c1')]);
  await until('n2 to reach pv1', async () => (await kubectl(server, ['get', 'pv', 'pv1', '-o', 'name'], env.n2)).code === 0);
  expect((await ok(['-n', 'cred', 'get', 'secret', 'publish-1', '-o', 'name'], env.n2)).trim()).toBe('secret/publish-1');
  expect(forbidden(await kubectl(server, ['get', 'pv', 'pv1'], env.n1))).toBe(true);
  // The PV bound to another claim: n2 loses it.
  await ok(['patch', 'pv', 'pv2', '--type=merge', '-p', '{"spec":{"claimRef":{"name":"c-elsewhere"}}}']);
  await until('n2 to lose pv2 with its claim', async () => forbidden(await kubectl(server, ['get', 'pv', 'pv2'], env.n2)));
  // An attachment deleted is no longer the node's.
  await ok(['delete', 'volumeattachment', 'va1', '--wait=false']);
  await until('n1 to lose va1', async () => forbidden(await kubectl(server, ['get', 'volumeattachment', 'va1'], env.n1)));
  await create('va1-on-n2', [attachment('va1', 'n2', 'pv1')]);
  await until('n2 to reach the new va1', async () => (await kubectl(server, ['get', 'volumeattachment', 'va1', '-o', 'name'], env.n2)).code === 0);
  expect(forbidden(await kubectl(server, ['get', 'volumeattachment', 'va1'], env.n1))).toBe(true);
}, 90_000);

test('a node cannot turn its mirror pod into a regular one to reach a claim it names', async () => {
  // The node registers itself and reports a static pod whose ephemeral volume's claim would be
  // `grab-data`: a claim (and PV, and secret) the attacker picked, made by someone else.
  const nodeFile = join(server.dataDir, 'node-n1.json');
  await writeFile(nodeFile, JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
  await ok(['create', '-f', nodeFile], env.n1);
  const uid = (await ok(['get', 'node', 'n1', '-o', 'jsonpath={.metadata.uid}'], env.n1)).trim();
  await ok(['-n', 'cred', 'create', 'secret', 'generic', 'publish-grab', '--from-literal=k=v']);
  await create('grab', [claim('grab-data'), pv('pv-grab', 'grab-data', 'publish-grab')]);
  const mirror = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: 'grab', namespace: 'default', annotations: { 'k8s.io/config.mirror': 'hash' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid, controller: true }],
    },
    spec: {
      nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }],
      volumes: [{ name: 'data', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }],
    },
  };
  const mirrorFile = join(server.dataDir, 'mirror-grab.json');
  await writeFile(mirrorFile, JSON.stringify(mirror));
  await ok(['create', '-f', mirrorFile], env.n1);
  // A mirror pod grants its node nothing.
  expect(forbidden(await kubectl(server, ['get', 'pvc', 'grab-data'], env.n1))).toBe(true);
  // Dropping the annotation through pods/status (which a node may update for its own pods) is refused, as upstream.
  const current = JSON.parse(await ok(['get', 'pod', 'grab', '-o', 'json'], env.n1));
  delete current.metadata.annotations['k8s.io/config.mirror'];
  const statusFile = join(server.dataDir, 'mirror-grab-status.json');
  await writeFile(statusFile, JSON.stringify(current));
  const stripped = await kubectl(server, ['replace', '--raw', '/api/v1/namespaces/default/pods/grab/status', '-f', statusFile], env.n1);
  expect(stripped.code).not.toBe(0);
  expect(stripped.stderr).toContain('may not remove or update mirror pod annotation');
  // Nor may anyone else add or drop it on an existing pod.
  const asAdmin = await kubectl(server, ['annotate', 'pod', 'grab', 'k8s.io/config.mirror-']);
  expect(asAdmin.stderr).toContain('may not remove or update mirror pod annotation');
  await new Promise((r) => setTimeout(r, 500));
  for (const args of [['get', 'pvc', 'grab-data'], ['get', 'pv', 'pv-grab'], ['-n', 'cred', 'get', 'secret', 'publish-grab']]) {
    expect(forbidden(await kubectl(server, args, env.n1))).toBe(true);
  }
}, 60_000);

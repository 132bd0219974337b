import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// hack/conformance's split of the reference set into groups (run-fresh.sh --groups N) and the merge of
// the groups' results. No e2e.test needed: the split is checked against the reference files, the merge
// against JUnit reports written here in e2e.test's shape.
const exec = promisify(execFile);
const HERE = fileURLToPath(new URL('../hack/conformance/', import.meta.url));
const TOOL_TIMEOUT_MS = 30_000;
let dir = '';
let reference: string[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-scripts-'));
  reference = (await readFile(join(HERE, 'conformance-reference.txt'), 'utf8')).split('\n').filter((l) => l.trim() !== '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function split(n: number, out: string, referenceFile?: string): Promise<{ names: string[]; focus: string }[]> {
  await exec('python3', [join(HERE, 'split-focus.py'), String(n), out], { env: { ...process.env, REFERENCE_FILE: referenceFile ?? '' } });
  const groups: { names: string[]; focus: string }[] = [];
  for (let k = 1; k <= n; k++) {
    const names = (await readFile(join(out, `group-${k}`, 'reference.txt'), 'utf8')).split('\n').filter((l) => l !== '');
    groups.push({ names, focus: await readFile(join(out, `group-${k}`, 'focus.txt'), 'utf8') });
  }
  return groups;
}

test('one group selects exactly the reference set, as the checked-in focus regex does', async () => {
  const [group] = await split(1, join(dir, 'one'));
  const checkedIn = new RegExp((await readFile(join(HERE, 'conformance-focus.txt'), 'utf8')).trim());
  expect([...(group?.names ?? [])].sort()).toEqual([...reference].sort());
  expect(reference.filter((name) => new RegExp(group?.focus ?? '^$').test(name))).toEqual(reference.filter((name) => checkedIn.test(name)));
  expect(reference.filter((name) => checkedIn.test(name))).toEqual(reference);
}, TOOL_TIMEOUT_MS);

test('three groups of even size cover every spec once, [Serial] ones in group 1, each regex selecting exactly its specs', async () => {
  const groups = await split(3, join(dir, 'three'));
  expect(groups.flatMap((g) => g.names).sort()).toEqual([...reference].sort());
  const sizes = groups.map((g) => g.names.length);
  expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  const serial = reference.filter((name) => name.includes('[Serial]'));
  expect(serial.length).toBeGreaterThan(0);
  expect(groups[0]?.names).toEqual(expect.arrayContaining(serial));
  for (const g of groups) {
    // ginkgo matches the focus against "<container texts> <spec text>", the names listed here.
    const re = new RegExp(g.focus);
    expect(reference.filter((name) => re.test(name)).sort()).toEqual([...g.names].sort());
  }
}, TOOL_TIMEOUT_MS);

test('[Serial] specs all go to group 1, never beside each other; the rest fill the shortest groups', async () => {
  const file = join(HERE, 'issue31-reference.txt');
  const names = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const groups = await split(9, join(dir, 'serial'), file);
  const serial = names.filter((n) => n.includes('[Serial]'));
  expect(serial.length).toBeGreaterThan(1);
  expect(groups[0]?.names.filter((n) => n.includes('[Serial]'))).toEqual(serial);
  expect(groups.slice(1).flatMap((g) => g.names).filter((n) => n.includes('[Serial]'))).toEqual([]);
  expect(groups.flatMap((g) => g.names).sort()).toEqual([...names].sort());
  const sizes = groups.map((g) => g.names.length);
  expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(serial.length);
}, TOOL_TIMEOUT_MS);

function junit(cases: { name: string; state: 'passed' | 'failed' | 'skipped' }[]): string {
  const body = cases.map(({ name, state }) => {
    const inner = state === 'failed' ? '<failure type="Failure">/go/src/k8s.io/kubernetes/test/e2e/apps/rc.go:529&#xA;timed out waiting for the condition</failure>' : state === 'skipped' ? '<skipped></skipped>' : '';
    return `<testcase name="${name.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" classname="Kubernetes e2e suite" time="1">${inner}</testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite tests="${cases.length}">${body.join('')}</testsuite>\n`;
}

test('summarize.py counts every group, and a group listing another group\'s spec as skipped does not hide it', async () => {
  const [a, b, c] = reference;
  if (a === undefined || b === undefined || c === undefined) throw new Error('reference list too short');
  const out = join(dir, 'run');
  // Each e2e.test process lists every spec of the suite in its report: the ones outside its focus as skipped.
  await mkdir(join(out, 'group-1'), { recursive: true });
  await mkdir(join(out, 'group-2'), { recursive: true });
  await writeFile(join(out, 'group-1', 'junit_01.xml'), junit([{ name: a, state: 'passed' }, { name: b, state: 'skipped' }, { name: c, state: 'skipped' }]));
  await writeFile(join(out, 'group-2', 'junit_01.xml'), junit([{ name: a, state: 'skipped' }, { name: b, state: 'passed' }, { name: c, state: 'failed' }]));
  const { stdout } = await exec('python3', [join(HERE, 'summarize.py'), out]);
  expect(stdout.split('\n')[0]).toBe(`reference specs: ${reference.length}  passed: 2  failed: 1  not run: ${reference.length - 3}`);
  expect(stdout).toContain(`FAILED\n  ${c}\n      timed out waiting for the condition`);
}, TOOL_TIMEOUT_MS);

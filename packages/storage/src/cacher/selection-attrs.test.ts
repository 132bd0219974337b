import { parseFieldSelector, parseLabelSelector, type KubeObject } from '@cluster/apimachinery';
import type { Predicate, WatchEvent } from '../interfaces.js';
import { watchEventFor } from './cache-event.js';
import { Held, HeldStore, forgetDecoded, objectOf } from './held.js';
import { pageOfSnapshot } from './list-snapshot.js';
import { SharedObjectStore } from './shared-store.js';
import { WatchCache } from './watch-cache.js';

// Selection on a shared store's handles by their kept labels and fields (selection-attrs.ts) must
// answer exactly what a cache of decoded objects answers: lists, pages, a watch's initial state and
// every change's transition (ADDED when an object enters a selection, DELETED when it leaves).

const P = '/registry/pods/';

interface PodLike extends KubeObject {
  spec?: { nodeName?: string };
  type?: string;
}

const pod = (ns: string, name: string, rv: number, labels: Record<string, string> | undefined, nodeName = ''): PodLike => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, resourceVersion: String(rv), ...(labels ? { labels } : {}) },
  spec: nodeName ? { nodeName } : {},
});

/** The selectable fields of these objects: one function, as a registry has (see selectors.ts in apiserver). */
const fieldsOf = (obj: KubeObject): Record<string, string> => ({
  'metadata.name': obj.metadata.name ?? '',
  'metadata.namespace': obj.metadata.namespace ?? '',
  'spec.nodeName': (obj as PodLike).spec?.nodeName ?? '',
});

/** A predicate as the apiserver builds one: the object test and the same test on attributes. */
function selection(labelText: string, fieldText = '', withAttrs = true): Predicate {
  const labels = parseLabelSelector(labelText);
  const fields = parseFieldSelector(fieldText);
  const p: Predicate = (obj) => labels.matches(obj.metadata.labels ?? {}) && (fields.empty || fields.matches(fieldsOf(obj)));
  p.selectorKey = `${labels.toString()}\u0000${fields.toString()}${withAttrs ? '' : '\u0000plain'}`;
  if (withAttrs) {
    p.attrs = {
      ...(labels.empty ? {} : { labels: (ls) => labels.matches(ls) }),
      ...(fields.empty ? {} : { fields: (fs) => fields.matches(fs) }),
      fieldsOf,
    };
  }
  return p;
}

const SELECTIONS: [string, string][] = [
  ['app=web', ''],
  ['app!=web', ''],
  ['app in (web,db)', ''],
  ['app notin (web)', ''],
  ['tier', ''],
  ['!tier', ''],
  ['app=web,tier=front', ''],
  ['app=none', ''],
  ['', 'metadata.name=p3'],
  ['', 'metadata.name!=p3'],
  ['', 'metadata.namespace=b'],
  ['', 'spec.nodeName=n1'],
  ['', 'spec.nodeName='],
  ['app=web', 'spec.nodeName!=n2,metadata.namespace=a'],
];

/** Every change the two caches see: creates, label and field changes in and out of selections, deletes. */
function changes(): { type: 'put' | 'delete'; key: string; revision: number; object?: KubeObject }[] {
  const out: { type: 'put' | 'delete'; key: string; revision: number; object?: KubeObject }[] = [];
  let rev = 20;
  const put = (o: PodLike) => {
    o.metadata.resourceVersion = String(++rev);
    out.push({ type: 'put', key: `${P}${o.metadata.namespace}/${o.metadata.name}`, revision: rev, object: o });
  };
  put(pod('a', 'p9', 0, { app: 'web' }, 'n1'));
  put(pod('a', 'p1', 0, { app: 'db', tier: 'back' }, 'n1')); // web -> db: leaves app=web
  put(pod('b', 'p3', 0, { app: 'web' }, 'n2')); // gains app=web
  put(pod('a', 'p2', 0, { app: 'web', tier: 'front' }, 'n2')); // node n1 -> n2
  put(pod('b', 'p4', 0, { app: 'web', tier: 'front' }, 'n1')); // unchanged selection, new version
  out.push({ type: 'delete', key: `${P}a/p9`, revision: ++rev });
  put(pod('b', 'p5', 0, undefined, 'n1')); // loses every label
  put(pod('a', 'p2', 0, { app: 'web', tier: 'front' }, 'n1')); // back to n1
  out.push({ type: 'delete', key: `${P}b/p3`, revision: ++rev });
  return out;
}

function initial(): [string, KubeObject][] {
  return [
    [`${P}a/p1`, pod('a', 'p1', 11, { app: 'web', tier: 'back' }, 'n1')],
    [`${P}a/p2`, pod('a', 'p2', 12, { app: 'web', tier: 'front' }, 'n1')],
    [`${P}b/p3`, pod('b', 'p3', 13, { app: 'db' }, '')],
    [`${P}b/p4`, pod('b', 'p4', 14, { app: 'web', tier: 'front' }, 'n2')],
    [`${P}b/p5`, pod('b', 'p5', 15, { other: 'x' }, 'n1')],
  ];
}

/** A decoded cache and a shared-store cache fed the same list and changes. */
function caches(): { decoded: WatchCache; held: WatchCache } {
  const shared = new SharedObjectStore(SharedObjectStore.createBuffer({ initialBytes: 1 << 20 }), 1);
  const decoded = new WatchCache({ sharedStore: null });
  const held = new WatchCache({ sharedStore: new HeldStore(shared) });
  for (const c of [decoded, held]) c.reset(initial(), 20);
  return { decoded, held };
}

const names = (objs: KubeObject[]) => objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
const seen = (ev: WatchEvent | undefined) =>
  ev === undefined ? '-' : `${ev.type} ${ev.object.metadata.name}@${ev.object.metadata.resourceVersion} ${JSON.stringify(ev.object.metadata.labels ?? {})}`;

describe('selection on kept attributes (shared store)', () => {
  test('lists, pages and initial states select what a decoded cache selects, before and after changes', () => {
    const { decoded, held } = caches();
    const check = () => {
      for (const [l, f] of SELECTIONS) {
        const p = selection(l, f);
        for (const prefix of [P, `${P}a/`, `${P}b/`]) {
          const want = names(decoded.list(prefix, p));
          expect([l, f, prefix, names(held.list(prefix, p))]).toEqual([l, f, prefix, want]);
          expect(names(held.selectEntries(prefix, p).map(objectOf))).toEqual(want);
          expect(names(held.addedEvents(prefix, p).map((e) => e.object))).toEqual(want);
          // The same predicate without attributes (a converted version's) decodes and agrees too.
          expect(names(held.list(prefix, selection(l, f, false)))).toEqual(want);
        }
        const snap = { prefix: P, revision: held.revision, ...held.snapshot(P) };
        const dsnap = { prefix: P, revision: decoded.revision, ...decoded.snapshot(P) };
        const page = pageOfSnapshot(snap, { limit: 2, predicate: p, hasSelector: true, raw: true });
        const dpage = pageOfSnapshot(dsnap, { limit: 2, predicate: p, hasSelector: true });
        expect(page.continueToken).toEqual(dpage.continueToken);
        const pageItems = page.rawItems ? page.rawItems.map((h) => JSON.parse((h as Held).json().toString()) as KubeObject) : page.items;
        expect(names(pageItems)).toEqual(names(dpage.items));
      }
    };
    check();
    for (const c of changes()) {
      decoded.apply(c);
      held.apply(c);
      check();
    }
  });

  test("every change's transition per watcher equals the decoded cache's (entering ADDED, leaving DELETED)", () => {
    const { decoded, held } = caches();
    const preds = SELECTIONS.map(([l, f]) => selection(l, f));
    const transitions: string[] = [];
    for (const c of changes()) {
      const dev = decoded.apply(c)!;
      const hev = held.apply(c)!;
      for (const p of preds) {
        const want = seen(watchEventFor(dev, p));
        expect(`${c.key}@${c.revision} ${p.selectorKey}: ${seen(watchEventFor(hev, p))}`).toBe(`${c.key}@${c.revision} ${p.selectorKey}: ${want}`);
        transitions.push(want);
      }
    }
    // The changes do move objects in and out of selections.
    const app = preds[0]!;
    expect(transitions.filter((t) => t.startsWith('DELETED')).length).toBeGreaterThan(2);
    // p1 leaving app=web (a label change) is a DELETED of its old state at the new revision.
    const [, left] = changes();
    const ev = watchEventFor(held.eventsAfter(left!.revision - 1)[0]!, app)!;
    expect(seen(ev)).toBe(`DELETED p1@${left!.revision} {"app":"web","tier":"back"}`);
    // p3 entering app=web is an ADDED.
    const [, , entered] = changes();
    expect(seen(watchEventFor(held.eventsAfter(entered!.revision - 1)[0]!, app))).toBe(`ADDED p3@${entered!.revision} {"app":"web"}`);
  });

  test('once its attributes are kept, a selector list decodes only what it returns', () => {
    const shared = new SharedObjectStore(SharedObjectStore.createBuffer({ initialBytes: 1 << 20 }), 1);
    const held = new WatchCache({ sharedStore: new HeldStore(shared) });
    const many = Array.from(
      { length: 200 },
      (_, i) => [`${P}ns/o${i}`, pod('ns', `o${i}`, 100 + i, { app: i % 50 === 0 ? 'rare' : 'common' }, `n${i % 3}`)] as [string, KubeObject],
    );
    held.reset(many, 400);
    const rare = selection('app=rare');
    const byName = selection('', 'metadata.name=o7');
    // The first look learns each version's attributes (one decode each, none kept decoded).
    forgetDecoded();
    expect(held.list(P, rare)).toHaveLength(4);
    expect(held.list(P, byName)).toHaveLength(1);
    forgetDecoded();
    const parse = JSON.parse;
    let parses = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parses++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      expect(held.selectEntries(P, selection('app=none')).length).toBe(0);
      expect(held.selectEntries(P, selection('', 'metadata.name=nope')).length).toBe(0);
      // i % 3 === 1 (67 of 200) but o100 (rare).
      expect(held.selectEntries(P, selection('app=common', 'spec.nodeName=n1')).length).toBe(66);
      expect(parses).toBe(0);
      expect(held.list(P, rare).map((o) => o.metadata.name)).toEqual(['o0', 'o100', 'o150', 'o50']);
      expect(parses).toBe(4);
    } finally {
      JSON.parse = parse;
    }
  });

  test('equal label sets are kept once', () => {
    const shared = new SharedObjectStore(SharedObjectStore.createBuffer({ initialBytes: 1 << 20 }), 1);
    const held = new WatchCache({ sharedStore: new HeldStore(shared) });
    held.reset(
      Array.from({ length: 20 }, (_, i) => [`${P}ns/o${i}`, pod('ns', `o${i}`, 100 + i, { app: 'same', tier: 'x' })] as [string, KubeObject]),
      200,
    );
    held.list(P, selection('app=same'));
    const entries = held.entries(P) as Held[];
    expect(new Set(entries.map((e) => e.labels)).size).toBe(1);
  });
});

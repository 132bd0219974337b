// Sums a V8 sampling heap profile (create-garbage.mjs, watch-garbage.mjs) by where the bytes were
// allocated: by the innermost frame of this repository's code, by the allocating frame, and by the
// allocating frame with its three callers; optionally by a caller-chosen "path" of the work too.

const isOurs = (url) => url.includes('/packages/') && !url.includes('node_modules');

/** A frame as `name file:line`, with the repository and node_modules prefixes cut. */
export function frameLabel(frame) {
  const url = frame.url.replace(/^.*\/packages\//, '').replace(/^.*\/node_modules\//, 'nm:').replace(/^file:\/\//, '');
  return `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}`;
}

/**
 * Walks the profile once. `pathOf(stack)`, if given, names the part of the work a stack belongs to;
 * its name then also prefixes the chain view. Returns the total and one Map (label -> bytes) a view.
 */
export function summarizeAllocations(profile, pathOf) {
  const views = { byOurs: new Map(), bySelf: new Map(), byChain: new Map(), ...(pathOf ? { byPath: new Map() } : {}) };
  let total = 0;
  const add = (map, key, bytes) => map.set(key, (map.get(key) ?? 0) + bytes);
  const walk = (node, stack) => {
    const here = [...stack, node.callFrame];
    if (node.selfSize > 0) {
      total += node.selfSize;
      const path = pathOf?.(here);
      if (path !== undefined) add(views.byPath, path, node.selfSize);
      const mine = [...here].reverse().find((f) => isOurs(f.url));
      add(views.byOurs, mine ? frameLabel(mine) : '(no frame of ours)', node.selfSize);
      add(views.bySelf, frameLabel(node.callFrame), node.selfSize);
      const chain = here.slice(-4).reverse().map(frameLabel).join(' < ');
      add(views.byChain, path === undefined ? chain : `[${path}] ${chain}`, node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, []);
  return { total, ...views };
}

/** Prints one view's `top` largest rows as `<per-unit> B <share>%  <label>`. */
export function printTop(title, map, top, perUnit, total, digits = 0) {
  process.stdout.write(`\n${title}\n`);
  for (const [label, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${(bytes / perUnit).toFixed(digits).padStart(7)} B  ${((100 * bytes) / total).toFixed(1).padStart(5)}%  ${label}\n`);
  }
}

import { isAlias, isMap, isPair, isSeq, visit, type Document, type Node } from 'yaml';

/**
 * go-yaml's guard against alias expansion attacks, applied to the parsed document before anything
 * expands it: an alias to an anchor not (yet) defined and an anchor that contains an alias to
 * itself are refused, and so is a document where
 * nodes reached through aliases are too large a share of all decoded nodes (up to 99% for
 * documents under 400,000 decoded nodes, falling to 10% at 4,000,000). Node counts are computed
 * with each anchor's expanded size remembered, so even an exponential "billion laughs" document
 * is judged in linear time without being expanded. Returns go-yaml's message, or undefined.
 */
export function yamlAliasProblem(doc: Document): string | undefined {
  let recursive: string | undefined; // or an alias to no anchor
  let anyAlias = false;
  visit(doc, {
    Alias(_key, alias, path) {
      anyAlias = true;
      const target = alias.resolve(doc);
      if (!target) {
        recursive = `unknown anchor '${alias.source}' referenced`;
        return visit.BREAK;
      }
      if (path.includes(target)) {
        recursive = `anchor '${alias.source}' value contains itself`;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (recursive) return recursive;
  if (!anyAlias) return undefined;

  // Expanded node counts: every node decodes once, plus the whole target once per alias.
  const sizes = new Map<Node, number>();
  let aliasNodes = 0;
  const sizeOf = (node: unknown, viaAlias: boolean): number => {
    if (node === null || node === undefined) return 1;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      const n = target ? expanded(target) : 1;
      if (!viaAlias) aliasNodes += n;
      return n;
    }
    if (isMap(node) || isSeq(node)) {
      let n = 1;
      for (const item of node.items) {
        if (isPair(item)) n += sizeOf(item.key, viaAlias) + sizeOf(item.value, viaAlias);
        else n += sizeOf(item, viaAlias);
      }
      return n;
    }
    return 1;
  };
  // The size of a node reached through an alias; aliases inside it count towards that size only.
  const expanded = (node: Node): number => {
    const known = sizes.get(node);
    if (known !== undefined) return known;
    const n = sizeOf(node, true);
    sizes.set(node, n);
    return n;
  };
  const decoded = sizeOf(doc.contents, false);
  if (aliasNodes > 100 && decoded > 1000 && aliasNodes / decoded > allowedAliasRatio(decoded)) {
    return 'document contains excessive aliasing';
  }
  return undefined;
}

function allowedAliasRatio(decoded: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decoded <= low) return 0.99;
  if (decoded >= high) return 0.1;
  return 0.99 - 0.89 * ((decoded - low) / (high - low));
}

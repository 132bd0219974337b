import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The modules a source file loads when it is evaluated: static value imports and re-exports (not `import type`, not `import()`). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([\s\S]*?)\s+from\s+'([^']+)';/gm)) {
    const [, typeOnly, clause = '', spec = ''] = m;
    if (typeOnly) continue;
    // `import { type A, type B } from` is elided by the compiler as well.
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    if (named && (named[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    out.push(spec);
  }
  for (const m of text.matchAll(/^import\s+'([^']+)';/gm)) out.push(m[1] ?? '');
  return out;
}

/** Every module main.ts loads before it decides what this process is, and the primary's own. */
function primaryGraph(): Set<string> {
  const seen = new Set<string>();
  const pending = ['main.ts', 'replica-primary.ts', 'primary-startup.ts'];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(join(here, file))) {
      if (spec.startsWith('./')) pending.push(spec.slice(2).replace(/\.js$/, '.ts'));
      else seen.add(spec);
    }
  }
  return seen;
}

describe("the replica primary's modules", () => {
  test('include none of the server: the package indexes, prom-client, node-forge and the serving code are not among them', () => {
    const graph = primaryGraph();
    // The graph is walked at all (the entry and the primary's own modules are in it).
    expect(graph).toContain('main.ts');
    expect(graph).toContain('replica-primary.ts');
    expect(graph).toContain('flags-syntax.ts');
    // Starting workers as threads is the primary's work too, and as lean.
    expect(graph).toContain('replica-threads.ts');
    expect(graph).toContain('process-metrics.ts');
    expect(graph).toContain('@cluster/storage/etcd-process');
    for (const heavy of ['@cluster/apiserver', '@cluster/controllers', '@cluster/storage', '@cluster/apimachinery', 'prom-client', 'node-forge', 'yaml']) {
      expect(graph).not.toContain(heavy);
    }
    for (const serving of ['serve.ts', 'start.ts', 'flags.ts', 'cluster-replica.ts', 'primary-startup-thread.ts', 'certs.ts']) {
      expect(graph).not.toContain(serving);
    }
  });
});

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Orders API versions as upstream prefers them: GA before beta before alpha, higher numbers first
 * within a level, then any non-Kubernetes-looking versions alphabetically. For `Array.sort`.
 */
export function compareVersionPriority(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = KUBE_VERSION.exec(v);
    if (!m) return [3, 0, 0];
    const level = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) {
    const d = (ra[i] as number) - (rb[i] as number);
    if (d !== 0) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

import { networkInterfaces } from 'node:os';

/**
 * A non-loopback IPv4 address of this machine (not link-local either): where a test's extension
 * API server or webhook listens when it stands behind a Service's Endpoints, since Endpoints refuse
 * loopback and link-local addresses as upstream's do. Throws, naming what it looked at, on a host
 * with no such address: such a test cannot run there, and must say so rather than pass.
 */
export function hostAddress(): string {
  const seen: string[] = [];
  const interfaces = networkInterfaces();
  for (const name of Object.keys(interfaces).sort()) {
    for (const info of interfaces[name] ?? []) {
      seen.push(`${name}:${info.address}`);
      if (info.family === 'IPv4' && !info.internal && !info.address.startsWith('127.') && !info.address.startsWith('169.254.')) return info.address;
    }
  }
  throw new Error(`this test needs a non-loopback IPv4 address (Endpoints refuse loopback), and this host has none: ${seen.join(', ') || 'no interfaces'}`);
}

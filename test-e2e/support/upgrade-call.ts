import { request } from 'node:https';

/**
 * An exec-style upgrade request (`Upgrade: cluster-echo`) to `url` as the bearer of `token`:
 * resolves with the status, and with the peer's first answer to `send` once switched (101).
 */
export function upgradeCall(url: URL, ca: string, token: string, send: string): Promise<{ status: number; echo?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', ca, agent: false, headers: { Authorization: `Bearer ${token}`, Connection: 'Upgrade', Upgrade: 'cluster-echo' } });
    req.on('upgrade', (res, socket) => {
      socket.write(send);
      socket.once('data', (d: Buffer) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, echo: d.toString('utf8') });
      });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.setTimeout(10_000, () => req.destroy(new Error('upgrade timed out')));
    req.on('error', reject);
    req.end();
  });
}

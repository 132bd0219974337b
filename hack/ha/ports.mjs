// Prints N free loopback TCP ports, one per line (for hack/local-up-ha.sh).
import { createServer } from 'node:net';

const n = Number(process.argv[2] ?? '1');
const servers = [];
for (let i = 0; i < n; i++) {
  const s = createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  servers.push(s);
}
for (const s of servers) console.log(s.address().port);
for (const s of servers) s.close();

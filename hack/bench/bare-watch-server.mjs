// The watch-fanout floor: a bare Node HTTPS server (HTTP/2 by ALPN, HTTP/1.1 too) with no API
// server behind it. Every GET is held open as a watch stream; every POST body is written as it
// is to every open watch stream, one write each, and then answered 200. What the load generator
// measures against it is what the runtime's TLS and HTTP/2 send path and the load generator's own
// receivers cost on this machine, with no storage, cache or flusher in the way.
// Usage: node bare-watch-server.mjs <cert.pem> <key.pem>
import { createSecureServer } from 'node:http2';
import { readFileSync } from 'node:fs';

const [certFile, keyFile] = process.argv.slice(2);
if (!certFile || !keyFile) {
  process.stderr.write('usage: bare-watch-server.mjs <cert> <key>\n');
  process.exit(2);
}
const watchers = new Set();
const server = createSecureServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), allowHTTP1: true }, (req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
    res.flushHeaders();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const event = Buffer.concat(chunks);
    for (const w of watchers) w.write(event);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`);
});
const stop = () => {
  for (const w of watchers) w.stream?.close?.();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// BENCH_WEBHOOK=1: a no-op admission webhook (allowed, nothing else) over HTTPS with the
// replica's certificate. Usage: node webhook-server.mjs <cert.pem> <key.pem>
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';

const [certFile, keyFile] = process.argv.slice(2);
if (!certFile || !keyFile) {
  process.stderr.write('usage: webhook-server.mjs <cert> <key>\n');
  process.exit(2);
}
let calls = 0;
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    calls++;
    let review;
    try {
      review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request?.uid, allowed: true } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`);
});
const stop = () => {
  process.stderr.write(`webhook-server: ${calls} reviews answered\n`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

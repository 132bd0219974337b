// The get-cached baseline: a bare Node HTTPS server that answers every request with one fixed
// ConfigMap JSON body. Usage: node bare-server.mjs <cert.pem> <key.pem> <body.json>
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';

const [certFile, keyFile, bodyFile] = process.argv.slice(2);
if (!certFile || !keyFile || !bodyFile) {
  process.stderr.write('usage: bare-server.mjs <cert> <key> <body>\n');
  process.exit(2);
}
const body = readFileSync(bodyFile);
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  // Drain any request body so keep-alive connections stay usable.
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

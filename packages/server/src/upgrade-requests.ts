import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Serves an HTTP/1.1 request that asks to switch protocols (`Connection: Upgrade`; what
 * `exec`-style clients send) through the same handler as every request: the handler gets a
 * response bound to the connection, so authentication, authorization and errors work as for any
 * request. A handler that takes the connection over (the aggregator's proxy, once the extension
 * agreed to switch) detaches it from the response; otherwise the connection closes after the
 * answer (its HTTP parser is gone, so it cannot carry another request). Bytes the client sent after
 * its headers are put back for whoever reads the connection.
 */
export function serveUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  const res = new ServerResponse(req);
  res.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
  res.shouldKeepAlive = false;
  if (head.length > 0) socket.unshift(head);
  socket.on('error', () => socket.destroy());
  res.once('finish', () => {
    res.detachSocket(socket as Parameters<ServerResponse['detachSocket']>[0]);
    socket.end();
  });
  handler(req, res);
}

import { EventEmitter } from 'node:events';
import { constants, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { IWatchRequest, IWatchResponse } from 'etcd3';
import { decodeGrpcMessage, EtcdRpcError, GrpcCode, type EtcdKvClient } from './kv-client.js';
import type { EtcdWatchStream, WatchStreamSource } from './raw-watch.js';
import { decodeWatchResponse, encodeWatchRequest } from './watch-messages.js';

const WATCH_PATH = '/etcdserverpb.Watch/Watch';

/**
 * etcd's Watch service straight on an HTTP/2 connection of an {@link EtcdKvClient}: each
 * {@link watch} is one bidirectional gRPC stream whose messages are encoded and decoded here
 * (watch-messages.ts). The etcd3 client routes the same stream through grpc-js, its filters and
 * protobufjs's conversion of every 64-bit field through Long: about a third of the replica's work
 * per watched event went there. Reconnecting is the caller's (RawWatch's) business: a stream that
 * fails or ends is not reopened.
 */
export class EtcdWatchClient implements WatchStreamSource {
  constructor(private readonly connection: EtcdKvClient) {}

  async watch(): Promise<EtcdWatchStream> {
    return new GrpcWatchStream(await this.connection.openStream(WATCH_PATH));
  }

  /** Closes the connection: open streams fail, later calls fail at once. */
  close(): void {
    this.connection.close();
  }
}

/**
 * One Watch call: `write` sends WatchRequests; answers come as 'data' (IWatchResponse); the call
 * ends with 'end' (status OK) or one 'error' (an {@link EtcdRpcError} or the stream's error).
 */
class GrpcWatchStream extends EventEmitter implements EtcdWatchStream {
  /** Bytes of an answer not yet complete. */
  private pending: Buffer | undefined;
  private status: number | undefined;
  private details = '';
  private finished = false;

  constructor(private readonly stream: ClientHttp2Stream) {
    super();
    stream.on('response', (headers) => {
      const http: unknown = headers[constants.HTTP2_HEADER_STATUS];
      if (http !== 200) this.takeStatus({ 'grpc-status': String(GrpcCode.UNAVAILABLE), 'grpc-message': `etcd answered HTTP ${String(http)}` });
      else this.takeStatus(headers); // a trailers-only answer carries its status here
    });
    stream.on('trailers', (headers) => this.takeStatus(headers));
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('error', (err: Error) => this.finish(err));
    stream.on('close', () => {
      if (this.status === undefined) this.finish(new EtcdRpcError(GrpcCode.UNAVAILABLE, `etcd watch stream closed without a status (HTTP/2 code ${this.stream.rstCode ?? 'none'})`));
      else if (this.status !== 0) this.finish(new EtcdRpcError(this.status, this.details));
      else this.finish(undefined);
    });
  }

  write(req: IWatchRequest): void {
    const message = encodeWatchRequest(req);
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    this.stream.write(frame);
  }

  /** Half-closes the call (no more requests). */
  end(): void {
    this.stream.end();
  }

  /** Abandons the call (RST_STREAM CANCEL); nothing more is emitted. */
  cancel(): void {
    this.finished = true;
    if (!this.stream.destroyed) this.stream.close(constants.NGHTTP2_CANCEL);
  }

  private takeStatus(headers: IncomingHttpHeaders): void {
    const s = headers['grpc-status'];
    if (typeof s !== 'string') return;
    this.status = Number(s);
    this.details = decodeGrpcMessage(headers['grpc-message']);
  }

  /** Splits the gRPC framing (flag, big-endian length, message) and emits each answer. */
  private onData(chunk: Buffer): void {
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    while (!this.finished && buf.length - at >= 5) {
      const len = buf.readUInt32BE(at + 1);
      if (buf.length - at - 5 < len) break;
      if (buf[at] !== 0) {
        this.fail(new EtcdRpcError(GrpcCode.INTERNAL, 'compressed gRPC message from etcd (none was asked for)'));
        return;
      }
      const message = buf.subarray(at + 5, at + 5 + len);
      at += 5 + len;
      let res: IWatchResponse;
      try {
        res = decodeWatchResponse(message);
      } catch (e) {
        this.fail(new EtcdRpcError(GrpcCode.INTERNAL, `malformed watch response from etcd: ${(e as Error).message}`));
        return;
      }
      this.emit('data', res);
    }
    this.pending = at < buf.length ? buf.subarray(at) : undefined;
  }

  private fail(err: Error): void {
    this.finish(err);
    if (!this.stream.destroyed) this.stream.close(constants.NGHTTP2_CANCEL);
  }

  private finish(err: Error | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.pending = undefined;
    if (err) this.emit('error', err);
    else this.emit('end');
  }
}

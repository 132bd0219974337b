import { Duplex } from 'node:stream';

/**
 * One end of an in-memory connection: what one end writes, the other reads, in order, with
 * backpressure (a write completes when the other end's reader asks for more). It has the few
 * socket methods Node's HTTP client and server call on a connection (timeouts, keep-alive,
 * no-delay, ref/unref) so either can run over it without a TCP or TLS socket.
 *
 * Used for the replica's own controllers (see Listener.connectInProcess): their requests reach
 * the API's handler in the same thread, without TLS over loopback. Nothing outside the process
 * can reach such a connection: it exists only as an object handed to the caller.
 */
export class InProcessSocket extends Duplex {
  /** Where requests appear to come from, as over a loopback connection (audit's sourceIPs). */
  readonly remoteAddress = '127.0.0.1';
  readonly remoteFamily = 'IPv4';
  readonly localAddress = '127.0.0.1';
  readonly connecting = false;
  private peer!: InProcessSocket;
  /** A write of this end the other end has not asked for yet (backpressure). */
  private writeDone: ((err?: Error | null) => void) | undefined;
  private idleMs = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  /** Two connected ends: [client, server]. */
  static pair(): [InProcessSocket, InProcessSocket] {
    const a = new InProcessSocket();
    const b = new InProcessSocket();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  private constructor() {
    super({ allowHalfOpen: false });
  }

  override _read(): void {
    const done = this.peer.writeDone;
    if (done) {
      this.peer.writeDone = undefined;
      done();
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.active();
    if (this.peer.destroyed) return callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    this.peer.active();
    if (this.peer.push(chunk)) callback();
    else this.writeDone = callback;
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.peer.push(null);
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    clearTimeout(this.idleTimer);
    const done = this.writeDone;
    this.writeDone = undefined;
    done?.(err ?? new Error('connection closed'));
    // The other end sees the connection close with it: reset when this end failed.
    if (!this.peer.destroyed) this.peer.destroy(err ? Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) : undefined);
    callback(err);
  }

  /** As net.Socket's: ends this side and closes once what was written has been read. */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }

  /** As net.Socket's: emits 'timeout' after `ms` without reads or writes (0 turns it off). */
  setTimeout(ms: number, onTimeout?: () => void): this {
    if (ms !== this.idleMs) this.idleTimer = void clearTimeout(this.idleTimer);
    this.idleMs = ms;
    if (onTimeout) {
      if (ms === 0) this.removeListener('timeout', onTimeout);
      else this.once('timeout', onTimeout);
    }
    this.active();
    return this;
  }

  get timeout(): number | undefined {
    return this.idleMs || undefined;
  }

  private active(): void {
    if (this.idleMs === 0) {
      if (this.idleTimer) this.idleTimer = void clearTimeout(this.idleTimer);
      return;
    }
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        if (!this.destroyed) this.emit('timeout');
      }, this.idleMs);
      this.idleTimer.unref();
    }
  }

  setKeepAlive(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}

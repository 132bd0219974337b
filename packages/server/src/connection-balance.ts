// Connections spread evenly over a replica's worker threads. The threads accept on one shared
// listening socket (replica-threads.ts), and Node accepts whatever is pending in a loop: a burst of
// connections (ten clients' watch connections opened at once, say) could all go to the thread
// that woke first, and that thread then wrote most of every fan-out while the other idled
// (bench README, twentieth session). Node's cluster module balances worker processes in its
// primary; threads have no such thing, hence this.
//
// A thread's load is its open connections plus its open HTTP/2 streams: a watch stream lives as
// long as its client, so a connection carrying a hundred watches weighs a hundred times an idle
// one (an HTTP/1.1 watch has a connection of its own). A thread that accepts while its load is
// above the least loaded thread's hands the socket to that thread: the descriptor is duplicated
// (fd_dup addon), the copy goes through the primary, and the other thread adopts it before a
// byte was read. Loads live in a SharedArrayBuffer every thread sees; -1 marks a slot whose
// thread does not take connections (not started, stopping or gone).
import type { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';

/** A slot that takes no connections. */
const CLOSED = -1;

/** Makes the shared counts of `slots` worker threads, every slot closed. */
export function createConnectionCounts(slots: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * Math.max(1, slots));
  new Int32Array(buffer).fill(CLOSED);
  return buffer;
}

/** Marks `slot` (0-based) as taking no connections (its thread ended). */
export function closeConnectionSlot(buffer: SharedArrayBuffer, slot: number): void {
  const counts = new Int32Array(buffer);
  if (slot >= 0 && slot < counts.length) Atomics.store(counts, slot, CLOSED);
}

/**
 * Adds one to `slot`'s load unless the slot is closed; false when it is. A plain add would turn a
 * slot that closed meanwhile (its thread stopping or gone) from -1 into 0, the least load there
 * is, and every later connection would be handed to a thread that takes none.
 */
export function addToOpenSlot(counts: Int32Array, slot: number): boolean {
  for (;;) {
    const n = Atomics.load(counts, slot);
    if (n === CLOSED) return false;
    if (Atomics.compareExchange(counts, slot, n, n + 1) === n) return true;
  }
}

/**
 * Takes one off `slot`'s load when it is above 0: a closed slot stays closed, and a slot reopened
 * after a stop (at 0) does not go below it.
 */
export function takeFromSlot(counts: Int32Array, slot: number): void {
  for (;;) {
    const n = Atomics.load(counts, slot);
    if (n <= 0 || Atomics.compareExchange(counts, slot, n, n - 1) === n) return;
  }
}

/** One thread's part in the balancing. */
export interface ConnectionShare {
  counts: SharedArrayBuffer;
  /** This thread's slot, 0-based. */
  slot: number;
  /** Duplicates a descriptor; negative on failure. */
  dup: (fd: number) => number;
  /** Sends descriptor `fd` to the thread of slot `to` (0-based), which adopts it. */
  handOff: (fd: number, to: number) => void;
}

/** What the listener does with the balancing it was given. */
export interface BalancedServer {
  /** From now on this thread takes connections (its own and handed ones). */
  open(): void;
  /** This thread takes no more connections: the others stop handing theirs over. */
  close(): void;
  /** Serves a connection another thread accepted (descriptor `fd`, this thread's to close). */
  adopt(fd: number): void;
  /** Counts an HTTP/2 stream in this thread's load until it closes. */
  streamOpened(stream: EventEmitter): void;
}

/**
 * The open slot with the least load when it is less than `own`'s, otherwise `own` (ties keep the
 * connection where it was accepted: after it, no two loads differ by more than one).
 */
export function leastLoadedSlot(counts: Int32Array, own: number): number {
  const mine = Atomics.load(counts, own);
  let best = own;
  let bestCount = mine;
  for (let i = 0; i < counts.length; i++) {
    if (i === own) continue;
    const n = Atomics.load(counts, i);
    if (n !== CLOSED && n < bestCount) {
      best = i;
      bestCount = n;
    }
  }
  return best;
}

/**
 * Takes over `server`'s 'connection' event (a net, TLS or HTTP/2 secure server, after every
 * listener of it was added): each accepted socket is kept or handed over, and the listeners the
 * server had run for the kept and the adopted ones.
 */
export function balanceConnections(server: EventEmitter, share: ConnectionShare): BalancedServer {
  const counts = new Int32Array(share.counts);
  const own = share.slot;
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  let open = false;
  const release = () => takeFromSlot(counts, own);
  const releaseOnClose = (source: EventEmitter) => source.once('close', release);
  /** Runs the server's own listeners; `counted`: the socket is in this slot's load until it closes. */
  const serve = (socket: Socket, counted: boolean) => {
    if (counted) releaseOnClose(socket);
    for (const listener of listeners) listener.call(server, socket);
  };
  server.on('connection', (socket: Socket) => {
    const target = open ? leastLoadedSlot(counts, own) : own;
    if (target !== own && handOver(socket, target)) return;
    if (open) Atomics.add(counts, own, 1);
    serve(socket, open);
  });
  /** Duplicates the socket's descriptor for slot `target` and lets this thread's socket go; false when it cannot. */
  const handOver = (socket: Socket, target: number): boolean => {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) return false;
    // Counted for the target at once: the next accepts here see it before the target adopts.
    if (!addToOpenSlot(counts, target)) return false;
    const copy = share.dup(fd);
    if (copy < 0) {
      takeFromSlot(counts, target);
      return false;
    }
    // Closes this thread's descriptor only: the connection stays open through the copy. Nothing
    // was read from it (reading starts on the loop's next turn).
    socket.destroy();
    share.handOff(copy, target);
    return true;
  };
  return {
    open() {
      open = true;
      Atomics.store(counts, own, Math.max(0, Atomics.load(counts, own)));
    },
    close() {
      open = false;
      Atomics.store(counts, own, CLOSED);
    },
    adopt(fd) {
      if (!open) {
        // Stopping: the connection is refused as one to a closed port would be.
        closeSync(fd);
        return;
      }
      let socket: Socket;
      try {
        socket = new Socket({ fd, readable: true, writable: true });
      } catch {
        closeSync(fd);
        release();
        return;
      }
      countWithServer(server, socket);
      serve(socket, true);
    },
    streamOpened(stream) {
      if (!open) return;
      Atomics.add(counts, own, 1);
      releaseOnClose(stream);
    },
  };
}

/**
 * Counts an adopted socket among the server's connections, as one it accepted itself: its
 * close() then waits for it, as for the others. Node keeps that count in fields of its own
 * (`_connections`, and `_server` on the socket, which the socket's destroy decrements); left out
 * when a Node without them is met.
 */
function countWithServer(server: EventEmitter, socket: Socket): void {
  const counted = server as unknown as { _connections?: unknown };
  if (typeof counted._connections !== 'number') return;
  counted._connections++;
  (socket as unknown as { _server?: unknown; server?: unknown })._server = server;
  (socket as unknown as { server?: unknown }).server = server;
}

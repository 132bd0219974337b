/**
 * The few pieces of the protobuf wire format the etcd KV client needs: varints, length-delimited
 * fields and skipping unknown fields. 64-bit integers travel as decimal strings, as the etcd3
 * client's types have them; values up to 2^53 take the fast path through a JS number.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** Builds one message; nested messages are built with a writer of their own and added as bytes. */
export class ProtoWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 64) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** A non-negative int64 (below 2^63) given as a number or decimal string; 0, '' and undefined are not written (proto3). */
  int64(field: number, value: string | number | undefined): void {
    if (value === undefined || value === 0 || value === '0' || value === '') return;
    this.int64Always(field, value);
  }

  /** Like {@link int64} but written even when 0: a member of a oneof must say it is set. */
  int64Always(field: number, value: string | number): void {
    this.tag(field, WIRE_VARINT);
    this.varint64(value);
  }

  bool(field: number, value: boolean | undefined): void {
    if (!value) return;
    this.tag(field, WIRE_VARINT);
    this.byte(1);
  }

  /** A bytes field; empty or absent is not written (proto3). */
  bytes(field: number, value: Uint8Array | undefined): void {
    if (!value || value.length === 0) return;
    this.bytesAlways(field, value);
  }

  /** A bytes field (or an encoded message) written even when empty. */
  bytesAlways(field: number, value: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts a new message in the same buffer (the views finish gave before are overwritten). */
  reset(): void {
    this.pos = 0;
  }

  /** Bytes the buffer holds now. */
  get capacity(): number {
    return this.buf.length;
  }

  /** The message so far (a view of the writer's buffer: take it last). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Integers in [0, 2^53). */
  private varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  private varint64(value: string | number): void {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a non-negative 64-bit integer: ${value}`);
      this.varint(value);
      return;
    }
    if (!/^[0-9]+$/.test(value)) throw new RangeError(`not a non-negative 64-bit integer: ${value}`);
    const n = Number(value);
    if (Number.isSafeInteger(n)) {
      this.varint(n);
      return;
    }
    let big = BigInt(value);
    if (big >= 1n << 63n) throw new RangeError(`not a non-negative 64-bit integer: ${value}`);
    this.ensure(10);
    while (big >= 0x80n) {
      this.buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    this.buf[this.pos++] = Number(big);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

/** Decimal texts of recently read int64 varints above 2^53, by their varint bytes (latin1). */
const LARGE_INT64S = new Map<string, string>();
const MAX_LARGE_INT64S = 64;

/** Reads the fields of one message; `bytes()` returns views of the input, not copies. */
export class ProtoReader {
  pos: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    readonly end: number = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** The next field's number and wire type. */
  tag(): { field: number; wire: number } {
    const t = this.varint();
    return { field: Math.floor(t / 8), wire: t % 8 };
  }

  /** A varint as a number; exact up to 2^53 (use {@link int64} where a value may be larger). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byteAt();
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
    throw new Error('malformed protobuf: varint longer than 10 bytes');
  }

  /** A 64-bit varint as a decimal string (an int64 is read as its unsigned bits, as etcd never sends negatives). */
  int64(): string {
    const start = this.pos;
    const fast = this.varint();
    if (fast <= Number.MAX_SAFE_INTEGER) return String(fast);
    // Large values are etcd's cluster and member IDs, the same in every response header: the
    // last few conversions are kept by their bytes, since BigInt arithmetic costs several µs.
    const raw = this.buf.toString('latin1', start, this.pos);
    const known = LARGE_INT64S.get(raw);
    if (known !== undefined) return known;
    let big = 0n;
    let shift = 0n;
    for (let p = start; p < this.pos; p++) {
      big |= BigInt(this.buf[p]! & 0x7f) << shift;
      shift += 7n;
    }
    const text = BigInt.asUintN(64, big).toString();
    if (LARGE_INT64S.size >= MAX_LARGE_INT64S) LARGE_INT64S.clear();
    LARGE_INT64S.set(raw, text);
    return text;
  }

  bool(): boolean {
    return this.varint() !== 0;
  }

  bytes(): Buffer {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) throw new Error('malformed protobuf: field runs past the end of its message');
    this.pos += len;
    return this.buf.subarray(start, start + len);
  }

  /** A reader of the embedded message at the current field. */
  message(): ProtoReader {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) throw new Error('malformed protobuf: message runs past the end of its parent');
    this.pos += len;
    return new ProtoReader(this.buf, start, start + len);
  }

  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_LEN:
        this.advance(this.varint());
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        throw new Error(`malformed protobuf: unknown wire type ${wire}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new Error('malformed protobuf: field runs past the end of its message');
    this.pos += n;
  }

  private byteAt(): number {
    if (this.pos >= this.end) throw new Error('malformed protobuf: truncated varint');
    return this.buf[this.pos++]!;
  }
}

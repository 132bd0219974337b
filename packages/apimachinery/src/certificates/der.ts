/** One DER element: its tag byte, its content, and the whole encoding (header + content). */
export interface DerElement {
  tag: number;
  content: Uint8Array;
  raw: Uint8Array;
}

/** ASN.1 universal tags used by certificate subjects (single-byte, class universal). */
export const TAG = {
  INTEGER: 0x02,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  NUMERIC_STRING: 0x12,
  PRINTABLE_STRING: 0x13,
  T61_STRING: 0x14,
  IA5_STRING: 0x16,
  UNIVERSAL_STRING: 0x1c,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/**
 * Reads the DER element at `offset` of `buf` (definite lengths only, minimal length octets, no
 * high tag numbers), as Go's cryptobyte does. Pure.
 * @throws Error when the element is truncated or not DER.
 */
export function readElement(buf: Uint8Array, offset = 0): DerElement {
  if (offset + 2 > buf.length) throw new Error('truncated element');
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new Error('high tag numbers are not supported');
  const first = buf[offset + 1]!;
  let len: number;
  let header: number;
  if (first < 0x80) {
    len = first;
    header = 2;
  } else {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || offset + 2 + n > buf.length) throw new Error('invalid length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[offset + 2 + i]!;
    if (buf[offset + 2] === 0 || len < 0x80) throw new Error('non-minimal length');
    header = 2 + n;
  }
  const end = offset + header + len;
  if (end > buf.length) throw new Error('truncated element');
  return { tag, content: buf.subarray(offset + header, end), raw: buf.subarray(offset, end) };
}

/**
 * The elements of a constructed element's content, in order. Pure.
 * @throws Error when the content is not a sequence of whole DER elements.
 */
export function readChildren(content: Uint8Array): DerElement[] {
  const out: DerElement[] = [];
  for (let at = 0; at < content.length; ) {
    const el = readElement(content, at);
    out.push(el);
    at += el.raw.length;
  }
  return out;
}

/** The DER encoding of one element with `tag` around `content`. Pure. */
export function encodeElement(tag: number, content: Uint8Array): Uint8Array {
  const len = content.length;
  let header: number[];
  if (len < 0x80) header = [tag, len];
  else {
    const bytes: number[] = [];
    for (let n = len; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    header = [tag, 0x80 | bytes.length, ...bytes];
  }
  const out = new Uint8Array(header.length + len);
  out.set(header, 0);
  out.set(content, header.length);
  return out;
}

/** The concatenation of byte arrays. Pure. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The dotted text of an OBJECT IDENTIFIER's content octets. Pure. @throws Error when malformed. */
export function decodeOid(content: Uint8Array): string {
  if (content.length === 0) throw new Error('empty object identifier');
  const arcs: number[] = [];
  let value = 0;
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    if (value === 0 && b === 0x80) throw new Error('non-minimal object identifier');
    value = value * 128 + (b & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new Error('object identifier arc too large');
    if ((b & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    } else if (i === content.length - 1) throw new Error('truncated object identifier');
  }
  const first = arcs[0]!;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs.slice(1)].join('.');
}

/** The content octets of an OBJECT IDENTIFIER in dotted text (at least two arcs). Pure. */
export function encodeOid(oid: string): Uint8Array {
  const arcs = oid.split('.').map(Number);
  const out: number[] = [];
  const push = (n: number) => {
    const groups = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) groups.unshift(0x80 | (v & 0x7f));
    out.push(...groups);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return new Uint8Array(out);
}

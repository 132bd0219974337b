// etcd key-range helpers (same convention as the storage package: the prefix's end is the
// prefix with its last byte incremented).

/** The exclusive end of a prefix range. */
export function prefixEnd(prefix) {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i] += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

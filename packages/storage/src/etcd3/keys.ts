/** The exclusive end of a prefix range: the prefix with its last byte incremented (etcd's convention). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff: range to the end of the keyspace.
  return Buffer.from([0]);
}

import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes `data` to `path` with `mode` via a temporary file in the same directory and a rename, so
 * that a crash never leaves half a key or token file behind. Replaces an existing file.
 */
export async function writeAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, data, { mode, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfoFile, buildInfoFromGit, readBuildInfo, stampBuildInfo } from './build-info.js';

const here = fileURLToPath(import.meta.url);

describe('build information for /version', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'build-info-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('from this checkout: HEAD, its tree state, RFC 3339 date', () => {
    const head = execFileSync('git', ['-C', join(here, '..'), 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const info = buildInfoFromGit(join(here, '..'));
    expect(info?.gitCommit).toBe(head);
    expect(['clean', 'dirty']).toContain(info?.gitTreeState);
    expect(info?.buildDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('a stamp next to the compiled code wins; a damaged one falls back to git; outside git the values are empty', async () => {
    const moduleFile = join(dir, 'src', 'build-info.js');
    await mkdir(join(dir, 'src'));
    expect(buildInfoFile(moduleFile)).toBe(join(dir, 'build-info.json'));
    // Outside any git checkout (a temp dir), with no stamp: upstream's unstamped values.
    expect(readBuildInfo(moduleFile)).toEqual({ gitCommit: '', gitTreeState: '', buildDate: '1970-01-01T00:00:00Z' });
    const stamped = stampBuildInfo(moduleFile, new Date('2026-11-25T21:30:00.123Z'));
    expect(stamped).toEqual({ gitCommit: '', gitTreeState: '', buildDate: '2026-11-25T21:30:00Z' });
    const info = { gitCommit: 'e5f3f020084e16aa0123456789abcdef01234567', gitTreeState: 'clean', buildDate: '2026-11-25T21:00:00Z' };
    await writeFile(join(dir, 'build-info.json'), JSON.stringify(info));
    expect(readBuildInfo(moduleFile)).toEqual(info);
    await writeFile(join(dir, 'build-info.json'), '{"gitCommit": 5');
    expect(readBuildInfo(moduleFile).gitCommit).toBe('');
  });
});

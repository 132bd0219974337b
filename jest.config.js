// One jest config for the whole workspace: ESM via ts-jest, workspace imports resolved to source
// so that tests never need a build first.
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.base.json' }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': tsJest },
  moduleNameMapper: {
    '^@cluster/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
    // Subpath exports name a folder with an index of its own (e.g. @cluster/storage/etcd-process).
    '^@cluster/([a-z-]+)/([a-z-]+)$': '<rootDir>/packages/$1/src/$2/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
};
export default {
  projects: [
    { ...common, displayName: 'unit', rootDir: '.', testMatch: ['<rootDir>/packages/*/src/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      rootDir: '.',
      testMatch: ['<rootDir>/packages/*/test/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test-e2e/**/*.test.ts'],
    },
  ],
};

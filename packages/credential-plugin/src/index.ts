export { parseExecInfo, execCredential, execApiVersions, type ExecInfo, type CredentialStatus } from './exec-credential.js';
export { verifyClusterInfo, type VerifiedCluster } from './cluster-info.js';
export { credentialPlan, loadCredential, saveCredential, writeSecretFile, type StoredCredential } from './store.js';
export { bootstrapCredential, pinCluster, type BootstrapOptions } from './bootstrap.js';
export { parseArgs } from './args.js';

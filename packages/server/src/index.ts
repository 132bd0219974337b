export { startServer, type RunningServer } from './start.js';
export { parseFlags, FlagError, type ServerOptions } from './flags.js';
export { issueClientCertificate, type ClientCertificateRequest, type PemPair } from './certs.js';

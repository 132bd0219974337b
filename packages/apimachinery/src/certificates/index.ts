export * from './pem.js';
export * from './csr-pem.js';
export * from './csr-details.js';
export * from './certificate-request.js';
export * from './node-requests.js';
export * from './types.js';
export * from './x509-name.js';

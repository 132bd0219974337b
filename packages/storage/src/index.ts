export * from './errors.js';
export * from './interfaces.js';
export { Etcd3Store, parseRevision } from './etcd3/store.js';
export { newEtcdClient } from './etcd3/client.js';
export { startEtcd, freePort, freePorts, type EtcdProcess, type StartEtcdOptions } from './etcd-process/index.js';

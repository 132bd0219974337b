export { startEtcd } from './etcd-process.js';
export type { EtcdExit, EtcdProcess, StartEtcdOptions } from './etcd-process.js';
export { freePort, freePorts } from './free-port.js';
export { superviseEtcd, type SupervisedEtcd, type SuperviseEtcdOptions } from './supervisor.js';

export { FlowControl, RejectedRequest, type Classification, type FlowControlOptions, type LevelState, type Ticket } from './flow-control.js';
export { FlowControlMetrics } from './metrics.js';
export { FlowControlConfigSource } from './config-source.js';
export { QueueSet, type QueueSetConfig, type QueuedRequest, type RejectReason } from './queue-set.js';
export { classify, sortFlowSchemas, matchesSubject, matchesResourceRule, matchesNonResourceRule, flowDistinguisher } from './classify.js';
export { dealHand, flowHash, requiredEntropyBits, MAX_HASH_BITS } from './shuffle-sharding.js';
export { estimateSeats } from './width.js';
export { FairRotation, SliceScheduler, sliceScheduler, type SliceOwner, type SliceSchedulerOptions } from './slice-scheduler.js';

/** Storage-level failure codes; the apiserver turns them into Status errors (interpret*Error). */
export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'ResourceVersionConflicts'
  | 'InvalidObj'
  | 'UnreachableEtcd'
  | 'Compacted'
  | 'TooLargeResourceVersion'
  | 'InvalidContinue'
  | 'RequestTooLarge'
  | 'InvalidError';

/** A failure of the storage layer, keyed by the etcd key it concerns. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For TooLargeResourceVersion: the revision the store knows. */
    readonly currentRevision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }

  /**
   * For a compacted continue token: a token that continues from the same key at the latest
   * revision (an inconsistent list), as upstream offers in its 410.
   */
  continueToken?: string;
}

export const isStorageError = (e: unknown, code?: StorageErrorCode): e is StorageError =>
  e instanceof StorageError && (code === undefined || e.code === code);

import type { RequestInfo } from '../request/request-info.js';
import type { UserInfo } from '../authn/user.js';
import type { SliceOwner } from '../flowcontrol/slice-scheduler.js';

/** Facts filters record on a request, read by later filters and the handler. */
export interface RequestState {
  requestInfo: RequestInfo;
  /**
   * The query parameters, parsed once by the request-info step (read them through
   * `requestQuery(ctx)`); shared by every later step, which must not change them.
   */
  query?: URLSearchParams;
  user?: UserInfo;
  body?: Buffer;
  warnings: string[];
  /** Set by the metrics filter for the verb label (LIST, WATCH, APPLY, ...). */
  metricsVerb?: string;
  /** Set by priority and fairness: the request's level and flow, whose turns large responses take. */
  flow?: SliceOwner;
  /**
   * Set by priority and fairness for a watch: gives the watch's seat back. The watch handler
   * calls it once the initial events are written (at once when there are none).
   */
  watchInitialized?: () => void;
  /** Set by the audit filter when the request is audited: what later filters add to its events. */
  audit?: {
    annotations: Record<string, string>;
    impersonatedUser?: UserInfo;
    /** The decoded request object's identity (upstream's LogRequestObject): completes objectRef. */
    requestObjectMeta?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  };
}

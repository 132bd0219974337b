import { negotiate, type Negotiated } from './negotiate.js';

/** Distinct Accept headers (with the endpoint's options) whose negotiation is kept at most. */
const MAX_NEGOTIATIONS = 256;

/**
 * Negotiation results by Accept header and endpoint options: clients send the same few Accept
 * headers with every request, and parsing one is a few splits and objects each time. A header
 * nothing fits (406) is not kept; the table is emptied when it holds too many (clients choose
 * the header, so it must stay bounded). The results are shared: never changed by their users.
 */
export class NegotiationCache {
  private readonly kept = new Map<string, Negotiated>();

  constructor(private readonly metaGroup: string) {}

  /** negotiate()'s answer for these inputs (frozen); throws its 406 as it does. */
  negotiate(accept: string, protobufOk: boolean, tableOk: boolean, pretty: boolean): Negotiated {
    const key = `${protobufOk ? 'p' : '-'}${tableOk ? 't' : '-'}${pretty ? 'y' : '-'}${accept}`;
    let n = this.kept.get(key);
    if (n === undefined) {
      n = Object.freeze(negotiate(accept, { metaGroup: this.metaGroup, protobufOk, tableOk, pretty }));
      if (this.kept.size >= MAX_NEGOTIATIONS) this.kept.clear();
      this.kept.set(key, n);
    }
    return n;
  }
}

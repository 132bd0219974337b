/** The most hash bits a shuffle-sharding dealer uses (upstream's shufflesharding.MaxHashBits). */
export const MAX_HASH_BITS = 60;

/** Bits of entropy needed to deal `handSize` cards from a deck of `deckSize`: ceil(log2(deckSize) * handSize). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/**
 * A 60-bit hash of a flow's identity (its flow schema and distinguisher), as two FNV-1a 32-bit
 * halves with different offsets; deterministic on every replica. Pure.
 */
export function flowHash(flowSchema: string, distinguisher: string): bigint {
  const key = `${flowSchema}\u0000${distinguisher}`;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return ((BigInt(a) << 28n) ^ BigInt(b)) & ((1n << 60n) - 1n);
}

/**
 * Deals a hand of `handSize` distinct queue indexes out of `deckSize` from `hash` (upstream's
 * shufflesharding.Dealer): each draw takes the hash modulo the cards left and skips the cards
 * already dealt, so two flows share a whole hand only with a small probability. Pure.
 */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const hand: number[] = [];
  let h = hash;
  for (let i = 0; i < handSize && i < deckSize; i++) {
    const left = BigInt(deckSize - i);
    let card = Number(h % left);
    h /= left;
    // Map the draw onto the cards not dealt yet, in ascending order.
    for (const taken of [...hand].sort((x, y) => x - y)) if (card >= taken) card++;
    hand.push(card);
  }
  return hand;
}

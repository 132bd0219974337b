/** The most hash bits a shuffle-sharding dealer uses (upstream's shufflesharding.MaxHashBits). */
export const MAX_HASH_BITS = 60;

/** Bits of entropy needed to deal `handSize` cards from a deck of `deckSize`: ceil(log2(deckSize) * handSize). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

// `@cluster/apimachinery/meta`: Go's duration syntax without the rest of the package (the flag
// parser of a replica's primary needs only this; see packages/server/src/flags-syntax.ts).
export { parseGoDuration } from './duration.js';

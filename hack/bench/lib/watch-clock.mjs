// The clock and latency histogram shared by the watch-fanout writer and its worker threads.

/**
 * Milliseconds on the process-wide monotonic clock (the same in every thread, unlike
 * performance.now(), whose origin is per thread).
 */
export function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Latency histogram: 0.1 ms buckets up to 60 s (later ones go to the last bucket). */
export const BUCKET_MS = 0.1;
export const BUCKETS = 600_000;

/** The q-quantile (0..1) of a histogram holding `count` samples, in ms (bucket upper bound). */
export function histogramQuantile(histogram, count, q) {
  if (count === 0) return NaN;
  const rank = Math.max(1, Math.ceil(q * count));
  let acc = 0;
  for (let b = 0; b < histogram.length; b++) {
    acc += histogram[b];
    if (acc >= rank) return (b + 1) * BUCKET_MS;
  }
  return histogram.length * BUCKET_MS;
}

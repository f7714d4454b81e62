// bench/scale: a sample's median and p99 (nearest rank), in the sample's unit.
export function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { p50: rank(50), p99: rank(99), n: sorted.length };
}

/** Runs `work` `runs` times after three warm-ups (caches, JIT) and returns the median and p95 in milliseconds. */
export async function timeRuns(work: () => Promise<unknown>, runs = 10): Promise<{ median: number; p95: number }> {
  for (let warmUp = 0; warmUp < 3; warmUp++) await work();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
}

import cliProgress from 'cli-progress';

/** A progress bar on stderr for the long phases (generation, loading). */
export function progressBar(label: string, total: number): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    {
      format: `${label.padEnd(28)} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      stream: process.stderr,
      // Redirected to a file, print a line every few seconds instead of redrawing.
      noTTYOutput: true,
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return bar;
}

/**
 * Ctrl+C (SIGINT) and SIGTERM. A JavaScript listener runs only when the thread is free: one
 * installed for a build waits, ignoring the signal, while the thread parses a body or renders a
 * page, for seconds or minutes. So a build installs none: the system's default action ends the
 * process at once, whatever it is doing, and what that leaves is safe by construction (the site
 * is published by one atomic switch at the end; the next build takes over a dead build's lock
 * and empties the half-made folder; see stages/write/build-folders.ts).
 *
 * Only a short step that must not be cut in the middle, a file of the author's written aside and
 * renamed into place, holds the signals: one that arrives meanwhile is raised again, unchanged,
 * once the step is done, and ends the process as it would have (or reaches the listeners
 * another part of the process installed).
 */
export async function withSignalsHeld<T>(step: () => Promise<T>): Promise<T> {
  let caught: NodeJS.Signals | undefined;
  const hold = (signal: NodeJS.Signals) => {
    caught ??= signal;
  };
  process.on("SIGINT", hold);
  process.on("SIGTERM", hold);
  try {
    return await step();
  } finally {
    process.off("SIGINT", hold);
    process.off("SIGTERM", hold);
    if (caught) process.kill(process.pid, caught);
  }
}

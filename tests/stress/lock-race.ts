/**
 * The stale-lock race, run many times (issue 27): two builds started together on an output
 * folder whose lock a killed build left. Not part of `npm test` (it takes a minute or two):
 *
 *   npx tsx tests/stress/lock-race.ts [RUNS] [--stale file|folder|both] [--racers N]
 *
 * RUNS defaults to 200; the stale lock is, by turns, this version's lock folder and an older
 * version's lock file (`echo 999999 > dist.builds/lock`, as the issue left it). Each run must
 * publish one build's site whole, refuse the other ("another build is writing"), and leave no
 * lock behind; any run that does not is printed, and the command exits 1.
 */
import { parseArgs } from "node:util";
import { rm } from "node:fs/promises";
import path from "node:path";
import { bundleContender, race, type StaleLock } from "../lock-race.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { stale: { type: "string", default: "both" }, racers: { type: "string", default: "2" } },
});
const runs = Number(positionals[0] ?? 200);
const kinds: StaleLock[] = values.stale === "both" ? ["folder", "file"] : [values.stale as StaleLock];
const racers = Number(values.racers);

const contender = await bundleContender();
const started = performance.now();
const tally = { runs: 0, onePublished: 0, sequential: 0, refused: 0, failed: 0 };
try {
  for (let run = 1; run <= runs; run++) {
    const stale = kinds[run % kinds.length]!;
    const outcome = await race({ contender, stale, racers });
    tally.runs++;
    tally.refused += outcome.refused.length;
    if (outcome.problems.length > 0) {
      tally.failed++;
      console.log(`run ${run} (stale lock ${stale}): ${outcome.problems.join("; ")}`);
    } else if (outcome.sequential) tally.sequential++;
    else if (outcome.published.length === 1) tally.onePublished++;
    if (run % 25 === 0) console.log(`${run} runs, ${tally.failed} failed (${Math.round((performance.now() - started) / 1000)} s)`);
  }
} finally {
  await rm(path.dirname(contender), { recursive: true, force: true });
}
console.log(
  `${tally.runs} races of ${racers} builds on a stale lock (${kinds.join(" and ")}): ${tally.onePublished} published by one build with the others refused, ` +
    `${tally.sequential} with both publishing one after the other (never at once), ${tally.failed} failed (a mixed site, two holders, a crash or a lock left behind); ` +
    `${tally.refused} refusals in all; ${Math.round((performance.now() - started) / 1000)} s.`,
);
process.exit(tally.failed > 0 ? 1 : 0);

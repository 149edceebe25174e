/**
 * One build racing another for the same output folder (tests/lock-race.ts starts several):
 * loads, says "ready", waits for "go" on its standard input (so the racers take the lock at
 * the same moment), then writes a small site whose every file says which build wrote it, and
 * publishes it through the FolderWriter, as a real build does. Prints one JSON line per event:
 * the moment it took the lock, published, let the lock go, or the refusal it met.
 * Exit 0: published; 3: refused (another build holds the lock); 1: anything else.
 *
 *   node <bundle of this file> OUT TAG PAGES
 */
import { createInterface } from "node:readline";
import { FolderWriter } from "../engine/stages/write/writers.js";

const [out, tag, pages] = process.argv.slice(2) as [string, string, string];
const now = () => performance.timeOrigin + performance.now();
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

const lines = createInterface({ input: process.stdin });
say({ event: "ready" });
await new Promise<void>((resolve) => lines.once("line", () => resolve()));
lines.close();

const writer = new FolderWriter(out, (step) => {
  if (step === "swapped") say({ event: "published", at: now() });
  if (step === "cleaned") say({ event: "released", at: now() });
});
try {
  await writer.begin();
} catch (error) {
  const message = (error as Error).message;
  say({ event: "refused", message });
  process.exit(message.startsWith("another build") ? 3 : 1);
}
say({ event: "took", at: now() });
for (let i = 0; i < Number(pages); i++) {
  await writer.write(`page-${i}.html`, `${tag} ${i}`);
  // A real build renders between two files: the lock is held a while, and the other racer gets turns.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await writer.write(`only-${tag}.html`, `${tag} only`);
await writer.commit();
process.exit(0);

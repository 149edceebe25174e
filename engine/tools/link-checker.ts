/**
 * `npm run check:links`: every external address the built site links to (its pages'
 * `<a href>`: Markdown links, references, data tables, the theme's own links) asked
 * whether it still answers, each dead one reported with the file:line that cites it.
 *
 * Never part of a build (a build must not depend on the network). Polite to the sites it
 * asks: a few requests per host at a time, a timeout, HEAD first and GET where HEAD is
 * refused, and a wait when a site answers 429 or 503 with `Retry-After`. Answers are kept
 * for a day (`node_modules/.cache/check-links/`), so a second run asks nothing again.
 */
import { readFileSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../lib/files.js";
import path from "node:path";
import http from "node:http";
import https from "node:https";
import { startTags } from "../lib/html-tags.js";
import { lineOf, lineStarts } from "../lib/text-lines.js";
import { guardedLookup, LocalAddressRefused, refusal, type LocalAllowance, type LocalRange } from "./local-addresses.js";

// ---------------------------------------------------------------------------------------
// What the site shows, and where it is written

/** Each external http(s) address the pages link to, with the routes that show it. */
export function externalLinks(pages: Iterable<readonly [route: string, html: string]>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const own = new Set<string>();
  for (const [route, html] of pages) {
    for (const { name, attributes: attrs } of startTags(html)) {
      // The site's own address (canonical, og:url) is not an external one.
      if (name === "link" && attrs.rel?.toLowerCase().split(/\s+/).includes("canonical") && attrs.href) own.add(originOf(attrs.href) ?? "");
      if (name === "meta" && attrs.property === "og:url" && attrs.content) own.add(originOf(attrs.content) ?? "");
      if (name !== "a" || !attrs.href) continue;
      const href = attrs.href.trim();
      if (!/^https?:\/\//i.test(href)) continue;
      const url = href.replace(/#.*$/, "");
      const routes = found.get(url) ?? [];
      if (!routes.includes(route)) routes.push(route);
      found.set(url, routes);
    }
  }
  for (const url of found.keys()) if (own.has(originOf(url) ?? "")) found.delete(url);
  return found;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export interface LinkSource {
  file: string;
  line: number;
  column: number;
}

const SOURCE_FILES = /\.(md|markdown|ya?ml|json|tsx?|jsx?)$/i;
/** A character that may continue a URL: a match followed by one is part of a longer address. */
const URL_CHAR = /[\w\-.~%/?#&=+:@!$'*,;]/;

/**
 * Where each address is written: every occurrence in the text files of `dirs` (content,
 * the theme), as file:line:column with the file relative to `relativeTo`. An address written
 * differently from how the page shows it (escaped, say) is looked for in its decoded form too.
 */
export function locateLinks(urls: Iterable<string>, dirs: readonly string[], relativeTo: string): Map<string, LinkSource[]> {
  const files: { file: string; text: string; lineStarts?: number[] }[] = [];
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = readdirSync(dir, { recursive: true, encoding: "utf8" });
    } catch {
      continue;
    }
    for (const entry of entries.sort()) {
      if (!SOURCE_FILES.test(entry) || entry.split(path.sep).some((part) => part === "node_modules" || part.startsWith("."))) continue;
      // Markdown beside the folders (README.md, STYLE.md) documents the content; it is not shown.
      if (/\.(md|markdown)$/i.test(entry) && !entry.includes(path.sep)) continue;
      const file = path.join(dir, entry);
      try {
        files.push({ file: path.relative(relativeTo, file) || file, text: readFileSync(file, "utf8") });
      } catch {
        // A folder named like a file, or one that went away: nothing to search.
      }
    }
  }
  const located = new Map<string, LinkSource[]>();
  for (const url of urls) {
    const variants = new Set([url, safeDecode(url), url.replace(/&/g, "&amp;")].filter((v): v is string => !!v));
    const sources: LinkSource[] = [];
    for (const f of files) {
      for (const variant of variants) {
        for (let at = f.text.indexOf(variant); at >= 0; at = f.text.indexOf(variant, at + 1)) {
          const next = f.text[at + variant.length];
          // A longer address is another link; a #fragment is this one (pages are checked without it);
          // punctuation after an address ends it (`(see https://x.org).`).
          if (next !== undefined && URL_CHAR.test(next) && !/[#.,;:!?']/.test(next)) continue;
          f.lineStarts ??= lineStarts(f.text);
          const line = lineOf(f.lineStarts, at);
          if (!sources.some((s) => s.file === f.file && s.line === line)) sources.push({ file: f.file, line, column: at - f.lineStarts[line - 1]! + 1 });
        }
      }
    }
    located.set(url, sources);
  }
  return located;
}

function safeDecode(url: string): string | undefined {
  try {
    return decodeURI(url);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------
// Asking

/** What an address answered. */
export type LinkAnswer =
  | { kind: "ok"; status: number }
  /** It answers, at another address it moved to for good (301 or 308 on the way). */
  | { kind: "moved"; status: number; to: string; finalStatus: number }
  | { kind: "dead"; reason: string; status?: number }
  /** Nothing can be said: the site kept asking us to wait (429). */
  | { kind: "unverified"; reason: string; status?: number };

export interface CheckOptions {
  /** Per request, milliseconds (default 10 s). */
  timeoutMs?: number;
  /** Requests to one host at a time (default 2). */
  perHost?: number;
  /** Requests at a time in all (default 8). */
  concurrency?: number;
  /** Tries again after a 429 or 503 (default 2). */
  retries?: number;
  /** The longest `Retry-After` honoured, milliseconds (default 30 s); a longer one is not waited for. */
  maxRetryAfterMs?: number;
  /** Wait before trying again after a 429 or 503 that names no time (default 1 s, doubled each time). */
  backoffMs?: number;
  /** The answers of the last day: a JSON file (none: nothing kept). */
  cacheFile?: string;
  /** Read the kept answers (false: ask every address again, then keep the new answers). */
  readCache?: boolean;
  /** How long an answer is kept (default a day). */
  maxAgeMs?: number;
  /**
   * The most time one link may take, redirects and waits a site asks for included (default
   * 60 s): then it is "not verified".
   */
  linkBudgetMs?: number;
  /** Loopback, private and link-local addresses asked all the same: all (true) or these IPs (default none). */
  allowPrivate?: LocalAllowance;
  now?: () => number;
}

const USER_AGENT = "cafe-check-links/1 (checks the links of a blog; one request per link a day)";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PERMANENT = new Set([301, 308]);
const DAY = 24 * 60 * 60 * 1000;

interface Reply {
  status: number;
  statusText: string;
  location?: string;
  retryAfter?: string;
}

/** Limits requests per host and in all. */
class Limiter {
  private active = 0;
  private readonly perHost = new Map<string, number>();
  private readonly waiting: (() => void)[] = [];
  constructor(
    private readonly total: number,
    private readonly hostMax: number,
  ) {}
  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    while (this.active >= this.total || (this.perHost.get(host) ?? 0) >= this.hostMax) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active++;
    this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    try {
      return await task();
    } finally {
      this.active--;
      this.perHost.set(host, this.perHost.get(host)! - 1);
      for (const wake of this.waiting.splice(0)) wake();
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `Retry-After` in milliseconds: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Why a request failed, in words, from the error fetch threw. */
function failureOf(error: unknown, timeoutMs: number): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return `no answer within ${timeoutMs / 1000} s (timeout)`;
  const code = (e as { code?: string }).code ?? e.cause?.code;
  if (code === "ENOTFOUND") return "the host does not exist (DNS lookup failed)";
  if (code === "EAI_AGAIN") return "the host could not be looked up (DNS lookup failed; is this machine offline?)";
  if (code === "ECONNREFUSED") return "the connection was refused";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") return "the connection was reset";
  if (code?.startsWith("ERR_TLS") || code?.includes("CERT")) return `TLS error (${code})`;
  return `the request failed (${code ?? e.cause?.message ?? e.message})`;
}

const isNetworkReason = (reason: string) => /DNS|timeout|refused|reset|request failed/.test(reason);

export class LinkChecker {
  private readonly limiter: Limiter;
  private readonly o: Required<Omit<CheckOptions, "cacheFile">> & { cacheFile?: string };
  private kept = new Map<string, { at: number; answer: LinkAnswer }>();

  constructor(options: CheckOptions = {}) {
    this.o = {
      timeoutMs: 10_000,
      perHost: 2,
      concurrency: 8,
      retries: 2,
      maxRetryAfterMs: 30_000,
      backoffMs: 1000,
      readCache: true,
      maxAgeMs: DAY,
      linkBudgetMs: 60_000,
      allowPrivate: false,
      now: Date.now,
      ...options,
    };
    this.limiter = new Limiter(this.o.concurrency, this.o.perHost);
  }

  /** Every address's answer, and whether it came from the kept answers. */
  async check(urls: readonly string[]): Promise<Map<string, { answer: LinkAnswer; cached: boolean }>> {
    await this.load();
    const results = new Map<string, { answer: LinkAnswer; cached: boolean }>();
    await Promise.all(
      urls.map(async (url) => {
        const kept = this.kept.get(url);
        if (kept && this.o.readCache && this.o.now() - kept.at < this.o.maxAgeMs) {
          results.set(url, { answer: kept.answer, cached: true });
          return;
        }
        const answer = await this.ask(url);
        // Only what the site answered is kept: a network failure may be ours, and a 429 says nothing.
        if (answer.kind !== "unverified" && !(answer.kind === "dead" && answer.status === undefined)) this.kept.set(url, { at: this.o.now(), answer });
        results.set(url, { answer, cached: false });
      }),
    );
    await this.save();
    return results;
  }

  private async load(): Promise<void> {
    if (!this.o.cacheFile) return;
    try {
      const data = JSON.parse(await readFile(this.o.cacheFile, "utf8")) as { version: number; answers: Record<string, { at: number; answer: LinkAnswer }> };
      if (data.version === 1) this.kept = new Map(Object.entries(data.answers).filter(([, v]) => this.o.now() - v.at < this.o.maxAgeMs));
    } catch {
      // No answers kept yet, or a file from elsewhere: ask again.
    }
  }

  private async save(): Promise<void> {
    if (!this.o.cacheFile) return;
    await writeFileAtomic(this.o.cacheFile, JSON.stringify({ version: 1, answers: Object.fromEntries(this.kept) }));
  }

  /**
   * Follows an address through its redirects (10 at most) to an answer, within the time a
   * link is given (waits a site asks for included): a site asking to wait on every hop gets
   * no more than that.
   */
  async ask(url: string): Promise<LinkAnswer> {
    const deadline = performance.now() + this.o.linkBudgetMs;
    let current = url;
    let moved = false;
    let firstStatus: number | undefined;
    for (let hop = 0; hop <= 10; hop++) {
      const reply = await this.request(current, deadline);
      if ("refused" in reply) {
        const { host, address, range } = reply.refused;
        const what = host === address ? `${address} is a ${range} address` : `${host} is ${address}, a ${range} address`;
        const reason = hop === 0 ? `not asked: ${what}` : `redirects to ${current}, not followed: ${what}`;
        return { kind: "unverified", reason: `${reason} (--allow-private asks such addresses)` };
      }
      if ("failure" in reply) return reply.failure;
      firstStatus ??= reply.status;
      if (REDIRECTS.has(reply.status) && reply.location) {
        if (PERMANENT.has(reply.status)) moved = true;
        try {
          current = new URL(reply.location, current).href;
        } catch {
          return { kind: "dead", status: reply.status, reason: `redirects to an address that is not one (${reply.location.slice(0, 100)})` };
        }
        continue;
      }
      const via = current === url ? "" : ` (after redirects, at ${current})`;
      if (reply.status >= 200 && reply.status < 300) {
        return moved ? { kind: "moved", status: firstStatus, to: current, finalStatus: reply.status } : { kind: "ok", status: reply.status };
      }
      if (reply.status === 429) return { kind: "unverified", status: 429, reason: `the site kept answering 429 Too Many Requests${via}; try again later` };
      return { kind: "dead", status: reply.status, reason: `${reply.status}${reply.statusText ? ` ${reply.statusText}` : ""}${via}` };
    }
    return { kind: "dead", reason: "more than 10 redirects" };
  }

  /** The answer of a link that ran out of its time. */
  private outOfTime(detail: string, status?: number): { failure: LinkAnswer } {
    return { failure: { kind: "unverified", status, reason: `no final answer within the ${Math.round(this.o.linkBudgetMs / 1000)} s a link is given (${detail}); try again later` } };
  }

  /**
   * One address's answer: HEAD, then GET where HEAD is refused or fails (some servers
   * answer HEAD with an error); a 429 or 503 is asked again after its Retry-After, if the
   * link's time allows. A host written as a local IP is refused here, before any request.
   */
  private async request(url: string, deadline: number): Promise<Reply | { failure: LinkAnswer } | { refused: Refused }> {
    let host: string;
    let hostname: string;
    try {
      ({ host, hostname } = new URL(url));
    } catch {
      return { failure: { kind: "dead", reason: "not a valid address" } };
    }
    const literal = refusal(hostname, this.o.allowPrivate);
    if (literal) return { refused: { host: literal.address, ...literal } };
    for (let attempt = 0; ; attempt++) {
      const send = (method: "HEAD" | "GET") => this.limiter.run(host, () => this.once(url, method, deadline));
      let reply = await send("HEAD");
      // HEAD refused (405, 501, or any error some servers give it) or failed: GET decides.
      // Not after a 429 or 503: that is the site asking for fewer requests, not more.
      // A host that does not exist, refuses or does not answer in time is not asked twice.
      const failedForGood = "error" in reply && (reply.outOfTime || /DNS|refused|timeout/.test(reply.error));
      if (("error" in reply && !failedForGood) || ("status" in reply && reply.status >= 400 && reply.status !== 429 && reply.status !== 503)) {
        reply = await send("GET");
      }
      if ("refused" in reply) return reply;
      if ("error" in reply) return reply.outOfTime ? this.outOfTime(reply.error) : { failure: { kind: "dead", reason: reply.error } };
      if ((reply.status === 429 || reply.status === 503) && attempt < this.o.retries) {
        const asked = retryAfterMs(reply.retryAfter, this.o.now());
        const wait = asked ?? this.o.backoffMs * 2 ** attempt;
        if (wait > this.o.maxRetryAfterMs) {
          if (reply.status === 429) return { failure: { kind: "unverified", status: 429, reason: `429 Too Many Requests, asked to wait ${Math.round(wait / 1000)} s; try again later` } };
          return reply;
        }
        if (performance.now() + wait > deadline) return this.outOfTime(`${reply.status} with Retry-After: ${reply.retryAfter ?? "none"}`, reply.status);
        await sleep(wait);
        continue;
      }
      return reply;
    }
  }

  /**
   * One request, answered by its status line and headers (the page is never downloaded). Made
   * with node:http(s), whose `lookup` refuses a host name that resolves to a local address
   * before connecting; it ends by the link's deadline.
   */
  private once(url: string, method: "HEAD" | "GET", deadline: number): Promise<Reply | { error: string; outOfTime?: boolean } | { refused: Refused }> {
    const left = deadline - performance.now();
    if (left <= 0) return Promise.resolve({ error: "out of time", outOfTime: true });
    // A whole number of milliseconds: AbortSignal.timeout throws a RangeError on a fraction (what is left of the link's time is one).
    const timeoutMs = Math.max(1, Math.ceil(Math.min(this.o.timeoutMs, left)));
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : http;
    return new Promise((resolve) => {
      const request = client.request(
        target,
        {
          method,
          agent: false,
          lookup: guardedLookup(this.o.allowPrivate) as never,
          signal: AbortSignal.timeout(timeoutMs),
          headers: { "User-Agent": USER_AGENT, Accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
        },
        (response) => {
          const header = (name: string) => [response.headers[name]].flat()[0];
          resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? "", location: header("location"), retryAfter: header("retry-after") });
          response.destroy();
        },
      );
      request.on("error", (error) => {
        if (error instanceof LocalAddressRefused) resolve({ refused: { host: error.host, address: error.address, range: error.range } });
        else if (timeoutMs < this.o.timeoutMs && (error.name === "AbortError" || error.name === "TimeoutError")) resolve({ error: "a request still unanswered", outOfTime: true });
        else resolve({ error: failureOf(error, timeoutMs) });
      });
      request.end();
    });
  }
}

/** A local address a request was not sent to. */
interface Refused {
  host: string;
  address: string;
  range: LocalRange;
}

// ---------------------------------------------------------------------------------------
// The report

export interface LinkReport {
  /** Lines for the terminal, worst first. */
  lines: string[];
  summary: string;
  dead: number;
  moved: number;
  unverified: number;
  checked: number;
  cached: number;
  /** No site answered at all (offline): nothing is listed, and `summary` says so. */
  offline: boolean;
}

/** The terminal's report: each dead, moved or unverified link at each place that cites it. */
export function linkReport(
  links: ReadonlyMap<string, string[]>,
  sources: ReadonlyMap<string, LinkSource[]>,
  answers: ReadonlyMap<string, { answer: LinkAnswer; cached: boolean }>,
): LinkReport {
  type Line = { file: string; line: number; column: number; text: string };
  const dead: Line[] = [];
  const moved: Line[] = [];
  const unverified: Line[] = [];
  for (const [url, { answer }] of answers) {
    const found: Omit<Line, "text">[] = sources.get(url)?.length
      ? sources.get(url)!
      : [{ file: `(shown on ${(links.get(url) ?? []).join(", ")}; not found written in the content or the theme)`, line: 0, column: 0 }];
    for (const place of found) {
      const at = place.line > 0 ? `${place.file}:${place.line}:${place.column}` : place.file;
      if (answer.kind === "dead") dead.push({ ...place, text: `${at}: dead link ${url}: ${answer.reason}` });
      else if (answer.kind === "moved") moved.push({ ...place, text: `${at}: moved permanently (${answer.status}): ${url} is now ${answer.to}; update the link` });
      else if (answer.kind === "unverified") unverified.push({ ...place, text: `${at}: not verified ${url}: ${answer.reason}` });
    }
  }
  // In the order an author goes through the files: by file, then line.
  const inOrder = (lines: Line[]) =>
    lines.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column)).map((l) => l.text);
  const count = (kind: LinkAnswer["kind"]) => [...answers.values()].filter((a) => a.answer.kind === kind).length;
  const cached = [...answers.values()].filter((a) => a.cached).length;
  const d = count("dead");
  const m = count("moved");
  const u = count("unverified");
  const pages = new Set([...links.values()].flat()).size;
  let summary = `Checked ${answers.size} external link${answers.size === 1 ? "" : "s"} on ${pages} page${pages === 1 ? "" : "s"}${cached > 0 ? ` (${cached} answered from the last day's checks)` : ""}: ${d} dead, ${m} moved permanently${u > 0 ? `, ${u} not verified` : ""}.`;
  if (isOffline(answers)) {
    const failed = [...answers].filter(([, a]) => !a.cached && isNetworkFailure(a.answer));
    const hosts = new Set(failed.map(([url]) => new URL(url).host)).size;
    const reason = failed[0]![1].answer.kind === "dead" ? failed[0]![1].answer.reason : "";
    const local = [...answers.values()].filter((a) => isNotAsked(a.answer)).length;
    const notAsked = local > 0 ? ` ${local} link${local === 1 ? "" : "s"} to local addresses ${local === 1 ? "was" : "were"} not asked (--allow-private asks them).` : "";
    summary = `No site answered at all: every one of the ${failed.length} links to ${hosts} sites failed before any answer (${reason}). Is this machine offline? No link is reported dead; check again once connected.${notAsked}`;
    return { lines: [], summary, dead: 0, moved: m, unverified: u, checked: answers.size, cached, offline: true };
  }
  return { lines: [...inOrder(dead), ...inOrder(moved), ...inOrder(unverified)], summary, dead: d, moved: m, unverified: u, checked: answers.size, cached, offline: false };
}

/** A request that failed before any site answered (no such host, no route, refused, reset, timed out). */
const isNetworkFailure = (answer: LinkAnswer) => answer.kind === "dead" && answer.status === undefined && isNetworkReason(answer.reason);

/** A link to a local address, not asked (without --allow-private). */
const isNotAsked = (answer: LinkAnswer) => answer.kind === "unverified" && answer.reason.startsWith("not asked:");

/**
 * True when this run reached no site at all: links of two sites or more were asked, every one
 * failed on the network, and no site answered anything, now or in the kept answers (a 429 is an
 * answer). One site failing alone is that site's problem; a link not asked (a local address)
 * says nothing either way.
 */
function isOffline(answers: ReadonlyMap<string, { answer: LinkAnswer; cached: boolean }>): boolean {
  const asked = [...answers].filter(([, a]) => !a.cached);
  const failed = asked.filter(([, a]) => isNetworkFailure(a.answer));
  const answered = [...answers].some(([, { answer }]) => answer.kind === "ok" || answer.kind === "moved" || answer.status !== undefined);
  return !answered && failed.length > 0 && new Set(failed.map(([url]) => new URL(url).host)).size >= 2;
}

/** Everything the command does after the build: the links of the pages, their sources, their answers. */
export async function checkSiteLinks(input: {
  pages: Iterable<readonly [route: string, html: string]>;
  /** Folders the addresses are written in (content, the theme), searched for file:line. */
  sourceDirs: readonly string[];
  /** Files are shown relative to this folder. */
  relativeTo: string;
  options?: CheckOptions;
}): Promise<LinkReport> {
  const links = externalLinks(input.pages);
  const sources = locateLinks(links.keys(), input.sourceDirs, input.relativeTo);
  const answers = await new LinkChecker(input.options).check([...links.keys()]);
  return linkReport(links, sources, answers);
}

/**
 * The orchestrator. A build runs these stages in this order, each a function of its own
 * module that takes plain data (what survives `structuredClone`) and returns plain data:
 *
 *   load → routes (and old addresses) → Markdown → checks → images → assets → render → write → links → cards → feed → commit
 *
 * (each card is named by its key before it is drawn: the pages need no card's bytes, and the
 * cards are drawn while the assets are bundled or, for `cafe start`, once the pages are served)
 *
 * Content errors are collected across the stages up to the images and reported together,
 * with those of the links of the pages, rendered all the same (written nowhere): the site is
 * written only when there are none. A stage never writes to the cache or to
 * another stage's data: it returns what it made (and what the cache should keep), and the
 * orchestrator stores it. Each run starts from one record of the previous build
 * (`PreviousBuild`) and returns the next one: watch mode's `update` decides what to read again
 * and runs the same stages.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { articleModel, displayPath, isLeftOut, loadArticleFile, loadStage, type Article, type ArticleStore, type LoadedContent } from "../stages/load/content.js";
import { byPlace, staged, type ContentIssue, type ContentWarning, type Staged } from "../lib/errors.js";
import { buildRoutes, byCodePoint, type Route } from "../stages/routes/routes.js";
import { addressStage, type EarlierArticles } from "../stages/routes/addresses.js";
import { knownAfter, updatePublishedRoutes, type KnownArticles } from "../stages/routes/published-routes.js";
import type { ThemeSources } from "../stages/checks/rendered-links.js";
import { markdownStage, type MarkdownBodies, type MarkdownStageOutput, type RenderedBody, type ValidBlockData } from "../stages/markdown/markdown-stage.js";
import { checkStage, renderedLinkStage, type CheckOutput } from "../stages/checks/checks.js";
import type { RuleMemory, RuleState } from "../stages/checks/editorial-rules.js";
import { DEFAULT_WIDTHS, imageStage, noImageMemory, showsImage, type ImageMemory } from "../stages/images/images.js";
import { noCardMemory, type CardMemory, type LoadedFont } from "../stages/cards/cards.js";
import { cardPlan, cardStage } from "./draw-cards.js";
import { feedData, feedXml, type FeedData } from "../stages/render/site-files.js";
import { hashOf, hashOfAll } from "../lib/hash.js";
import { assetStage, type AssetSource } from "../stages/assets/assets.js";
import type { RenderedFile } from "../stages/render/render.js";
import { keptPages, nextReaders, renderStage, unwrittenLinkStage, type PagesChecked, type PageThreads } from "./render-pages.js";
import { siteValues } from "../lib/site-values.js";
import { listFiles, type StatedFiles } from "../lib/files.js";
import { heapFor, leanerWhile } from "../lib/heap.js";
import { LEAST_ENTRIES, oneThread, onWorker, POOL_THRESHOLD, poolBeforeLoad, streamSlices, threadsFor, workerPool, type Threads, type WorkerModules } from "./threads.js";
import type { Shared, SiteShare } from "./tasks.js";
import { commitStage, writeLater, writeStage } from "../stages/write/write.js";
import { articlesSince, cardFrame, sinceRecord } from "../incremental/since-record.js";
import { emptyRecord, noSiteCache, type BuildRecord, type FileEntry, type SiteCache } from "./build-record.js";
import type { SiteWriter } from "../stages/write/writers.js";
import type { Theme } from "../theme.js";

/** The engine's folder when it runs from its sources (the launcher's bundle is told: `BuildOptions.engineDir`). */
const ENGINE_DIR = fileURLToPath(new URL("..", import.meta.url));

export interface BuildOptions {
  contentDir: string;
  projectRoot: string;
  theme: Theme;
  /** Build `draft: true` articles too (dev mode). */
  drafts?: boolean;
  /** Files copied into the site as they are; `public/` of the project unless told otherwise. */
  publicDir?: string;
  /** The full Markdown pipeline for every file: the reference the lean pipeline must equal (tests). */
  reference?: boolean;
  /** The persistent cache (none: every stage does all its work, and the last build is kept in memory). */
  cache?: SiteCache;
  /**
   * The record of published addresses (published-routes.ts): `<contentDir>/published-routes.txt`
   * unless told otherwise; false: none. A build without drafts adds its new addresses to it.
   */
  publishedRoutes?: string | false;
  /** Hands each stage's data to the next through `structuredClone`, as a worker thread would see it (tests). */
  cloneBetweenStages?: boolean;
  /** Folders of the theme's code, relative to the project root: a broken link a template writes is named at its line there. */
  themeFolders?: readonly string[];
  /** What the site's editorial rules find is an error, not a warning (`--strict`, CI). */
  strict?: boolean;
  /**
   * The modules a worker thread loads (the launcher's bundle): without them every stage runs
   * on the build's own thread.
   */
  workers?: WorkerModules;
  /** How many threads compute (`--threads`); default: every core for a site large enough to gain from them (threads.ts). */
  threads?: number;
  /** The engine's folder (its islands' runtime is bundled from there); by default the one this module runs from, as from its sources. */
  engineDir?: string;
  /**
   * The keys of the theme's parts by the modules each reaches (incremental/code-keys.ts): a
   * body or page is kept across an edit of another part's code. None: every part is keyed by
   * the cache's version (all of the code).
   */
  code?: Readonly<Record<string, string>>;
  /**
   * Told once every page is written and checked, before the social cards are drawn and the
   * feed written (`cafe start` serves from then on; the build is published once they are).
   * Without it the cards are drawn while the assets are bundled.
   */
  onPagesWritten?: () => void;
  /**
   * The version of the code (`code.version`, engine/incremental/code-keys.ts): bundles of the
   * theme's assets are then kept in a content-addressed cache (stages/assets/asset-cache.ts)
   * and taken from it by any later build of this code from the same sources. None: esbuild
   * bundles them whenever the last build's cannot be taken. `readAssets: false` (`--force`)
   * stores them without looking.
   */
  codeVersion?: string;
  readAssets?: boolean;
  /**
   * Gives, once, the content's files as the inputs' fingerprint stat'ed them before the build
   * (incremental/fingerprint.ts, `takeStated`): the first run's load takes them instead of
   * stat'ing each article again. A function, not the states: the caller's options object lives
   * as long as its call to `build` (V8 keeps it in the caller's frame), and would hold every
   * file's state through the render (at 100,000 articles ~20 MB).
   */
  takeStated?: () => StatedFiles | undefined;
}

export interface BuildResult {
  ok: boolean;
  routes: Route[];
  errors: ContentIssue[];
  warnings: ContentWarning[];
  /** Files written or removed, relative to the site root. */
  changed: string[];
  /** Pages rendered in this run (the others were unchanged and taken as they were). */
  rendered: number;
  /** The articles' Markdown bodies parsed in this run, and those kept from the last run or the cache. */
  bodies?: { parsed: number; kept: number };
  /** The values the last build's pages read that were hashed to check them (watch mode compares a page's own route, body and card with the last check's instead). */
  hashed?: number;
  /** The pages' own values (routes, bodies, cards) compared with the last check's (watch mode): after a save of articles alone, theirs and the few routes that are not an article's. */
  compared?: number;
  /** The items the render stage handed the write stage: each page made, each run of pages kept as they were, each other file. */
  handedOver?: number;
  /** The routes of the last build's record and of this one's gone over to list the last build's pages, to carry the pages' readers and to find the files that went: after a save that kept every route, the pages made again alone (render-pages.ts, `KeptPages.sameRoutes`). */
  walked?: number;
  /** The articles the editorial rules read in this run, and those whose findings were kept from the last run or the cache (none without a rules file). */
  rules?: { read: number; kept: number };
  /** How long each stage took, in milliseconds, in order (`--verbose` prints them). */
  timings?: [stage: string, ms: number][];
  /** The most threads a stage of this run computed its entries on (1: the build's own alone). */
  threads?: number;
  /** Where this run's assets came from: the last build's output (`kept`), the content-addressed cache (`cached`, esbuild not run), or esbuild (`bundled`). */
  assets?: AssetSource;
  /** Addresses added to the record of published addresses. */
  published?: string[];
  /** Derived pages (a tag's listing) no article makes any more, taken out of the record. */
  retired?: string[];
}

/** What the load stage gives the others: the content, and the articles that did not load. */
export type Loaded = Staged<LoadedContent>;

/** What a caller asks of one run beside its input. */
export interface RunOptions {
  /** Routes (paths) rendered and handed to the writer before every other page (render-pages.ts, `RenderInput.first`). */
  first?: readonly string[];
  /**
   * No run of this builder follows (`npm run build` makes one): what a run keeps only for the
   * next one of the same process is let go as soon as the run is done with it: the editorial
   * rules' state (`RuleState`) before the render (at 20,000 articles a heap snapshot of a
   * one-article edit held 4–5 MB of it, three maps and an object a text), the rest of the
   * previous build's record (`PreviousBuild`) before the cache's save.
   */
  last?: boolean;
}

/** A run as the builder starts it: the caller's options, and what the builder knows of the change (`update`). */
type StageOptions = RunOptions & { newAssets?: boolean; articlesOnly?: boolean };

/** What a run's stages made for the cache to keep, stored once the run is over. */
interface Kept {
  articles?: ArticleStore;
  /** A whole load's article files: the cache lets go of every other's entry. */
  present?: ReadonlySet<string>;
  markdown?: MarkdownStageOutput["keep"];
  /** Work started beside the stages (the assets): settled before the run ends, whatever stopped it. */
  beside?: Promise<unknown>;
  /** The record of a run that succeeded: given to the cache after the run's entries (`BuildCache.withRecord`). */
  record?: BuildRecord;
}

/**
 * The one record of the previous build, handed from a run to the next and never changed:
 * its load (watch mode reads again only what changed), its Markdown, its routes, the
 * articles earlier runs read (where a vanished page went), what the image and card stages
 * remember, and what its output holds (`output`, which the cache stores).
 */
export interface PreviousBuild {
  /** The last attempt's load, successful or not. */
  loaded?: Loaded;
  markdown: MarkdownBodies;
  /** The routes of the last successful build. */
  routes?: Route[];
  /** Articles the runs before the last one read, by route. */
  known: KnownArticles;
  /** The articles of the last successful run: joined to `known` only when the next run starts (a one-shot build never pays for it). */
  articles: readonly Article[];
  images: ImageMemory;
  cards: CardMemory;
  /** What the editorial rules found in each article (an article not saved since is not read again); before the first run, the cache's (`output.rules`). */
  rules?: RuleMemory;
  /** What the rules' last run found out beside that memory: the next one looks only at the texts saved since and those it found something in. */
  ruleState?: RuleState;
  /** What the output holds: each page with its dependencies, the assets, media and old addresses' files. */
  output: BuildRecord;
  /** What the last successful run's check of the pages was made against: the record in `output` (watch mode; render-pages.ts, `keptPages`). */
  checked?: PagesChecked;
}

/** The record of a builder with no run behind it: the output's record (the cache's), nothing else known. */
const noRunBefore = (output: BuildRecord): PreviousBuild => ({ markdown: new Map(), known: new Map(), articles: [], images: noImageMemory(), cards: noCardMemory(), output });

/** Bodies whose HTML is written to the store in one write as they come (`renderBodies`). */
const STORED_AT_ONCE = 256;

/** How stage data crosses from one stage to the next: as it is, or (tests) through `structuredClone`, as a thread would see it. */
type HandOver = <T>(value: T) => T;

export class SiteBuilder {
  private readonly cache: SiteCache;
  private readonly publicDir: string;
  private readonly handOver: HandOver;
  /** The one record of the previous build: each run starts from it and replaces it whole. */
  private previous: PreviousBuild;
  /** The build's own thread, for work too small to hand out. */
  private readonly here: ReturnType<typeof oneThread>;
  /** The worker pool, once a run is large enough for it; kept for every later run (watch mode). */
  private pool?: Promise<Threads>;
  /** The most threads a stage of the current run was given (`BuildResult.threads`). */
  private threadsUsed = 1;
  /** The warnings of the last run: a save that runs no stage (a file of public/ copied) still has them. */
  private warnings: ContentWarning[] = [];
  /** How many articles the last run loaded: the size of the site a stage's pool is started for (`threadsFor`). */
  private articleCount = 0;
  /** Gives the files the fingerprint stat'ed (`BuildOptions.takeStated`), until the first whole load takes them: a later one stats what it reads. */
  private takeStated?: () => StatedFiles | undefined;

  /** The builder's options, without the fingerprint's (`takeStated`: asked by the first load, not for the builder's life). */
  readonly options: BuildOptions;

  constructor({ takeStated, ...options }: BuildOptions) {
    this.options = options;
    this.takeStated = takeStated;
    this.cache = options.cache ?? noSiteCache();
    this.publicDir = options.publicDir ?? path.join(options.projectRoot, "public");
    this.handOver = options.cloneBetweenStages ? (value) => structuredClone(value) : (value) => value;
    this.previous = noRunBefore(this.cache.lastRecord());
    this.here = oneThread(options.theme);
  }

  /**
   * Starts the worker pool when a site of `articles` articles gains from it (and the workers'
   * modules are known); its threads load the site's code while this one reads the content.
   */
  private startPool(articles: number): void {
    const { workers, threads } = this.options;
    const count = threadsFor(articles, threads);
    if (this.pool || !workers || count <= 1) return;
    this.pool = workerPool(count - 1, workers, this.here);
    this.pool.catch(() => {});
  }

  /** The threads for `entries` entries of a stage: the pool when it runs and the work is large enough to share, else this thread. */
  private async threadsFor(kind: keyof typeof LEAST_ENTRIES, entries: number): Promise<Threads> {
    const enough = entries >= LEAST_ENTRIES[kind] || (this.options.threads !== undefined && entries > 0);
    // Cards to draw start the workers whatever the site's size: one card is the work of a hundred pages.
    if (kind === "cards" && enough && this.options.threads === undefined) this.startPool(POOL_THRESHOLD);
    // A build from a warm cache starts them here, for a large site, once a stage has the work (`poolBeforeLoad`).
    else if (enough) this.startPool(this.articleCount);
    const threads = await (this.pool && enough ? this.pool : this.here);
    this.threadsUsed = Math.max(this.threadsUsed, threads.count);
    return threads;
  }

  /** Stops the worker threads, if any, and lets go of the cache's claim on its store (a one-shot build's process exits anyway; watch mode and tests close it). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await (await pool?.catch(() => undefined))?.close();
    // Another build of the site may now remove the files of the store this one read.
    await this.cache.release();
  }

  /**
   * Builds the whole site into `writer`, reading the whole content folder; saves the cache when
   * it succeeds. `first`: routes to render and hand to the writer before the others (watch mode:
   * the pages open in a browser, reloaded as soon as they are written).
   */
  async build(writer: SiteWriter, { first, last }: RunOptions = {}): Promise<BuildResult> {
    // The size of the site, before reading it: the workers start while this thread reads the
    // content, when there is every body and page to make (else a stage starts them if it needs them).
    const cachedFiles = this.cache.files.size;
    let listed: number | undefined;
    const articles = () => cachedFiles || (listed ??= listFiles(path.join(this.options.contentDir, "articles")).filter((f) => f.endsWith(".md")).length);
    if (this.options.workers && !this.pool && poolBeforeLoad({ cachedFiles, asked: this.options.threads })) this.startPool(articles());
    // A large site's heap grows by less than V8's default past what it holds alive (lib/heap.ts).
    heapFor(articles());
    const result = await this.run(() => this.loadAll(), writer, { first, last });
    if (result.ok) {
      const lap = stopwatch();
      lap("cache save", await this.saveCache());
      result.timings?.push(...lap.laps);
    }
    return result;
  }

  /**
   * One run of the stages. What the cache should keep of the articles parsed and the bodies
   * rendered is stored once the run is over (the cache is what earlier runs read while it lasts).
   */
  private async run(load: () => Promise<Loaded> | Loaded, writer: SiteWriter, options: StageOptions = {}): Promise<BuildResult> {
    const kept: Kept = {};
    this.threadsUsed = 1;
    try {
      const result = await this.stages(load, writer, kept, options);
      this.warnings = result.warnings;
      return { ...result, threads: this.threadsUsed };
    } finally {
      await kept.beside;
      if (kept.present) this.cache.keepOnly(kept.present);
      if (kept.articles) this.cache.replace(kept.articles);
      if (kept.markdown) this.cache.add(kept.markdown);
      if (kept.record) this.cache.record(kept.record);
      // The record the next run starts from: plain data, like everything a stage hands on. After
      // the builder's last run (`RunOptions.last`), its output's record alone, which the cache
      // holds too: the rest was held through the cache's save for a run that never comes (at
      // 100,000 articles ~35 MB of a one-article edit's heap at its peak, the save's).
      this.previous = options.last ? noRunBefore(this.previous.output) : this.handOver(this.previous);
    }
  }

  /**
   * The stages, in order. `load` reads the whole content folder, or (watch mode) what changed.
   * Every stage returns `{ value, errors, warnings }` (`Staged`); `found` collects what they
   * found wrong, and the build stops before anything is published if any of it is an error.
   */
  private async stages(load: () => Promise<Loaded> | Loaded, writer: SiteWriter, kept: Kept, { newAssets = false, articlesOnly = false, first, last = false }: StageOptions): Promise<BuildResult> {
    const { theme, projectRoot, reference, contentDir, publishedRoutes: recordFile } = this.options;
    const { publicDir, cache, previous } = this;
    const pass = this.handOver;
    const lap = stopwatch();
    const found = findings();
    // A run that stops lets the work started beside the stages (the assets, the cards) finish before the writer lets go.
    const stop = async () => (await kept.beside, fail(writer, found));
    const loaded = found.add(lap("load", pass(await load())));
    this.previous = { ...previous, loaded };
    kept.articles = loaded.value.parsed;
    const { content, failed } = loaded.value;
    if (!content) return stop();
    kept.present = loaded.value.present;
    this.articleCount = content.articles.length;
    const table = found.add(lap("routes", pass(buildRoutes(content, theme, new Set([...failed.values()].map((f) => f.route)))))).value;
    const earlier: EarlierArticles = { known: knownAfter(previous.known, previous.articles), cachedArticles: cache.files };
    const addresses = found.add(lap("addresses", pass(addressStage({ content, table, contentDir, publicDir, recordFile, earlier, derived: theme.derivedPages })))).value;
    const output = previous.output.output !== undefined && previous.output.output === writer.reusable ? previous.output : emptyRecord();
    // What changed since the recorded build, for a run with no earlier run of its own (a one-shot build, watch mode's first)
    // from a store whose entries that build left (incremental/since-record.ts): the rules and the pages' check look at that alone.
    const present = !previous.checked && cache.withRecord && output === previous.output ? kept.present : undefined;
    const articlesChanged = present && articlesSince({ articles: content.articles, present, stored: cache.files, table });
    // The assets and the cards ask the writer file by file; the pages, all at once (renderStage).
    const reuse = async (file: string, size?: number) => (await writer.reuse(new Map([[file, size]]))).has(file);
    // The assets need the theme and the site's settings only: esbuild bundles them in its own
    // process while the bodies are parsed here, and they are awaited before the pages (a run
    // that stops earlier waits for them too, before it lets the writer go).
    // Watch mode, after article files only: the assets' sources are as the last run found them (no need to read them again).
    const sourcesKnown = articlesOnly && output === previous.output && previous.routes !== undefined;
    const bundled = assetStage({ projectRoot, theme, site: content.site.value, previous: output.assets, force: newAssets, sourcesKnown, reuse, engineDir: this.options.engineDir ?? ENGINE_DIR, cache: this.assetCache }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    kept.beside = bundled;
    // The listings and site blocks' data, computed once here; with the content and the routes, what every thread reads.
    const values = siteValues(content, theme);
    const code = this.options.code;
    const shares = new Map<Threads, Shared<SiteShare>>();
    const site = (threads: Threads) => shares.get(threads) ?? shares.set(threads, threads.share<SiteShare>({ content, table, values, code })).get(threads)!;
    /**
     * The bodies of `articles`, rendered on the threads. Each one the cache keeps has its HTML
     * written to the store as it comes and is held without it (`RenderedBody.textAt`): the pages
     * read it back when they are rendered. `held`: the HTML stays in the entries (bodies made
     * again for the pages that asked for them).
     */
    const renderBodies = async (articles: readonly Article[], { aside = false, valid, held = aside }: { aside?: boolean; valid?: ValidBlockData; held?: boolean } = {}): Promise<RenderedBody[]> => {
      // Articles that are not in the content (their front matter failed) are rendered here, where they are.
      const threads = aside ? this.here : await this.threadsFor("bodies", articles.length);
      // Each slice with what the last parse of its bodies found valid among their blocks' data.
      const validOf = (files: string[]) => (valid ? { valid: Object.fromEntries(files.flatMap((file) => (valid[file] ? [[file, valid[file]!]] : []))) } : {});
      // A body is kept for the cache (`keep`) only when there is one.
      // A worker running the editorial rules (below) takes bodies once it is done with them: this thread parses them meanwhile.
      const task = (files: string[]) => ({ kind: "bodies" as const, site: site(threads), files, lean: !reference, keep: cache.enabled && !aside, ...validOf(files), ...(aside ? { aside: articles } : {}) });
      const made: RenderedBody[] = [];
      let from = 0;
      /** The HTML of the bodies made since the last call that the cache keeps, into the store. */
      const store = async () => {
        const kept = made.slice(from).filter((body) => body.keep && body.entry.result.html !== undefined);
        from = made.length;
        const places = kept.length > 0 ? await cache.appendTexts(kept.map((body) => body.entry.result.html!)) : undefined;
        if (!places) return;
        for (const [i, body] of kept.entries()) {
          body.textAt = places[i];
          body.entry.result.html = undefined;
        }
      };
      for await (const body of streamSlices(threads, articles.map((a) => a.file), task, { workersFrom: rulesAside, ahead: Number.POSITIVE_INFINITY })) {
        made.push(body);
        if (!held && made.length - from >= STORED_AT_ONCE) await store();
      }
      if (!held) await store();
      return made;
    };
    // With workers and no memory of the editorial rules to start from (a first or forced build: every text to read),
    // a worker runs them while this thread parses bodies; the checks take what it found (any failure: run here).
    const ruleMemory = previous.rules ?? previous.output.rules;
    const rulesAside = this.pool && !ruleMemory && content.rules?.value ? this.pool.then((threads) => onWorker(threads, { kind: "rules", site: site(threads) })).catch(() => undefined) : undefined;
    const markdownInput = { content, table, values, code, previous: previous.markdown, cached: cache.files, failed };
    const { bodies: markdown, keep, parsed, made: bodiesMade, fresh, since: bodiesFrom } = found.add(lap("Markdown", pass(await markdownStage(markdownInput, renderBodies)))).value;
    const bodies = { parsed, kept: content.articles.length - parsed };
    kept.markdown = keep;
    this.previous = { ...this.previous, markdown };
    const pageThreads: PageThreads = async (count) => {
      const threads = await this.threadsFor("pages", count);
      return { threads, site: () => site(threads) };
    };
    const ruleRun = await rulesAside;
    const checked = this.tookChecks(found.add(lap("checks", pass(await checkStage({ content, table, markdown, addresses, earlier, strict: this.options.strict, rules: ruleMemory, ruleState: previous.ruleState, ruleRun, touched: loaded.value.touched, changedSince: articlesChanged?.changed }, theme)))).value, last);
    const ruleWork = checked.rules && { read: checked.read.length, kept: content.articles.length - checked.read.length };
    // The HTML of bodies the cache kept, read from its store for the pages that show them. One
    // the store lost or that is not what its hash says (a damaged pack) is rendered again from
    // its article, and kept again: the store can only save work, never change a page.
    // What the check reads of the last build's pages (their links, ids…), read from the store for the routes it asks.
    const pageChecks = (routes: readonly string[]) => cache.fill("pages", routes);
    // A body this run made is where it wrote it (`keep`: the cache's entries take it once the run is over); any other, where the cache kept it.
    const placeOf = (file: string) => keep.get(file)?.textAt;
    const storedBodies = async (files: readonly string[]) => {
      const made = new Map(files.flatMap((file) => (placeOf(file) ? [[file, placeOf(file)!] as const] : [])));
      const texts = await cache.readTexts(files.filter((file) => !made.has(file)));
      for (const [file, text] of await cache.readTextsAt(made)) texts.set(file, text);
      if (files.every((file) => texts.has(file) && hashOf(texts.get(file)!) === markdown.get(file)?.htmlHash)) return texts;
      const byFile = new Map(content.articles.map((a) => [a.file, a]));
      const lost = files.flatMap((file) => {
        const text = texts.get(file);
        const article = byFile.get(file);
        return article && (text === undefined || hashOf(text) !== markdown.get(file)?.htmlHash) ? [article] : [];
      });
      const again = new Map<string, FileEntry>();
      for (const [i, { entry }] of (await renderBodies(lost, { held: true })).entries()) {
        if (entry.result.html === undefined) continue;
        texts.set(lost[i]!.file, entry.result.html);
        again.set(lost[i]!.file, { sourceHash: entry.sourceHash, text: entry.result.html });
      }
      cache.add(again);
      return texts;
    };
    const storedBody = (file: string) => {
      const entry = cache.files.get(file);
      const at = placeOf(file) ?? (entry?.text === undefined ? entry?.textAt : undefined);
      return at ? cache.readTextAtSync(at) : entry?.text;
    };
    const imageOptions = { sizes: theme.images?.sizes ?? "100vw", widths: theme.images?.widths ?? DEFAULT_WIDTHS };
    const images = found.add(lap("images", pass(await imageStage({ content, bodies: markdown, projectRoot, publicDir, options: imageOptions, memory: previous.images })))).value;
    this.previous = { ...this.previous, images: images.memory };
    const themeCode = this.themeCode;
    if (found.errors.length > 0) {
      // One run, every error: the pages are rendered all the same, in memory, for their links and
      // #anchors, with the assets the stage started beside gave (their errors reported with the
      // links'; never asked for twice). What it threw is thrown, but when the site's settings did
      // not load: no page is rendered then, and the theme's code was asked about settings it lacks.
      const assetsDone = await bundled;
      const settingsLoaded = !content.unavailable.includes(content.site.file);
      if ("error" in assetsDone && settingsLoaded) throw assetsDone.error;
      const assets = "error" in assetsDone ? staged(undefined) : pass(assetsDone.value);
      const unwritten = { content, table, values, code, markdown, addresses, earlier, images: images.images, assets, previous: previous.output, themeCode, reported: found.errors, storedBodies, storedBody, fill: pageChecks };
      found.add(lap("rendered links", await unwrittenLinkStage(unwritten, theme, pageThreads)));
      return stop();
    }
    const siteUrl = theme.siteMeta(content.site.value).url;
    const cardThreads = (count: number) => this.threadsFor("cards", count);
    const draw = async function* (props: unknown[], fonts: LoadedFont[]) {
      const threads = await cardThreads(props.length);
      const shared = threads.share(fonts);
      yield* streamSlices(threads, props, (slice) => ({ kind: "cards", fonts: shared, props: slice }));
    };
    // Each card is named by its key: the pages name their cards before any is drawn.
    const cardInput = { routes: table.routes, content, siteUrl, projectRoot, memory: previous.cards, previous: output.cards ?? {} };
    const plan = pass(await cardPlan(cardInput, theme));
    // The cards are drawn after the pages are written and checked when someone waits to be
    // served those (`cafe start`), else at once, while esbuild finishes the assets in its own
    // process and the pages are rendered here.
    const drawCards = () => cardStage(plan, cardInput, theme, reuse, draw, (file, png) => writer.write(file, png));
    let drawing = this.options.onPagesWritten ? undefined : drawCards();
    // Settled before the run ends, whatever stops it: a failed build leaves nothing running (cards
    // drawn alongside have stored what they drew in the media cache).
    kept.beside = Promise.all([bundled, drawing?.catch(() => {})]);
    const assetsDone = await bundled;
    if ("error" in assetsDone) throw assetsDone.error;
    const assets = found.add(lap("assets", pass(assetsDone.value))).value;
    if (!assets) return stop();
    const cardsByRoute = plan.byRoute;
    // What may differ since the recorded build: the pages' check hashes no page whose own values it does not name.
    const frame = cardFrame(siteUrl, code);
    const since = articlesChanged && sinceRecord(articlesChanged, bodiesMade, { wanted: plan.wanted, recorded: output.cards ?? {}, frame, recordedFrame: output.cardFrame });
    // The bodies' HTML the cache kept is read from the store by the shell, for the pages it renders (a function: not handed over as data).
    const renderInput = { ...pass({ content, table, values, code, markdown, images: images.images, cards: { byRoute: cardsByRoute }, assets: assets.record, redirects: addresses.redirects.redirects, previous: output.pages, since }), storedBodies, storedBody, fill: pageChecks, first };
    // The pages of the last build taken as they were (what the last run checked is compared, not hashed again), then
    // render yields each page as it is made and write takes it: each is timed on its own.
    const checking = performance.now();
    // A save that read articles alone: what it read again and the bodies the Markdown stage made again are what the pages' check compares.
    const touched = loaded.value.touched;
    const delta = touched && { ...touched, bodiesFrom, fresh };
    const pagesKept = await keptPages(renderInput, theme, (files) => writer.reuse(files), previous.checked, delta);
    const checkedMs = performance.now() - checking;
    const rendering = timed(renderStage(renderInput, theme, pageThreads, pagesKept), pass);
    // The heap grows by less while its thread holds the most (lib/heap.ts).
    const written = await leanerWhile(() => writeStage(writer, rendering, { assets: assets.files, media: images.images.files, publicDir }));
    lap.split("render", checkedMs + rendering.ms, "write");
    // The pages taken as they were are checked again only where a page they link to changed (the last check's findings kept with the record).
    // The last build's record at this build's routes (the very record checked): no page of it went, and only the pages made again are new.
    const samePages = pagesKept.sameRoutes;
    const made = samePages ? written.made : undefined;
    const linkInput = { content, table, pages: written.pages, markdown, addresses, earlier, files: assets.record.files, themeCode, code, inlineScript: assets.record.manifest.inlineScript, favicon: theme.siteMeta(content.site.value).favicon, last: output, fill: pageChecks, made };
    const links = found.add(lap("rendered links", await renderedLinkStage(linkInput))).value;
    if (found.errors.length > 0) return stop();
    // Every page is written and checked: what is left is the cards and the feed.
    this.options.onPagesWritten?.();
    drawing ??= drawCards();
    const cards = found.add(lap("cards", pass(await drawing))).value;
    this.previous = { ...this.previous, cards: cards.memory };
    const lengths = cards.cards.lengths;
    const cardOf = (route: Route) => {
      const card = cardsByRoute.get(route.path);
      return card && { ...card, length: lengths.get(route.path)! };
    };
    const feed = await feedOf(feedData(theme.siteMeta(content.site.value), table.routes, theme.summary, cardOf), output.feed, this.options.codeVersion, reuse);
    const late = lap("write late", await writeLater(writer, feed.xml === undefined ? [] : [["feed.xml", feed.xml]])).concat(cards.cards.changed);
    const media = [...images.images.files.keys(), ...cards.cards.files];
    const mediaFiles = [...new Set([...media, ...Object.values(cards.cards.kept).map((card) => card.file)])];
    const next: BuildRecord = { output: writer.output, pages: written.pages, assets: assets.record, media: mediaFiles, redirects: written.redirectFiles, cards: cards.cards.kept, rules: checked.rules, links, feed: feed.kept, sources: loaded.value.sources, cardFrame: frame };
    const { gone, walked: committed } = lap("commit", await commitStage(writer, { previous: output, next, samePages }));
    kept.record = next;
    const { readers } = pagesKept;
    const walked = pagesKept.walked + committed + (readers ? nextReaders(readers, output.pages, next.pages, { last: previous.checked!.snapshot.table, next: table }, made) : 0);
    this.previous = { ...this.previous, routes: table.routes, known: earlier.known, articles: content.articles, output: next, checked: { pages: next.pages, snapshot: pagesKept.snapshot, readers } };
    // The addresses published for the first time join the record, the retired derived pages leave it (never from a build with drafts).
    const recorded = addresses.record && !this.options.drafts ? addresses.record : undefined;
    const published = recorded ? await updatePublishedRoutes(recorded, addresses.answered, addresses.retired) : [];
    const retired = recorded ? addresses.retired : [];
    const changed = written.changed.concat(late, gone).sort(byCodePoint);
    return { ok: true, routes: table.routes, errors: [], warnings: found.warnings, changed, rendered: written.rendered, hashed: pagesKept.hashed, compared: pagesKept.compared, handedOver: rendering.items, walked, bodies, rules: ruleWork, timings: lap.laps, published, retired, assets: assets.source };
  }

  /** The content-addressed cache of the assets' bundles, for a builder told its code's version. */
  private get assetCache(): { codeVersion: string; read: boolean } | undefined {
    const { codeVersion, readAssets = true } = this.options;
    return codeVersion === undefined ? undefined : { codeVersion, read: readAssets };
  }

  /** Where the theme's code is, for the rendered-link check to name the line of a link a template writes. */
  private get themeCode(): ThemeSources | undefined {
    const { projectRoot, themeFolders } = this.options;
    return themeFolders && { projectRoot, folders: themeFolders.map((folder) => path.resolve(projectRoot, folder)) };
  }

  /**
   * What the checks found, kept for the next run (the rules' memory; their state too, unless this
   * run is the last: `RunOptions.last`), given back without the state: the run's frame holds what
   * this gives until the run ends.
   */
  private tookChecks({ ruleState, ...checked }: CheckOutput, last: boolean): Omit<CheckOutput, "ruleState"> {
    this.previous = { ...this.previous, rules: checked.rules, ruleState: last ? undefined : ruleState };
    return checked;
  }

  /** Load: the whole content folder (what the cache kept of each article is taken when its text is the same). */
  private loadAll(): Promise<Loaded> {
    const { contentDir, theme, drafts, projectRoot } = this.options;
    // The settings, collections, rules and data as the last build validated them: valid for the same text and the same code
    // (the keys of the theme's parts here; the cache's version, for the rest, empties a store of another).
    const kept = { sources: this.previous.output.sources, code: JSON.stringify(Object.entries(this.options.code ?? {}).sort()) };
    const stated = this.takeStated?.();
    this.takeStated = undefined;
    return loadStage({ contentDir, drafts, projectRoot, previous: this.cache.files, kept, stated }, theme);
  }

  /** Writes the persistent cache (a build does it when it succeeds; watch mode when it is idle). */
  saveCache(): Promise<void> {
    return this.cache.save();
  }

  /**
   * Watch mode: after files changed (absolute paths), runs the stages again. Changed articles
   * are read again into the content of the last run; any other content file reads the whole
   * content again; a change outside content/ (the stylesheet) bundles the assets again; a
   * file of public/ is copied (or removed) on its own, unless an article shows it as an image.
   * The pages' dependencies decide which are rendered.
   */
  async update(changed: readonly string[], writer: SiteWriter, { first }: RunOptions = {}): Promise<BuildResult> {
    const before = this.previous.loaded;
    // A settings, collection or data file that did not load: read the whole content again.
    if (!before?.value.content || before.value.content.unavailable.length > 0) return this.build(writer, { first });
    const { contentDir } = this.options;
    const inside = (dir: string, file: string) => !path.relative(dir, file).startsWith("..");
    const articlesDir = path.join(contentDir, "articles");
    const copied: string[] = [];
    for (const file of changed.filter((f) => inside(this.publicDir, f))) {
      const rel = path.relative(this.publicDir, file);
      if (!(await writer.copyFile(file, rel))) await writer.remove(rel);
      copied.push(rel);
    }
    const rest = changed.filter((f) => !inside(this.publicDir, f) || showsImage(this.previous.images, f));
    let result: BuildResult;
    if (rest.length === 0 && this.previous.routes) {
      result = { ok: true, routes: this.previous.routes, errors: [], warnings: this.warnings, changed: [], rendered: 0 };
    } else if (!rest.some((f) => inside(contentDir, f))) {
      // The content as it was, and what its settings said (a placeholder address): said again by this run.
      result = await this.run(() => ({ ...before, value: { ...before.value, parsed: new Map() } }), writer, { newAssets: true, first });
    } else if (!rest.every((f) => inside(articlesDir, f) && f.endsWith(".md"))) {
      result = await this.build(writer, { first });
    } else {
      result = await this.run(() => this.reloadArticles(before, rest, articlesDir), writer, { articlesOnly: true, first });
    }
    return { ...result, changed: [...copied, ...result.changed].sort(byCodePoint) };
  }

  /** Load, for watch mode: the last content with the given article files read again (added, edited or deleted). */
  private reloadArticles(before: Loaded, files: readonly string[], articlesDir: string): Loaded {
    const content = before.value.content!;
    const { theme, drafts, projectRoot } = this.options;
    const model = articleModel(theme);
    const display = displayPath(projectRoot);
    const articles = new Map(content.articles.map((a) => [a.file, a]));
    const failed = new Map(before.value.failed);
    const draftRoutes = new Set(content.draftRoutes);
    const parsed: ArticleStore = new Map();
    for (const file of files) {
      const shown = display(file);
      const loaded = loadArticleFile(articlesDir, file, model, display, this.cache.files, parsed);
      failed.delete(shown);
      if (loaded && "errors" in loaded) {
        // Its last good version stays in the site until it is fixed: its route, else its path's.
        failed.set(shown, { route: articles.get(shown)?.route ?? loaded.route, errors: loaded.errors });
        continue;
      }
      const old = articles.get(shown);
      if (old) draftRoutes.delete(old.route);
      const article = loaded?.article;
      if (article && !isLeftOut(article, drafts)) articles.set(shown, article);
      else articles.delete(shown);
      if (article && isLeftOut(article, drafts)) draftRoutes.add(article.route);
    }
    const next = { ...content, draftRoutes, articles: [...articles.values()].sort((a, b) => byCodePoint(a.file, b.file)) };
    const touched = { from: content.articles, files: new Map(files.map((file) => [display(file), articles.get(display(file))])) };
    // The settings were not read again: what they said (a placeholder address) is said again by this run.
    return staged({ content: next, failed, parsed, sources: before.value.sources, touched }, [...failed.values()].flatMap((f) => f.errors), before.warnings);
  }
}

/** Builds the whole site once. */
export async function buildSite(options: BuildOptions & { writer: SiteWriter }): Promise<BuildResult> {
  return new SiteBuilder(options).build(options.writer);
}

/** What the stages of a run found wrong, gathered as they return. */
function findings() {
  const errors: ContentIssue[] = [];
  const warnings: ContentWarning[] = [];
  /** Notes a stage's errors and warnings; gives back the stage's result. */
  const add = <T,>(result: Staged<T>): Staged<T> => {
    errors.push(...result.errors);
    warnings.push(...result.warnings);
    return result;
  };
  return { errors, warnings, add };
}

async function fail(writer: SiteWriter, found: { errors: ContentIssue[]; warnings: ContentWarning[] }): Promise<BuildResult> {
  await writer.abort();
  return { ok: false, routes: [], errors: byPlace(found.errors), warnings: found.warnings, changed: [], rendered: 0 };
}

/** Times stages one after another: `lap(name, value)` notes the time since the last lap and gives the value back. */
function stopwatch() {
  let last = performance.now();
  const laps: [string, number][] = [];
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const lap = <T,>(stage: string, value: T): T => {
    const now = performance.now();
    laps.push([stage, round(now - last)]);
    last = now;
    return value;
  };
  /** Two stages that ran interleaved: `ms` of the time since the last lap was the first's, the rest the second's. */
  const split = (first: string, ms: number, second: string) => {
    const now = performance.now();
    laps.push([first, round(ms)], [second, round(now - last - ms)]);
    last = now;
  };
  return Object.assign(lap, { laps, split });
}

/** The render stage's pages, each handed over as a thread would see it, with the time spent making them and how many items were handed over. */
function timed(pages: AsyncGenerator<RenderedFile>, pass: HandOver): AsyncGenerator<RenderedFile> & { ms: number; items: number } {
  const clock = { ms: 0, items: 0 };
  const wrapper = (async function* () {
    while (true) {
      const started = performance.now();
      const next = await pages.next();
      clock.ms += performance.now() - started;
      if (next.done) return;
      clock.items++;
      yield pass(next.value);
    }
  })();
  return Object.defineProperties(wrapper, { ms: { get: () => clock.ms }, items: { get: () => clock.items } }) as AsyncGenerator<RenderedFile> & { ms: number; items: number };
}

/**
 * The feed's XML, or nothing to write when it says what the last build's said (the same data,
 * made by the same code) and the last build's file is taken as it is: the `feed` library is
 * then not even loaded. Without the code's version (no cache) it is always made.
 */
async function feedOf(data: FeedData, last: BuildRecord["feed"], codeVersion: string | undefined, reuse: (file: string, size?: number) => Promise<boolean>): Promise<{ xml?: string; kept?: BuildRecord["feed"] }> {
  const key = codeVersion === undefined ? undefined : hashOfAll(["feed", codeVersion, JSON.stringify(data)]);
  if (key !== undefined && last !== undefined && last.key === key && typeof last.size === "number" && (await reuse("feed.xml", last.size))) return { kept: last };
  const xml = await feedXml(data);
  return { xml, kept: key === undefined ? undefined : { key, size: Buffer.byteLength(xml) } };
}

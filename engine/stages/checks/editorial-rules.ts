/**
 * A site's editorial rules: `rules.yaml` in its content folder, read by the load stage and
 * checked here on every build and every dev save. The engine knows the kinds of rule; which
 * rules a site has, and the words it uses to tell its authors, are the site's data (as Vale
 * declares substitution, existence and conditional rules in files of their own).
 *
 * Each rule is a named entry of the file with a `kind` (their schema: load/rules-model.ts), the files it reads (`files`,
 * patterns relative to the content folder: `*` any name, `**` any folders; an article's whole
 * text, front matter included, for `substitution`; its Markdown body for the others), the
 * language it reads (`lang`: an article's own; a YAML or JSON file is in the site's first
 * language), and the `message` an author reads, whose `{braces}` the check fills in.
 *
 * What a rule finds is a warning at file:line (an error under `--strict`): it never stops a
 * build by itself, nor changes a page.
 */
import type { Article, LocatedFile, SiteContent } from "../load/content.js";
import type { EditorialRule, EditorialRules } from "../load/rules-model.js";
import { markdownOf } from "../load/content.js";
import { sourceText } from "../../lib/source-text.js";
import { locate } from "../../lib/yaml-source.js";
import { lineOf } from "../../lib/text-lines.js";
import { hashOf, hashOfAll, isRecord } from "../../lib/hash.js";
import { byCodePoint } from "../routes/routes.js";

/** What a rule found: where, and what the author reads. */
export interface RuleFinding {
  rule: string;
  file: string;
  line: number;
  column?: number;
  message: string;
  /** The file's text, for a code frame. */
  source: string;
}

/** Each kind's findings, by name, in the engine's words: a rule's `message` says them in the site's. */
const DEFAULT_MESSAGES: Record<EditorialRule["kind"], Record<string, string>> = {
  substitution: { found: "write `{use}`, not `{found}`" },
  requires: { missing: "this text speaks of `{found}`: say what the rule needs, or link the article that does" },
  "block-field": { missing: "an item of `::{block}` ({item}) has no `{field}`: add it, or say in it that there is none" },
  "update-note": {
    date: "the update note `{title}` gives no date: an update says when the change came",
    link: "the update note `{title}` links nothing: an update links its official source",
  },
  "pull-quote": {
    nowhere: "this pull quote copies no sentence of its article: write the sentence in the text, then copy it here",
    before: "this pull quote comes before the sentence it copies: move it after that sentence",
    "other-section": "this pull quote is under another heading than the sentence it copies: move it into that sentence's section",
    "right-under": "this pull quote is right under the sentence it copies, so the same words are read twice in a row: move it a paragraph or more down",
  },
  "later-links": { later: "this links {route}, dated {date}, after this text: link it only inside an update note dated since" },
  "paragraph-length": { long: "this paragraph has {words} words (at most {max}): split it" },
};

/** The message of one finding of a rule: the rule's own (for this finding, or for all), else the engine's. */
function messageOf(rule: EditorialRule, finding: string): string {
  const own = typeof rule.message === "string" ? rule.message : rule.message?.[finding];
  return own ?? DEFAULT_MESSAGES[rule.kind][finding]!;
}

const fill = (template: string, values: Record<string, string | number>) => template.replace(/\{(\w+)\}/g, (all, key: string) => (key in values ? String(values[key]) : all));

/** A file a rule may read: an article, or a YAML/JSON file of the content. */
interface Text {
  file: string;
  /** Relative to the content folder, `/`-separated: what `files` patterns match. */
  relative: string;
  lang: string;
  /** The text: a settings, collection or data file's, or an article's when the load read it (else `textOf` reads it). */
  source?: string;
  article?: Article;
}

/** A text's whole text: an article taken on its file's evidence is read now (`sourceText`). */
const textOf = (text: Text): string => text.source ?? sourceText(text.article!);

/** A glob (`*`, `**`) as a regular expression over a `/`-separated path. */
function globPattern(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/?|\*)/)
    .map((part) => (part === "**" || part === "**/" ? "(?:.*/)?" + (part === "**" ? ".*" : "") : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** Link targets, bare addresses and e-mail addresses blanked out, column for column: what a reader reads. */
export function readable(line: string): string {
  const blank = (match: string) => " ".repeat(match.length);
  // Each pattern only where it can match: most lines have no link, address or e-mail, and the
  // e-mail pattern alone tries every word of every line.
  if (line.includes("](")) line = line.replace(/(?<=\]\()[^)\s]*(?:\s+"[^"]*")?(?=\))/g, blank);
  if (line.includes("://")) line = line.replace(/https?:\/\/\S+/g, blank);
  if (line.includes("@")) line = line.replace(/\S+@\S+\.\S+/g, blank);
  return line;
}

/** A text's lines made readable once, joined, with where each line starts: a rule's pattern runs over the whole text, not line by line. */
interface ReadableText {
  text: string;
  starts: number[];
}

function readableText(lines: readonly string[]): ReadableText {
  const starts: number[] = [];
  let at = 0;
  const shown = lines.map((line) => {
    starts.push(at);
    at += line.length + 1;
    return readable(line);
  });
  return { text: shown.join("\n"), starts };
}

/** The 1-based line and column of an offset of a `ReadableText`. */
function lineAt({ starts }: ReadableText, offset: number): { line: number; column: number } {
  const line = lineOf(starts, offset);
  return { line, column: offset - starts[line - 1]! + 1 };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A container block (`:::name{attrs}` … `:::`) of a body: its name, title, lines. */
interface Container {
  name: string;
  title?: string;
  /** Line of `:::name` (1-based). */
  line: number;
  /** Line of its closing `:::` (the last line of the body when it is not closed). */
  end: number;
  text: string;
}

function attributesOf(text: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of (text ?? "").matchAll(/([\w-]+)="([^"]*)"/g)) attributes[match[1]!] = match[2]!;
  return attributes;
}

/** The container blocks of a body, each with its lines (bodies keep their file's line numbers). */
function containersOf(lines: readonly string[]): Container[] {
  const found: Container[] = [];
  const open: { name: string; title?: string; line: number }[] = [];
  lines.forEach((text, index) => {
    const opening = /^:::([\w-]+)(\{[^}\n]*\})?[ \t]*$/.exec(text);
    if (opening) open.push({ name: opening[1]!, title: attributesOf(opening[2]).title, line: index + 1 });
    else if (/^:::[ \t]*$/.test(text) && open.length > 0) {
      const block = open.pop()!;
      found.push({ ...block, end: index + 1, text: lines.slice(block.line, index).join("\n") });
    }
  });
  for (const block of open) found.push({ ...block, end: lines.length, text: lines.slice(block.line).join("\n") });
  return found.sort((a, b) => a.line - b.line);
}

/** A block of a body between blank lines: its first line, its text, and whether it is a heading. */
interface Paragraph {
  line: number;
  text: string;
  heading: boolean;
  /** Prose (not a heading, a block directive, a table, a fence or a code line). */
  prose: boolean;
}

/** The blocks of a body: runs of lines between blank lines (a list item starts one of its own); fenced code left out. */
function paragraphsOf(lines: readonly string[]): Paragraph[] {
  const found: Paragraph[] = [];
  let current: { line: number; lines: string[] } | undefined;
  let fence = false;
  const close = () => {
    if (!current) return;
    const text = current.lines.join("\n");
    const heading = /^#{1,6}\s/.test(text);
    const prose = !heading && !/^(:::?|\||```|~~~|\s{4})/.test(text);
    found.push({ line: current.line, text, heading, prose });
    current = undefined;
  };
  lines.forEach((text, index) => {
    if (/^(```|~~~)/.test(text)) {
      close();
      fence = !fence;
      return;
    }
    if (fence) return;
    if (text.trim() === "" || /^:::/.test(text)) return close();
    if (/^\s*([-*+]|\d+[.)])\s/.test(text) || /^#{1,6}\s/.test(text) || /^::[\w-]/.test(text)) close();
    if (current) current.lines.push(text);
    else current = { line: index + 1, lines: [text] };
    if (/^#{1,6}\s/.test(text) || /^::[\w-]/.test(text)) close();
  });
  close();
  return found;
}

/** Text as a pull quote is compared: emphasis marks, curly quotes and spacing left out. */
const normalize = (text: string) =>
  readable(text)
    .replace(/\[([^\]]*)\]\(\s*\)/g, "$1")
    .replace(/[*_]/g, "")
    .replace(/[“”]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/\s+/g, " ")
    .trim();

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** The texts the rules go over at a time, every rule over them before the next ones (`checkRules`). */
const RULE_SLICE = 1000;

/** Whether `later` falls after `earlier` (ISO dates, "2025-08-04" or "2025-08"), compared at the coarser of the two. */
export function isAfter(later: string, earlier: string): boolean {
  const length = Math.min(later.length, earlier.length);
  return later.slice(0, length) > earlier.slice(0, length);
}

/** The ISO date (`2025-11-20`, or `2025-11`) a text names through the named groups of `date`. */
function dateIn(text: string, date: RegExp): string | undefined {
  const groups = date.exec(text)?.groups;
  if (!groups?.year || !groups.month) return undefined;
  const two = (n: string) => n.padStart(2, "0");
  return `${groups.year}-${two(groups.month)}${groups.day ? `-${two(groups.day)}` : ""}`;
}

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Every inline link of a body: its target (a title after it left out) and line. */
function linksOf(lines: readonly string[]): { target: string; line: number }[] {
  return lines.flatMap((text, index) => [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ target: m[1]!, line: index + 1 })));
}

/** A finding as the rules' memory keeps it: without the file's text (re-attached from the file it names when it is reported). */
type KeptFinding = Omit<RuleFinding, "source">;

/**
 * What the last run of the rules found in each article, by rule: watch mode hands it to the
 * next run, and the persistent cache keeps it across builds (in the build record). Plain data
 * (JSON): an entry is taken only for an article of the same text (`sourceHash`), and the whole
 * memory only for the same rules, data files and languages (`key`); findings are kept without
 * the file's text (a cache that held each article's text again would grow by the whole site).
 */
export interface RuleMemory {
  /** Hash of what else the rules read: the rules, every data file (name, file and text), the site's languages. */
  key: string;
  /** By file (an article, or another file the rules read: site.yaml, a collection, a data file): the hash of its text, and what each rule found in it alone (or learnt of it, for a rule that reads other articles too). */
  articles: Record<string, { sourceHash: string; found: Record<string, unknown> }>;
  /**
   * By rule, the files in which the run that made this memory found something (`RuleState.notable`),
   * with the content folder's path their texts' paths were read from: a later run told which
   * articles' texts are not that run's (`changedSince`) looks, as watch mode does, only at those
   * and these.
   */
  notable?: { prefix: string; files: Record<string, string[]> };
}

/** What a run of the rules found, the memory for the next run, and the files of the articles it read (the others' findings were the memory's). */
export interface RuleRun {
  findings: RuleFinding[];
  memory: RuleMemory;
  read: string[];
  /** How many texts the rules went over, each rule's counted (the others gave them what the last run found: nothing). */
  looked: number;
  /** What the run found out besides its memory, for the next run of the same process (`RuleState`). */
  state: RuleState;
}

/** The key of a memory: what the rules read besides each article's own text. */
export function ruleMemoryKey(rules: EditorialRules, data: SiteContent["data"], languages: readonly string[]): string {
  const files = [...data].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([name, file]) => [name, file.file, file.source]);
  return hashOfAll(["rules", JSON.stringify(rules), "languages", JSON.stringify(languages), "data", ...files]);
}

/**
 * Checks `content` against `rules`. `languages` are the site's, its first the language of a
 * file that is not an article. Only the rules' own data and the content are read.
 */
export function checkEditorialRules(content: SiteContent, rules: EditorialRules, languages: readonly string[]): RuleFinding[] {
  return runEditorialRules(content, rules, languages).findings;
}

const hasOwn = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key);

/**
 * The same, keeping what each article alone gave each rule (`memory`, for the next run): with
 * the last run's memory (of this process, or of the cache), an article whose text did not
 * change is not read again, only the articles saved since (a dev save in a site of 4000
 * articles read every one of them: most of its time). A rule that reads other articles too
 * (`requires`, `later-links`) keeps what it learnt of each one and looks at the others again.
 * A memory of other rules, data files or languages, or an entry that is not what this code
 * keeps (a damaged cache), is not used. Handed the memory of its own last run (watch mode),
 * a rule looks only at the texts saved since and those it found something in (`RuleState`).
 */
export function runEditorialRules(
  content: SiteContent,
  rules: EditorialRules,
  languages: readonly string[],
  previous?: RuleMemory,
  last?: RuleState,
  touched?: ArticleDelta,
  {
    slice = RULE_SLICE,
    changedSince,
  }: {
    slice?: number;
    /** The articles whose text is not the one of the run that made `previous` (the persistent cache's: incremental/since-record.ts); every other is as that run read it. */
    changedSince?: ReadonlySet<string>;
  } = {},
): RuleRun {
  const key = ruleMemoryKey(rules, content.data, languages);
  // What the last run of this process found out beside the memory it handed back (watch mode hands both here again):
  // its entries by file, without the memory's record of them (made only when the cache is saved).
  const since = last !== undefined && last.memory === previous && previous.key === key ? last : undefined;
  const usable = !since && isRecord(previous) && previous.key === key && isRecord(previous.articles) ? previous.articles : undefined;
  // Looked up by file in Maps: `hasOwnProperty` on records of 100,000 keys, for each article and
  // each rule that reads them all, was a third of a one-article rebuild's rules at that size.
  const before: ReadonlyMap<string, unknown> = since?.entries ?? new Map(usable ? Object.entries(usable) : []);
  // Told which articles a save read again over the very content the last run saw (watch mode): every other
  // file's entry is the last run's, taken as it is (a save no longer goes over every article's).
  const delta = since && touched && touched.from === since.articles ? touched : undefined;
  const entries = new Map<string, RuleMemory["articles"][string]>(delta ? since!.entries : []);
  if (delta) for (const file of [...delta.files.keys(), ...since!.others]) entries.delete(file);
  const read = new Set<string>();
  /** Entries this run made (or copied): the others are the memory's as the last run left them, the same value, so the store sees it unchanged (copied before a rule adds to one). */
  const owned = new WeakSet<RuleMemory["articles"][string]>();
  /** What `rule` made of a file's text alone: the last run's, when it was made from the same text (and is of the shape `valid` expects); else made now. */
  const ofFile = <T,>(file: string, sourceHash: string, rule: string, valid: (value: unknown) => boolean, make: () => T, article: boolean): T => {
    let entry = entries.get(file);
    if (!entry) {
      const earlier = before.get(file);
      const same = isRecord(earlier) && earlier.sourceHash === sourceHash && isRecord(earlier.found);
      entry = same ? (earlier as RuleMemory["articles"][string]) : { sourceHash, found: {} };
      if (!same) owned.add(entry);
      entries.set(file, entry);
    }
    // An entry this process made or checked already is of the shapes its rules keep.
    if (hasOwn(entry.found, rule) && (since !== undefined || valid(entry.found[rule]))) return entry.found[rule] as T;
    if (article) read.add(file);
    const made = make();
    if (!owned.has(entry)) {
      entries.set(file, (entry = { sourceHash: entry.sourceHash, found: { ...entry.found } }));
      owned.add(entry);
    }
    entry.found[rule] = made;
    return made;
  };
  const ofArticle: OfArticle = (article, rule, valid, make) => ofFile(article.file, article.sourceHash, rule, valid, make, true);
  // The site's other files the rules read (site.yaml, the collections, the data files), kept the same way: by their text's hash.
  const ofOther: OfOther = (file, source, rule, valid, make) => ofFile(file, hashOf("other", source), rule, valid, make, false);
  // Told which articles' texts are not those of the run that made the memory (a build from the store): with that run's notable files, as a run of this process would be.
  const recorded = !since && usable && changedSince && isRecord(previous!.notable) && isRecord(previous!.notable.files) ? { ...previous!.notable, changed: changedSince } : undefined;
  const { findings, state, unchanged, looked } = checkRules(content, rules, languages, ofArticle, ofOther, since, delta, slice, recorded);
  // The texts no rule looked at again (unchanged, and nothing found in them) keep their entries as the last run left them (told the delta: they have them already).
  if ((since && !delta) || recorded) {
    for (const [file, text] of state.texts) {
      if (unchanged(text) && !entries.has(file) && before.has(file)) entries.set(file, before.get(file) as RuleMemory["articles"][string]);
    }
  }
  // Most articles' findings are alike (nothing, for every rule): the entries made in this run
  // share one object for each such set, which a copy to the build's thread (structuredClone
  // keeps an object shared) and the cache hold once, not once an article (bench/README.md,
  // session 31).
  const alike = new Map<string, RuleMemory["articles"][string]["found"]>();
  for (const entry of entries.values()) {
    if (!owned.has(entry)) continue;
    const key = JSON.stringify(entry.found);
    const same = alike.get(key);
    if (same) entry.found = same;
    else alike.set(key, entry.found);
  }
  const notable = { prefix: state.prefix, files: Object.fromEntries([...state.notable].map(([rule, files]) => [rule, [...files].sort()])) };
  const memory = ruleMemory(key, entries, notable);
  return { findings, memory, read: [...read], looked, state: { ...state, memory, entries } };
}

/**
 * A memory whose record of entries is made when it is first read: by the cache when it saves,
 * or by a run handed a memory that is not its own last one. A save in watch mode hands on the
 * entries by file (`RuleState`) and never reads it (a record of every article was made on
 * every save). Plain data all the same: a copy, JSON or a clone reads it.
 */
function ruleMemory(key: string, entries: ReadonlyMap<string, RuleMemory["articles"][string]>, notable: RuleMemory["notable"]): RuleMemory {
  let articles: RuleMemory["articles"] | undefined;
  return {
    key,
    notable,
    get articles() {
      return (articles ??= Object.fromEntries(entries));
    },
  };
}

/**
 * What a run found out besides its memory, for the next run in the same process (watch mode
 * hands both back; not kept by the cache): a text whose text, language and path are as they were, and in which
 * a rule found nothing, gives that rule nothing again (`requires`: it speaks of nothing the rule
 * looks for; `later-links`: it links no page of the site), so the rule does not look at it. A
 * save in a site of 4000 articles looked at every article for every rule.
 */
export interface RuleState {
  /** The memory the run handed back with it: the state is used only with that very memory. */
  memory: RuleMemory;
  /** The content folder's path, as the files' names start with it. */
  prefix: string;
  /** Each text the rules may read, by file (the same object in the next run while its text, language and path are the same: what decides which rules read it, and what they find). */
  texts: ReadonlyMap<string, Text>;
  /** By rule: the files in which it found something (for `requires`, a line that speaks of `when`; for `later-links`, links to the site's pages). */
  notable: Map<string, Set<string>>;
  /** The memory's entries, by file. */
  entries: ReadonlyMap<string, RuleMemory["articles"][string]>;
  /** The articles of the content the run checked (the very array): a save's `ArticleDelta` is over it, or not used. */
  articles: readonly Article[];
  /** The articles by route, in the content's order. */
  byRoute: ReadonlyMap<string, readonly Article[]>;
  /** The files among `texts` that are not articles (site.yaml, the collections, the data files). */
  others: readonly string[];
  /**
   * The rules' patterns the run made, by flags and source, for the next to use again: V8 lets
   * go of what it parsed of a pattern at a full garbage collection, so the substitutions' ~50
   * patterns (letter classes, case-insensitive) made anew at each save were parsed anew at each
   * (~1.4 ms of a 4000-article save's profile), and those a saved text reads compiled again.
   */
  patterns: ReadonlyMap<string, RegExp>;
}

/**
 * What a watch-mode save read again over the last run's content (`from`, the very array of its
 * articles): each article file it read, with its article now (undefined: gone, or left out).
 * Every other article of the new content is the very object it was in `from`: the rules'
 * state is then changed in place for these files, not made again from every article.
 */
export interface ArticleDelta {
  from: readonly Article[];
  files: ReadonlyMap<string, Article | undefined>;
}

type OfArticle = <T>(article: Article, rule: string, valid: (value: unknown) => boolean, make: () => T) => T;
type OfOther = <T>(file: string, source: string, rule: string, valid: (value: unknown) => boolean, make: () => T) => T;

function checkRules(
  content: SiteContent,
  rules: EditorialRules,
  languages: readonly string[],
  ofArticle: OfArticle,
  ofOther: OfOther,
  since?: Omit<RuleState, "entries" | "memory">,
  delta?: ArticleDelta,
  slice = RULE_SLICE,
  recorded?: NonNullable<RuleMemory["notable"]> & { changed: ReadonlySet<string> },
): { findings: RuleFinding[]; state: Omit<RuleState, "entries" | "memory">; unchanged: (text: Text) => boolean; looked: number } {
  const prefix = content.site.file.replace(/site\.yaml$/, "");
  // After the run that made the memory (a build from the store), told which articles' texts are not that run's: read from the same folder.
  const fromRecord = !since && recorded?.prefix === prefix ? recorded : undefined;
  /** Whether a text is as the last run (of this process, or the one that made the memory) read it: then it gives every rule what that run found. */
  const unchanged = (text: Text): boolean => (since ? text === since.texts.get(text.file) : fromRecord !== undefined && text.article !== undefined && !fromRecord.changed.has(text.file));
  const relative = (file: string) => (file.startsWith(prefix) ? file.slice(prefix.length) : file).split("\\").join("/");
  const others: LocatedFile<unknown>[] = [content.site, ...Object.values(content.collections as Record<string, LocatedFile<unknown>>), ...content.data.values()];
  const lang = languages[0] ?? "";
  // After a run of this process, a text as it was is that run's own object (`RuleState`): what changed since is what is not.
  // Told what a save read again over the content the last run saw: its texts and routes, changed for those files alone.
  const inPlace = since !== undefined && delta !== undefined && since.prefix === prefix;
  const byFile = new Map<string, Text>(inPlace ? since.texts : []);
  const changed: Text[] = [];
  const texts: Text[] = [];
  const add = (file: string, lang: string, source: string | undefined, article?: Article) => {
    // The same article (watch mode keeps the articles not saved since), or file text, language and content folder.
    const earlier = since?.prefix === prefix ? since.texts.get(file) : undefined;
    const same = earlier !== undefined && earlier.lang === lang && earlier.article === article && earlier.source === source;
    const text = same ? earlier : { file, relative: relative(file), lang, source, ...(article ? { article } : {}) };
    if (!unchanged(text)) changed.push(text);
    byFile.set(file, text);
    if (!inPlace) texts.push(text);
  };
  const byRoute = new Map<string, readonly Article[]>(inPlace ? since.byRoute : []);
  const inRoute = (article: Article, change: (same: readonly Article[]) => readonly Article[]) => {
    const same = change(byRoute.get(article.route) ?? []);
    if (same.length > 0) byRoute.set(article.route, same);
    else byRoute.delete(article.route);
  };
  if (inPlace) {
    for (const file of since.others) byFile.delete(file);
    for (const [file, article] of delta.files) {
      const old = since.texts.get(file)?.article;
      if (old === article) continue;
      byFile.delete(file);
      if (old) inRoute(old, (same) => same.filter((a) => a !== old));
      if (!article) continue;
      add(article.file, article.lang, article.source, article);
      // In the content's order (by file), as a run over every article makes them.
      inRoute(article, (same) => [...same, article].sort((a, b) => byCodePoint(a.file, b.file)));
    }
  } else {
    for (const article of content.articles) add(article.file, article.lang, article.source, article);
    for (const article of content.articles) {
      const same = byRoute.get(article.route) as Article[] | undefined;
      if (same) same.push(article);
      else byRoute.set(article.route, [article]);
    }
  }
  const otherFiles: string[] = [];
  for (const f of others) {
    if (f.source === "") continue;
    add(f.file, lang, f.source);
    otherFiles.push(f.file);
  }
  const bodies = new Map<Article, string[]>();
  const bodyOf = (article: Article) => {
    let lines = bodies.get(article);
    if (!lines) bodies.set(article, (lines = markdownOf(article).split("\n")));
    return lines;
  };
  // What a reader reads of each text and body, made once for every rule that reads it.
  const shownTexts = new Map<Text, ReadableText>();
  const shownText = (text: Text) => shownTexts.get(text) ?? shownTexts.set(text, readableText(textOf(text).split("\n"))).get(text)!;
  const shownBodies = new Map<Article, { lines: string[]; text: string }>();
  const shownBody = (article: Article) => {
    let shown = shownBodies.get(article);
    if (!shown) {
      const lines = bodyOf(article).map(readable);
      shownBodies.set(article, (shown = { lines, text: lines.join("\n") }));
    }
    return shown;
  };
  const notable = new Map<string, Set<string>>();
  /** A rule's pattern: the last run's very one, when it made the same (a RegExp's `lastIndex` is not read: `test` of patterns without `g`, `matchAll`, which copies it). */
  const patterns = new Map<string, RegExp>();
  const pattern = (source: string, flags: string): RegExp => {
    const key = `${flags}/${source}`;
    const made = patterns.get(key) ?? since?.patterns?.get(key) ?? new RegExp(source, flags);
    patterns.set(key, made);
    return made;
  };
  /** The texts a rule reads: every one it chooses; after a run of this process (or the run that made the memory, told what changed since it), those changed since and those it found something in (in any order: the findings are sorted). */
  let looked = 0;
  const visited = (name: string, chooses: (text: Text) => boolean) => {
    const list = visitedBy(name, chooses);
    looked += list.length;
    return list;
  };
  const visitedBy = (name: string, chooses: (text: Text) => boolean) => {
    if (!since && !fromRecord) return texts.filter(chooses);
    const list = changed.filter(chooses);
    const notable = since ? (since.notable.get(name) ?? []) : fromRecord!.files[name];
    for (const file of Array.isArray(notable) || notable instanceof Set ? notable : []) {
      const text = byFile.get(file);
      if (text && unchanged(text)) list.push(text);
    }
    return list;
  };
  /** Notes that `rule` found something in `text` (or, `yes` false, nothing). */
  const note = <T,>(name: string, text: Pick<Text, "file">, value: T, yes: (value: T) => boolean): T => {
    if (yes(value)) (notable.get(name) ?? notable.set(name, new Set()).get(name)!).add(text.file);
    return value;
  };
  const any = (found: readonly unknown[]) => found.length > 0;

  // Each file's text, by file: re-attached to the findings once they are all made (the memory keeps none).
  // An article's is read only if a finding is in it (`sourceText`).
  const otherSources = new Map<string, string>(others.map((f) => [f.file, f.source]));
  const sources = { get: (file: string): string | Article | undefined => otherSources.get(file) ?? byFile.get(file)?.article, has: (file: string) => otherSources.has(file) || byFile.get(file)?.article !== undefined };
  /** What a rule that reads each article alone keeps of it: findings in files this run knows. */
  const isFindings = (value: unknown) =>
    Array.isArray(value) && value.every((f) => isRecord(f) && typeof f.rule === "string" && typeof f.file === "string" && sources.has(f.file) && typeof f.line === "number" && typeof f.message === "string");

  const findings: KeptFinding[] = [];
  // The rules go over the texts a slice at a time (`slice` texts, in the content's order), every rule over one
  // slice before the next: what they make of a text (its lines, its readable text: `bodyOf`, `shownText`,
  // `shownBody`) is held for its slice alone. Held for every text until the last rule, it was ~0.7 GB of the
  // thread that ran the rules at 100,000 articles, the peak of four cold builds in ten (bench/README.md, session 31).
  const chosenBy = Object.entries(rules).map(([name, rule]) => {
    const globs = (rule.files ?? ["articles/**"]).map(globPattern);
    return { name, rule, chosen: visited(name, (t) => globs.some((g) => g.test(t.relative)) && (rule.lang === undefined || t.lang === rule.lang)) };
  });
  const place = new Map<Text, number>();
  for (const text of byFile.values()) place.set(text, place.size);
  const slices = Math.max(1, Math.ceil(place.size / slice));
  const sliced = chosenBy.map(({ name, rule, chosen }) => {
    const bySlice: Text[][] = Array.from({ length: slices }, () => []);
    for (const text of chosen) bySlice[Math.floor((place.get(text) ?? 0) / slice)]!.push(text);
    return { name, rule, bySlice };
  });
  /** One rule over some of the texts it chooses. */
  const runRule = (name: string, rule: (typeof chosenBy)[number]["rule"], chosen: readonly Text[]): void => {
    const finding = (text: Pick<Text, "file">, line: number, kind: string, values: Record<string, string | number>, column?: number): KeptFinding => ({
      rule: name,
      file: text.file,
      line,
      ...(column === undefined ? {} : { column }),
      message: fill(messageOf(rule, kind), values),
    });
    const report = (text: Pick<Text, "file">, line: number, kind: string, values: Record<string, string | number>, column?: number) => findings.push(finding(text, line, kind, values, column));
    /** The findings of a rule that reads each article alone: the last run's for an article that did not change. */
    const eachArticle = (find: (text: Text, article: Article, found: KeptFinding[]) => void) => {
      for (const text of articles) {
        const found = ofArticle(text.article!, name, isFindings, () => {
          const found: KeptFinding[] = [];
          find(text, text.article!, found);
          return found;
        });
        findings.push(...note(name, text, found, any));
      }
    };

    if (rule.kind === "substitution") {
      const forms = Object.entries(rule.swap).map(([wrong, right]) => {
        // A form that differs from the right one only in capitals (CAGED for Caged) is matched exactly.
        const caseOnly = wrong.toLowerCase() === right.toLowerCase();
        // `seen`: the form anywhere, as the same flags read it. A text without it has no finding of it, and is not
        // searched with the whole pattern, whose letter classes cost V8 tens of milliseconds to compile, case-insensitive.
        return {
          right,
          seen: pattern(escapeRegExp(wrong), caseOnly ? "u" : "iu"),
          match: pattern(`(?<![\\p{L}\\p{N}])${escapeRegExp(wrong)}(?![\\p{L}\\p{N}])`, caseOnly ? "gu" : "giu"),
        };
      });
      for (const text of chosen) {
        const find = () => {
          const found: KeptFinding[] = [];
          // Over the whole text at once (no form spans a line): the same findings as line by line, in the same order once sorted.
          const shown = shownText(text);
          for (const form of forms) {
            if (!form.seen.test(shown.text)) continue;
            for (const m of shown.text.matchAll(form.match)) {
              const { line, column } = lineAt(shown, m.index);
              found.push(finding(text, line, "found", { found: m[0], use: form.right }, column));
            }
          }
          return found;
        };
        findings.push(...note(name, text, text.article ? ofArticle(text.article, name, isFindings, find) : ofOther(text.file, textOf(text), name, isFindings, find), any));
      }
      return;
    }

    const articles = chosen.filter((t) => t.article);
    if (rule.kind === "requires") {
      const when = pattern(rule.when, "iu");
      const needs = pattern(rule.needs, "iu");
      // What each article alone says: the line that speaks of `when` (-1: none, found only then) and whether it says `needs`.
      const learnt = (article: Article) =>
        ofArticle(article, name, isLearnt, () => {
          const shown = shownBody(article);
          const at = shown.lines.findIndex((line) => when.test(line));
          return { at, found: at < 0 ? "" : when.exec(shown.lines[at]!)![0], says: at < 0 ? undefined : needs.test(shown.text) };
        });
      const says = (article: Article) => {
        const known = learnt(article);
        return known.says ?? needs.test(shownBody(article).text);
      };
      for (const text of articles) {
        const { at, found } = note(name, text, learnt(text.article!), (known) => known.at >= 0);
        if (at < 0 || says(text.article!)) continue;
        const linked = linksOf(bodyOf(text.article!)).some(({ target }) => (byRoute.get(target.split("#")[0]!) ?? []).some((other) => other !== text.article && says(other)));
        if (!linked) report(text, at + 1, "missing", { found });
      }
    } else if (rule.kind === "block-field") {
      const opening = pattern(`^::${escapeRegExp(rule.block)}(\\{[^}\\n]*\\})?[ \\t]*$`, "");
      eachArticle((text, article, found) => {
        bodyOf(article).forEach((line, index) => {
          const directive = opening.exec(line);
          if (!directive) return;
          const attributes = attributesOf(directive[1]);
          const file = attributes.src === undefined ? undefined : content.data.get(attributes.src.replace(/\.json$/, ""));
          const key = attributes.data ?? camelCase(rule.block);
          const items = file ? file.value : article.frontMatter[key];
          if (!Array.isArray(items)) return;
          items.forEach((item: unknown, i) => {
            const value = item && typeof item === "object" ? (item as Record<string, unknown>)[rule.field] : undefined;
            if (typeof value === "string" ? value.trim() !== "" : value !== undefined && value !== null) return;
            const label = item && typeof item === "object" ? Object.values(item).find((v) => typeof v === "string") : undefined;
            const values = { block: rule.block, field: rule.field, item: typeof label === "string" ? label : `#${i + 1}` };
            if (file) found.push(finding(file, locate(file, [i])?.line ?? 1, "missing", values));
            else found.push(finding(text, locate(article, [key, i])?.line ?? index + 1, "missing", values));
          });
        });
      });
    } else if (rule.kind === "update-note") {
      const title = pattern(rule.title, "u");
      const date = pattern(rule.date, "u");
      eachArticle((text, article, found) => {
        for (const note of containersOf(bodyOf(article))) {
          if (note.name !== rule.container || note.title === undefined || !title.test(note.title)) continue;
          if (!dateIn(note.title, date)) found.push(finding(text, note.line, "date", { title: note.title }));
          if (!/\]\([^)\s]+/.test(note.text)) found.push(finding(text, note.line, "link", { title: note.title }));
        }
      });
    } else if (rule.kind === "pull-quote") {
      eachArticle((text, article, found) => {
        const lines = bodyOf(article);
        for (const quote of containersOf(lines).filter((c) => c.name === rule.container)) {
          const problem = pullQuoteProblem(lines, quote);
          if (problem) found.push(finding(text, quote.line, problem, {}));
        }
      });
    } else if (rule.kind === "later-links") {
      const notes = rule.notes === undefined ? undefined : rules[rule.notes];
      const noteRule = notes?.kind === "update-note" ? { container: notes.container, title: pattern(notes.title, "u"), date: pattern(notes.date, "u") } : undefined;
      const dateOf = (route: string) => (byRoute.get(route) ?? []).map((a) => a.meta.date?.iso).find((d): d is string => d !== undefined);
      for (const text of articles) {
        const own = text.article!.meta.date?.iso;
        if (!own) continue;
        // What the article alone gives: its links to pages of the site, and its dated update notes.
        const kept = ofArticle(text.article!, name, isLinks, () => {
          const lines = bodyOf(text.article!);
          const notes = noteRule
            ? containersOf(lines).flatMap((c) => (c.name === noteRule.container && c.title !== undefined && noteRule.title.test(c.title) ? [{ line: c.line, end: c.end, date: dateIn(c.title, noteRule.date) }] : []))
            : [];
          return { links: linksOf(lines).filter((link) => link.target.startsWith("/")), dated: notes };
        });
        const { links, dated } = note(name, text, kept, (value) => value.links.length > 0);
        for (const link of links) {
          const route = link.target.split("#")[0]!;
          const date = dateOf(route);
          if (!date || !isAfter(date, own)) continue;
          const note = dated.find((n) => n.line < link.line && link.line < n.end);
          if (note?.date && !isAfter(date, note.date)) continue;
          report(text, link.line, "later", { route, date });
        }
      }
    } else if (rule.kind === "paragraph-length") {
      eachArticle((text, article, found) => {
        for (const paragraph of paragraphsOf(bodyOf(article))) {
          if (!paragraph.prose) continue;
          const words = readable(paragraph.text).match(WORD)?.length ?? 0;
          if (words > rule.max) found.push(finding(text, paragraph.line, "long", { words, max: rule.max }));
        }
      });
    }
  };
  for (let slice = 0; slice < slices; slice++) {
    for (const { name, rule, bySlice } of sliced) runRule(name, rule, bySlice[slice]!);
    bodies.clear();
    shownTexts.clear();
    shownBodies.clear();
  }
  // Each file's text read once, for its findings' lines.
  const read = new Map<string, string>();
  const textAt = (file: string) => {
    const known = sources.get(file) ?? "";
    if (typeof known === "string") return known;
    return read.get(file) ?? read.set(file, sourceText(known)).get(file)!;
  };
  const sorted = findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line)).map((f) => ({ ...f, source: textAt(f.file) }));
  return { findings: sorted, state: { prefix, texts: byFile, notable, articles: content.articles, byRoute, others: otherFiles, patterns }, unchanged, looked };
}

/** What `requires` keeps of an article: the line that speaks of `when` (-1: none), its words, whether it says `needs`. */
const isLearnt = (value: unknown) => isRecord(value) && typeof value.at === "number" && typeof value.found === "string" && (value.says === undefined || typeof value.says === "boolean");

/** What `later-links` keeps of an article: its links to pages of the site, and its dated update notes. */
const isLinks = (value: unknown) =>
  isRecord(value) &&
  Array.isArray(value.links) &&
  value.links.every((l) => isRecord(l) && typeof l.target === "string" && typeof l.line === "number") &&
  Array.isArray(value.dated) &&
  value.dated.every((n) => isRecord(n) && typeof n.line === "number" && typeof n.end === "number" && (n.date === undefined || typeof n.date === "string"));

/**
 * What is wrong with where a pull quote stands (a finding's name), or undefined: it copies a
 * sentence said before it (not after it, nor nowhere), in the same section (no heading
 * between), and not in the paragraph right above it (the same words twice in a row).
 */
function pullQuoteProblem(lines: readonly string[], quote: Container): "nowhere" | "before" | "other-section" | "right-under" | undefined {
  const words = normalize(quote.text);
  if (words === "") return undefined;
  const before = lines.slice(0, quote.line - 1);
  const after = lines.slice(quote.end);
  const paragraphs = paragraphsOf(before);
  const source = paragraphs.map((p) => normalize(p.text).includes(words)).lastIndexOf(true);
  if (source < 0) {
    if (normalize(before.join("\n")).includes(words)) return undefined;
    return normalize(after.join("\n")).toLowerCase().includes(words.toLowerCase()) ? "before" : "nowhere";
  }
  const between = paragraphs.slice(source + 1);
  if (between.some((p) => p.heading)) return "other-section";
  if (between.length === 0) return "right-under";
  return undefined;
}

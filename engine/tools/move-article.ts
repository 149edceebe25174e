/**
 * `npm run move -- OLD NEW`: renames an article in one command. It moves the file (and its
 * translations), gives the article its old address as an alias (so every link already
 * shared keeps working), and rewrites every link to the old address: the Markdown links of
 * every article, the front-matter values, and the entries of the YAML and JSON files of the
 * content folder (cards.yaml, editions.yaml, site.yaml's `home.featured` and `redirects`, a
 * data table). It prints each file it changed.
 *
 * It refuses, changing nothing, when the new address or file is taken, or when git says the
 * article has changes not yet committed: the move is then a change of its own, which
 * `git diff` shows whole and `git checkout` can undo without losing a word.
 *
 * Edits are made in the text, at the place of each value (YAML and Markdown positions), so
 * comments, quoting and layout stay as the author wrote them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { isMap, isPair, isScalar, isSeq, parseDocument, visit, type Node } from "yaml";
import { visit as visitJson } from "jsonc-parser";
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkDirective from "remark-directive";
import { visit as visitMarkdown } from "unist-util-visit";
import type { Root } from "mdast";
import { ContentError } from "../lib/errors.js";
import { listFiles } from "../lib/files.js";
import { nearest } from "../lib/nearest.js";
import { routePath } from "../stages/load/content-model.js";
import { loadContent, routeFromPath, type ContentModel } from "../stages/load/content.js";
import { wordsFor } from "../lib/language.js";
import { isDerived, isReservedRoute, tooLong, type RouteModel } from "../stages/routes/routes.js";
import { listPublicFiles } from "../lib/public-files.js";

export interface MoveOptions {
  projectRoot: string;
  contentDir: string;
  /** The theme: its content model, and (when given) its pages, whose routes are taken. */
  theme: ContentModel & Partial<Pick<RouteModel, "pages" | "derivedPages">>;
  /** The site's public/ folder (default `<projectRoot>/public`): a route one of its files answers is taken. */
  publicDir?: string;
  /** Move even when git cannot answer whether the article has changes not committed (`--force`). */
  force?: boolean;
  /** The article's route (`/artigo-transicao`) or its file (`content/articles/artigo-transicao.md`). */
  from: string;
  /** Its new route, or its new file. */
  to: string;
}

export interface MoveReport {
  from: string;
  to: string;
  /** One line per file changed, as printed. */
  lines: string[];
}

/** A file's new text, and what changed in it. */
interface Edit {
  text: string;
  links: number;
  entries: number;
}

/** Moves an article and rewrites what pointed at it; throws a ContentError (nothing changed) when it must refuse. */
export async function moveArticle({ projectRoot, contentDir, theme, from, to, publicDir = path.join(projectRoot, "public"), force = false }: MoveOptions): Promise<MoveReport> {
  const shown = (file: string) => path.relative(process.cwd(), file) || file;
  const articlesDir = path.join(contentDir, "articles");
  const refuse = (message: string, hint: string): never => {
    throw new ContentError({ file: "npm run move", message, hint });
  };
  const { content, failed } = await loadContent(contentDir, theme, { drafts: true, projectRoot });
  const articles = content?.articles ?? [];
  const words = wordsFor(theme.languages[0]);
  const oldRoute = routeOf(from, articlesDir, theme.languages) ?? refuse(`'${from}' is not a route or an article's file`, `write the route, like ${words.route}, or the file, like content/articles${words.route}.md`);
  const newRoute = routeOf(to, articlesDir, theme.languages) ?? refuse(`'${to}' is not a route`, `a route (or the name of an article's file) is lowercase letters, digits and hyphens, like ${words.sectionRoute}`);
  const moving = articles.filter((a) => a.route === oldRoute);
  const broken = [...failed].find(([, f]) => f.route === oldRoute);
  if (broken) refuse(`${broken[0]} does not load`, "fix the errors `npm run build` shows for it, then move it");
  if (moving.length === 0) {
    const guess = nearest(oldRoute, articles.map((a) => a.route));
    refuse(`no article has the route ${oldRoute}`, guess ? `did you mean ${guess}?` : "write the route of an existing article (its file under content/articles, without .md)");
  }
  if (newRoute === oldRoute) refuse(`${oldRoute} is already the article's route`, "give the new route as the second argument");
  const main = moving.find((a) => a.lang === theme.languages[0]) ?? moving[0]!;

  // The new address must be one the build takes: not the site's own, not too long, no page of the theme's, no file of public/.
  const pageRoutes = theme.pages && content ? safePages(() => theme.pages!(content).map((p) => p.path)) : [];
  if (newRoute === "/" || pageRoutes.includes(newRoute)) refuse(`${newRoute} is ${newRoute === "/" ? "the home page" : "a page of the site"}, not an article's route`, "choose another route");
  if (isReservedRoute(newRoute)) refuse(`the route ${newRoute} is reserved by the site (its 404 page, assets, feed and sitemap)`, "choose another route");
  const long = tooLong(newRoute, "the route");
  if (long) refuse(long, "choose a shorter route");
  if (isDerived(theme.derivedPages, newRoute)) refuse(`${newRoute} is an address of the pages the site makes from its articles (${theme.derivedPages!.join(", ")})`, "choose another route");
  const served = listPublicFiles(publicDir);
  const publicFile = [newRoute.slice(1), `${newRoute.slice(1)}.html`].find((f) => served.has(f));
  if (publicFile) refuse(`${newRoute} is answered by the file ${path.relative(process.cwd(), path.join(publicDir, publicFile))}`, "choose another route, or rename that file");
  // The new address must be free: no other article, no other article's alias, no redirect.
  const holders = articles.filter((a) => a.route === newRoute);
  const holder = holders.find((a) => a.lang === theme.languages[0]) ?? holders[0];
  if (holder) refuse(`${newRoute} is the route of ${holder.file}`, "choose another route, or move that article first");
  const aliased = articles.find((a) => a !== main && a.route !== oldRoute && a.meta.aliases?.includes(newRoute));
  if (aliased) refuse(`${newRoute} is an alias of ${aliased.route} (${aliased.file}): links shared there lead to that article`, "choose another route");
  if (content?.settings.redirects?.[newRoute]) refuse(`${newRoute} is a redirect in ${content.site.file}`, "choose another route, or remove that redirect first");
  // The article first, then its translations.
  const moves = [main, ...moving.filter((a) => a !== main)].map((article) => ({ article, to: path.join(articlesDir, `${newRoute.slice(1)}${languageSuffix(article.file, theme.languages)}.md`) }));
  for (const { to: file } of moves) if (existsSync(file)) refuse(`${shown(file)} exists already`, "choose another route, or move or delete that file first");

  // What git has not recorded of the article would be hard to tell from the move: commit it first.
  const status = gitStatus(contentDir, moving.map((a) => path.join(projectRoot, a.file)));
  if (status.failure && !force) {
    refuse(
      `git could not say whether the article has changes not committed: ${status.failure}`,
      "put git right (for a repository owned by another user, git config --global --add safe.directory <folder>), or move it all the same with --force",
    );
  }
  if (status.dirty.length > 0) {
    refuse(
      `${status.dirty.join(", ")} ${status.dirty.length === 1 ? "has" : "have"} changes not committed (git status)`,
      "commit them first (git add and git commit): the move is then a change of its own, which git diff shows whole and git checkout can undo without losing your edits",
    );
  }

  const lines: string[] = [];
  if (!status.repository) lines.push("(not a git repository: the uncommitted-changes check was skipped)");
  else if (status.failure) lines.push(`(git could not answer, --force: the uncommitted-changes check was skipped: ${status.failure})`);
  const rewrite = (url: string) => rewritten(url, oldRoute, newRoute);
  const edits = new Map<string, Edit>();

  // Every article: its Markdown links and front-matter values (the moved ones too: a link to itself).
  for (const file of listFiles(articlesDir).filter((f) => f.endsWith(".md"))) {
    const source = await readFile(file, "utf8");
    const relative = path.relative(projectRoot, file);
    const article = moving.find((a) => a.file === relative);
    const target = article && moves.find((m) => m.article === article)!.to;
    // Its own relative references (`./foto.png`, body and cover) point at the same files from its new folder.
    const relocate = target ? (url: string) => relocated(url, path.dirname(file), path.dirname(target)) : undefined;
    const edit = rewriteArticle(source, rewrite, article ? { newRoute, alias: article === main && !article.meta.draft ? oldRoute : undefined, relocate } : undefined);
    if (edit.text !== source || article) edits.set(file, edit);
  }
  // The YAML files of the content folder and its data tables.
  const yamlFiles = readdirSync(contentDir).filter((name) => /\.ya?ml$/.test(name)).sort().map((name) => path.join(contentDir, name));
  const dataFiles = [...yamlFiles, ...listFiles(path.join(contentDir, "data")).filter((f) => f.endsWith(".json"))];
  for (const file of dataFiles) {
    const source = await readFile(file, "utf8");
    const edit = file.endsWith(".json") ? rewriteJson(source, rewrite) : rewriteYaml(source, rewrite);
    if (edit.text !== source) edits.set(file, edit);
  }

  // Written only once every check has passed: the moved files first, then the others.
  for (const { article, to: file } of moves) {
    const old = path.join(projectRoot, article.file);
    const edit = edits.get(old)!;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, edit.text, { flag: "wx" });
    await unlink(old);
    edits.delete(old);
    const what = [article === main && !article.meta.draft ? `alias ${oldRoute} added` : "", describeEdit(edit)].filter(Boolean).join("; ");
    lines.push(`Moved ${shown(old)} → ${shown(file)}${what ? ` (${what})` : ""}`);
  }
  for (const [file, edit] of edits) {
    await writeFile(file, edit.text);
    lines.push(`Updated ${shown(file)}: ${describeEdit(edit)}`);
  }
  return { from: oldRoute, to: newRoute, lines };
}

/** `3 links, 1 entry`. */
function describeEdit({ links, entries }: Edit): string {
  const parts = [links > 0 ? `${links} link${links === 1 ? "" : "s"}` : "", entries > 0 ? `${entries} entr${entries === 1 ? "y" : "ies"}` : ""];
  return parts.filter(Boolean).join(", ");
}

/**
 * The route an argument names: a route as it is, an article's file as its path gives it; a
 * file's name must make a route (as the build checks it: content.ts), or it names none.
 */
function routeOf(arg: string, articlesDir: string, languages: readonly string[]): string | undefined {
  let route = arg;
  if (arg.endsWith(".md")) {
    const relative = path.relative(articlesDir, path.resolve(arg));
    if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
    route = routeFromPath(relative, languages).route;
  }
  return routePath.safeParse(route).success ? route : undefined;
}

/** The routes of the theme's pages; none when they cannot be listed (a file they read does not load: the build says so). */
function safePages(list: () => string[]): string[] {
  try {
    return list();
  } catch {
    return [];
  }
}

/** `.en` for `x.en.md` (a translation), "" for `x.md`. */
function languageSuffix(file: string, languages: readonly string[]): string {
  const suffix = /\.([a-z]{2})\.md$/.exec(file)?.[1];
  return suffix && languages.includes(suffix) ? `.${suffix}` : "";
}

/** `url` pointed at the new route when it pointed at the old one (`#anchor` and `?query` kept); undefined otherwise. */
function rewritten(url: string, oldRoute: string, newRoute: string): string | undefined {
  const end = url.search(/[?#]/);
  const pathPart = end < 0 ? url : url.slice(0, end);
  // `/artigo%2Dsistema-notas` is the same address as `/artigo-sistema-notas`.
  let decoded = pathPart;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    // Not a valid escape: compared as written.
  }
  return pathPart === oldRoute || decoded === oldRoute ? newRoute + (end < 0 ? "" : url.slice(end)) : undefined;
}

/**
 * A relative reference of an article (`./foto.png`, `fotos/a.jpg#x`) written from `toDir`
 * instead of `fromDir`, to the same file; undefined for an address (`/x`, `https:`, `#x`) or
 * when the folder is the same.
 */
function relocated(url: string, fromDir: string, toDir: string): string | undefined {
  if (fromDir === toDir || url === "" || /^([a-z][a-z0-9+.-]*:|[/#?])/i.test(url)) return undefined;
  const end = url.search(/[?#]/);
  const target = path.join(fromDir, end < 0 ? url : url.slice(0, end));
  const relative = path.relative(toDir, target).split(path.sep).join("/");
  return (relative.startsWith("../") ? relative : `./${relative}`) + (end < 0 ? "" : url.slice(end));
}

/** Text edits at offsets, applied from the end so that earlier offsets stay right. */
function applyEdits(text: string, edits: { start: number; end: number; value: string }[]): string {
  let out = text;
  for (const { start, end, value } of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, start) + value + out.slice(end);
  return out;
}

const markdownParser = unified().use(remarkParse).use(remarkGfm).use(remarkDirective);

/**
 * Where a link's destination is written in `text` (from the end of its text: `](dest "title")`,
 * or a definition's `]: dest`): its start and length, `<…>` left out; undefined when not found.
 */
function destinationAt(text: string, kind: "link" | "definition"): { start: number; length: number } | undefined {
  const opening = (kind === "link" ? /\]\(\s*/ : /\]:\s*/).exec(text);
  if (!opening) return undefined;
  const start = opening.index + opening[0].length;
  if (text[start] === "<") {
    const close = text.indexOf(">", start);
    return close < 0 ? undefined : { start: start + 1, length: close - start - 1 };
  }
  // A bare destination: up to white space or the `)` that closes it (parentheses inside balance; `\)` is escaped).
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (/\s/.test(c)) break;
    if (c === "(") depth++;
    if (c === ")" && depth-- === 0) break;
  }
  return i > start ? { start, length: i - start } : undefined;
}

/**
 * An article's text with its links and front-matter values rewritten; for a moved article
 * (`moved`), its `route:` set to the new route and the old one added to its `aliases`.
 */
function rewriteArticle(
  source: string,
  rewrite: (url: string) => string | undefined,
  moved?: { newRoute: string; alias?: string; relocate?: (url: string) => string | undefined },
): Edit {
  // The front matter: between the opening `---` line and the next `---` line (as gray-matter reads it).
  const open = /^---\r?\n/.exec(source);
  const close = open ? /\r?\n---[ \t]*(\r?\n|$)/.exec(source.slice(open[0].length - 1)) : null;
  const fmStart = open && close ? open[0].length : 0;
  const fmEnd = open && close ? open[0].length - 1 + close.index : 0;
  const rest = source.slice(fmEnd);
  const bodyStart = open && close ? close[0].length : 0;
  // The body's links and reference definitions, at their place in the text.
  const body = rest.slice(bodyStart);
  const edits: { start: number; end: number; value: string }[] = [];
  visitMarkdown(markdownParser.parse(body) as Root, ["link", "definition", "image"], (node) => {
    if ((node.type !== "link" && node.type !== "definition" && node.type !== "image") || !node.position) return;
    const next = rewrite(node.url) ?? moved?.relocate?.(node.url);
    if (next === undefined) return;
    // The destination as written (escapes, entities and all), after the link's text: a code span in the text may hold `](`.
    const textEnd = node.type === "link" ? Math.max(node.position.start.offset!, ...node.children.map((c) => c.position?.end.offset ?? 0)) : node.position.start.offset!;
    const written = destinationAt(body.slice(textEnd, node.position.end.offset!), node.type === "definition" ? "definition" : "link");
    if (!written) return;
    const at = bodyStart + textEnd + written.start;
    edits.push({ start: at, end: at + written.length, value: next });
  });
  let frontMatter = source.slice(fmStart, fmEnd);
  let entries = 0;
  if (open && close) {
    const values = rewriteYaml(frontMatter, rewrite, moved ? ["aliases", "route"] : ["aliases"]);
    frontMatter = moved ? movedFrontMatter(values.text, moved.newRoute, moved.alias, moved.relocate) : values.text;
    entries = values.entries;
  }
  return { text: source.slice(0, fmStart) + frontMatter + applyEdits(rest, edits), links: edits.length, entries };
}

/**
 * A moved article's front matter: its `route:` (when it writes one) set to the new route, the
 * old route added to its `aliases` (kept in the form they are written), the new route taken
 * out of them (an article moved back).
 */
function movedFrontMatter(text: string, newRoute: string, alias: string | undefined, relocate?: (url: string) => string | undefined): string {
  const doc = parseDocument(text);
  const edits: { start: number; end: number; value: string }[] = [];
  const top = doc.contents;
  if (!isMap(top)) return text;
  // The cover beside the article (`image: { src: ./capa.jpg }`), from the article's new folder.
  const image = top.items.find((item) => isScalar(item.key) && item.key.value === "image")?.value;
  const src = isMap(image) ? image.items.find((item) => isScalar(item.key) && item.key.value === "src")?.value : undefined;
  const cover = isScalar(src) && typeof src.value === "string" && src.range ? relocate?.(src.value) : undefined;
  if (cover !== undefined && isScalar(src)) edits.push({ start: src.range![0], end: src.range![1], value: JSON.stringify(cover) });
  const route = top.items.find((item) => isScalar(item.key) && item.key.value === "route");
  if (route && isScalar(route.value) && route.value.range) edits.push({ start: route.value.range[0], end: route.value.range[1], value: newRoute });
  const aliasesItem = top.items.find((item) => isScalar(item.key) && item.key.value === "aliases");
  const written = aliasesItem ? ((aliasesItem.value as Node | null)?.toJSON() as unknown) : undefined;
  const current = (typeof written === "string" ? [written] : Array.isArray(written) ? written.map(String) : []).filter((a) => a !== newRoute);
  const next = alias && !current.includes(alias) ? [...current, alias] : current;
  const list = `[${next.join(", ")}]`;
  if (aliasesItem?.value && (aliasesItem.value as Node).range) {
    const node = aliasesItem.value as Node;
    // A block list (`- /x` lines) stays a block list, one more line at its end.
    if (isSeq(node) && !node.flow && alias && next.length === current.length + 1 && current.length === node.items.length) {
      const indent = /\n([ \t]*)-[^\n]*$/.exec(text.slice(0, node.range![1]))?.[1] ?? "  ";
      edits.push({ start: node.range![1], end: node.range![1], value: `${text.slice(0, node.range![1]).endsWith("\n") ? "" : "\n"}${indent}- ${alias}\n` });
    } else if (next.length > 0) edits.push({ start: node.range![0], end: node.range![1], value: list });
    else edits.push({ start: aliasesItem.key && (aliasesItem.key as Node).range ? (aliasesItem.key as Node).range![0] : node.range![0], end: node.range![2], value: "" });
  } else if (next.length > 0) {
    // A new key on the line after the title, where an author looks for it.
    const title = top.items.find((item) => isScalar(item.key) && item.key.value === "title")?.value as Node | undefined;
    const lineEnd = title?.range ? text.indexOf("\n", title.range[1] - 1) : -1;
    const at = lineEnd < 0 ? text.length : lineEnd + 1;
    edits.push({ start: at, end: at, value: `${at > 0 && text[at - 1] !== "\n" ? "\n" : ""}aliases: ${list}\n` });
  }
  return applyEdits(text, edits);
}

/** A YAML text with every string value that points at the old route rewritten (not keys, not under `skip`'s top-level keys). */
function rewriteYaml(source: string, rewrite: (url: string) => string | undefined, skip: readonly string[] = []): Edit {
  const doc = parseDocument(source);
  const edits: { start: number; end: number; value: string }[] = [];
  visit(doc, {
    Scalar(key, node, path) {
      if (key === "key" || typeof node.value !== "string" || !node.range) return;
      const top = path[1];
      if (isPair(top) && isScalar(top.key) && skip.includes(String(top.key.value))) return;
      const next = rewrite(node.value);
      if (next === undefined) return;
      const raw = source.slice(node.range[0], node.range[1]);
      const at = raw.indexOf(node.value);
      edits.push(at < 0 ? { start: node.range[0], end: node.range[1], value: JSON.stringify(next) } : { start: node.range[0] + at, end: node.range[0] + at + node.value.length, value: next });
    },
  });
  return { text: applyEdits(source, edits), links: 0, entries: edits.length };
}

/** A JSON data table with every string that points at the old route rewritten (not keys). */
function rewriteJson(source: string, rewrite: (url: string) => string | undefined): Edit {
  const edits: { start: number; end: number; value: string }[] = [];
  visitJson(source, {
    onLiteralValue(value, offset, length) {
      const next = typeof value === "string" ? rewrite(value) : undefined;
      if (next !== undefined) edits.push({ start: offset, end: offset + length, value: JSON.stringify(next) });
    },
  });
  return { text: applyEdits(source, edits), links: 0, entries: edits.length };
}

/** What git says of these files: those with changes not committed; whether the folder is in a repository at all. */
function gitStatus(cwd: string, files: readonly string[]): { repository: boolean; dirty: string[]; failure?: string } {
  try {
    const out = execFileSync("git", ["status", "--porcelain", "--untracked-files=all", "--", ...files], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const dirty = out.split("\n").filter(Boolean).map((line) => line.slice(3));
    return { repository: true, dirty };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    // No git on this machine, or a folder outside any repository: nothing to ask.
    if (e.code === "ENOENT" || /not a git repository/i.test(e.stderr ?? "")) return { repository: false, dirty: [] };
    // Git is there but could not answer (a repository owned by another user, a damaged index): the check cannot be made.
    const said = (e.stderr ?? "").split("\n").find((line) => /\S/.test(line))?.trim() ?? e.message;
    return { repository: true, dirty: [], failure: said };
  }
}

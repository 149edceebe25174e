/**
 * A site's editorial rules (content/rules.yaml, issue 41): each kind of rule finding what it
 * should and nothing else, at file:line, as warnings a build prints and, with `strict`,
 * errors that stop it.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { buildSite, SiteBuilder } from "../engine/pipeline/site-builder.js";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { articleModel, loadContent, parseArticle, type Article, type SiteContent } from "../engine/stages/load/content.js";
import { checkEditorialRules, isAfter, runEditorialRules, type RuleFinding } from "../engine/stages/checks/editorial-rules.js";
import { formatError, formatWarning } from "../engine/lib/errors.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { theme } from "../templates/theme.js";
import { editedFixture, projectRoot, testCode } from "./helpers.js";

/** An article of the fixture's folder, with its front matter. */
const article = (title: string, date: string, body: string, extra = "") => `---\ntitle: ${title}\ndate: ${date}\n${extra}---\n\n${body}\n`;

/** What the rules of `rules` find in the basic fixture with `edits`, as "file:line: message" (file relative to the fixture). */
async function findings(rules: string, edits: Record<string, string> = {}): Promise<string[]> {
  const dir = await editedFixture("basic", { "rules.yaml": rules, ...edits });
  const { content, errors } = await loadContent(dir, theme, { projectRoot: dir });
  expect(errors.map(formatError)).toEqual([]);
  return checkEditorialRules(content!, content!.rules!.value, theme.languages).map((f) => `${f.file}:${f.line}: ${f.message}`);
}

describe("editorial rules, each kind", () => {
  it("substitution: a wrong form at its line and column; a form differing in capitals only is matched exactly; addresses do not count", async () => {
    const rules = "grafia:\n  kind: substitution\n  files: ['articles/**', cards.yaml]\n  message: 'use {use}, não {found}'\n  swap:\n    on-line: online\n    CAGED: Caged\n";
    const found = await findings(rules, {
      "articles/novo.md": article("Novo", "02/09/2025", "Cursos On-line e o Novo Caged.\n\nO [CAGED](https://x.org/on-line) e seu@on-line.com; dados do CAGED."),
    });
    expect(found).toEqual(["articles/novo.md:6: use online, não On-line", "articles/novo.md:8: use Caged, não CAGED", "articles/novo.md:8: use Caged, não CAGED"]);
  });

  it("substitution: `lang` reads only the texts in that language; a YAML file is in the site's first language", async () => {
    const rules = "grafia:\n  kind: substitution\n  lang: en\n  files: ['articles/**', cards.yaml]\n  swap:\n    conversa: conversation\n";
    const found = await findings(rules);
    expect(found.every((line) => line.startsWith("articles/primeiro.en.md"))).toBe(true);
  });

  it("requires: a text that speaks of one thing names the other, or links an article that does", async () => {
    const rules = "saque:\n  kind: requires\n  when: 'saldo do FGTS'\n  needs: 'saque-aniversário'\n  message: 'fala de “{found}” sem o saque-aniversário'\n";
    const found = await findings(rules, {
      "articles/sem-aviso.md": article("Sem aviso", "02/09/2025", "Primeiro parágrafo.\n\nVocê saca o saldo do FGTS."),
      "articles/com-aviso.md": article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado no saque-aniversário."),
      "articles/com-link.md": article("Com link", "02/09/2025", "O saldo do FGTS: veja [o aviso](/com-aviso)."),
    });
    expect(found).toEqual(["articles/sem-aviso.md:8: fala de “saldo do FGTS” sem o saque-aniversário"]);
  });

  it("block-field: an item of a block's data without the field, at its line of the front matter", async () => {
    const found = await findings("fontes:\n  kind: block-field\n  block: stat-cards\n  field: source\n");
    // primeiro.md's `statCards` (`::stat-cards`): neither of its two figures has a source.
    expect(found).toEqual([
      "articles/primeiro.md:12: an item of `::stat-cards` (83%) has no `source`: add it, or say in it that there is none",
      "articles/primeiro.md:14: an item of `::stat-cards` (6 em 10) has no `source`: add it, or say in it that there is none",
    ]);
  });

  it("update-note: a note whose title says it is an update gives a date and links its source", async () => {
    const rules = "notas:\n  kind: update-note\n  title: '^Atualização'\n  date: '(?<day>\\d{2})/(?<month>\\d{2})/(?<year>\\d{4})'\n  message:\n    date: 'sem data: {title}'\n    link: 'sem link: {title}'\n";
    const note = (title: string, text: string) => `:::note{title="${title}"}\n${text}\n:::`;
    const found = await findings(rules, {
      "articles/notas.md": article(
        "Notas",
        "02/09/2025",
        [note("Atualização: a ordem de 20/11/2025", "A [ordem](https://x.gov/ordem) mudou."), note("Atualização: depois", "Mudou."), note("Um aviso", "Sem data nem link.")].join("\n\n"),
      ),
    });
    expect(found).toEqual(["articles/notas.md:10: sem data: Atualização: depois", "articles/notas.md:10: sem link: Atualização: depois"]);
  });

  it("pull-quote: copies a sentence said before it, in its section, not in the paragraph right above", async () => {
    const quote = ":::quote\nA frase que importa.\n:::";
    const found = await findings("destaques:\n  kind: pull-quote\n", {
      "articles/primeiro.md": article("Primeiro artigo", "01/09/2025", "Sem destaque."),
      "articles/bom.md": article("Bom", "02/09/2025", `Um parágrafo. A frase **que importa**.\n\nOutro parágrafo.\n\n${quote}`),
      "articles/antes.md": article("Antes", "02/09/2025", `Começo.\n\n${quote}\n\nDepois vem ela. A frase que importa.`),
      "articles/colado.md": article("Colado", "02/09/2025", `Um parágrafo. A frase que importa.\n\n${quote}`),
      "articles/secao.md": article("Seção", "02/09/2025", `A frase que importa.\n\n## Outra seção\n\nOutro assunto.\n\n${quote}`),
      "articles/nenhum.md": article("Nenhum", "02/09/2025", `Um texto.\n\n${quote}`),
    });
    expect(found).toEqual([
      "articles/antes.md:8: this pull quote comes before the sentence it copies: move it after that sentence",
      "articles/colado.md:8: this pull quote is right under the sentence it copies, so the same words are read twice in a row: move it a paragraph or more down",
      "articles/nenhum.md:8: this pull quote copies no sentence of its article: write the sentence in the text, then copy it here",
      "articles/secao.md:12: this pull quote is under another heading than the sentence it copies: move it into that sentence's section",
    ]);
  });

  it("later-links: a link to an article dated after the text, except in an update note dated since", async () => {
    const rules =
      "notas:\n  kind: update-note\n  title: '^Atualização'\n  date: '(?<day>\\d{2})/(?<month>\\d{2})/(?<year>\\d{4})'\ndatas:\n  kind: later-links\n  notes: notas\n  message: '{route} é de {date}'\n";
    const found = await findings(rules, {
      "articles/velho.md": article(
        "Velho",
        "01/08/2025",
        [
          "Veja [o novo](/novo) e [o primeiro](/primeiro#seção-inicial).",
          ':::note{title="Atualização: 20/11/2025"}\nDepois veio [o novo](/novo) e [o mais novo](/mais-novo), com a [fonte](https://x.gov/a).\n:::',
        ].join("\n\n"),
      ),
      "articles/novo.md": article("Novo", "10/10/2025", "Novo."),
      "articles/mais-novo.md": article("Mais novo", "01/12/2025", "Mais novo."),
    });
    expect(found).toEqual(["articles/velho.md:6: /novo é de 2025-10-10", "articles/velho.md:6: /primeiro é de 2025-09-01", "articles/velho.md:9: /mais-novo é de 2025-12-01"]);
    expect(isAfter("2025-09-19", "2025-08")).toBe(true);
    expect(isAfter("2025-08-04", "2025-08")).toBe(false);
  });

  it("paragraph-length: a paragraph longer than the site's limit, at its first line; each item of a list is one; a table and a heading are not", async () => {
    const long = Array.from({ length: 12 }, (_, i) => `palavra${i}`).join(" ");
    const body = [`## Um título de muitas palavras ${long}`, `${long}\ncontinua na linha seguinte.`, `- ${long}`, `| ${long} |\n|---|`, "Curto."].join("\n\n");
    const found = await findings("paragrafos:\n  kind: paragraph-length\n  max: 10\n", {
      "articles/primeiro.md": article("Primeiro artigo", "01/09/2025", "Curto."),
      "articles/longo.md": article("Longo", "02/09/2025", body),
    });
    expect(found).toEqual(["articles/longo.md:8: this paragraph has 16 words (at most 10): split it", "articles/longo.md:11: this paragraph has 12 words (at most 10): split it"]);
  });
});

describe("the rules file", () => {
  it("a mistake in it (an unknown kind, a regular expression that does not compile, a missing update-note rule) is an error at its line", async () => {
    const rules = "um:\n  kind: sbstitution\n  swap: { a: b }\ndois:\n  kind: requires\n  when: '(sem fim'\n  needs: x\ntres:\n  kind: later-links\n  notes: notas\n";
    const dir = await editedFixture("basic", { "rules.yaml": rules });
    const { errors } = await loadContent(dir, theme, { projectRoot: dir });
    const shown = errors.map((e) => `${path.basename(e.file)}:${e.line}`);
    expect(shown).toEqual(expect.arrayContaining(["rules.yaml:2", "rules.yaml:6"]));
    const all = errors.map(formatError).join("\n");
    expect(all).toContain("not a valid regular expression");
  });

  it("a site without one is checked against nothing", async () => {
    const dir = await editedFixture("basic", {});
    const { content } = await loadContent(dir, theme, { projectRoot: dir });
    expect(content!.rules).toBeUndefined();
  });
});

describe("a build with editorial rules", () => {
  const rules = "fontes:\n  kind: block-field\n  block: stat-cards\n  field: source\n  message: 'o número “{item}” não tem fonte'\n";

  it("prints what they find as warnings at file:line, and publishes the site", async () => {
    const dir = await editedFixture("basic", { "rules.yaml": rules });
    const result = await buildSite({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, writer: new MemoryWriter() });
    expect(result.ok).toBe(true);
    const shown = result.warnings.map(formatWarning).map((w) => w.replace(path.relative(projectRoot, dir), "<content>"));
    expect(shown).toEqual(expect.arrayContaining(["warning <content>/articles/primeiro.md:12: o número “83%” não tem fonte [fontes]"]));
  });

  it("a save that runs no stage (a file of public/ copied) keeps them: the dev pages' panel does not lose them", async () => {
    const dir = await editedFixture("basic", { "rules.yaml": rules });
    const publicDir = await mkdtemp(path.join(tmpdir(), "cafe-public-"));
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, publicDir, drafts: true });
    const writer = new MemoryWriter();
    const first = await builder.build(writer);
    const ours = (warnings: { message: string }[]) => warnings.filter((w) => w.message.endsWith("[fontes]")).map((w) => w.message);
    expect(ours(first.warnings)).toHaveLength(2);
    await writeFile(path.join(publicDir, "robots.txt"), "User-agent: *\n");
    const copied = await builder.update([path.join(publicDir, "robots.txt")], writer);
    expect(copied.changed).toEqual(["robots.txt"]);
    expect(ours(copied.warnings)).toEqual(ours(first.warnings));
  });

  it("with strict (--strict, CI=true), stops the build with each as an error: file:line, code frame and what to do", async () => {
    const dir = await editedFixture("basic", { "rules.yaml": rules });
    const result = await buildSite({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, writer: new MemoryWriter(), strict: true });
    expect(result.ok).toBe(false);
    const printed = result.errors.map(formatError).join("\n\n");
    expect(printed).toMatch(/articles\/primeiro\.md:12: o número “83%” não tem fonte \[fontes\]\n.*\n.*\n> 12 \|   - value: "83%"/);
    expect(printed).toContain("hint: a rule of");
  });
});

/** Rules that read each article alone, and one (`requires`) that reads the articles it links too. */
const SAVES_RULES =
  "saque:\n  kind: requires\n  when: 'saldo do FGTS'\n  needs: 'saque-aniversário'\n  message: 'fala de “{found}” sem o saque-aniversário'\n" +
  "grafia:\n  kind: substitution\n  swap:\n    on-line: online\n" +
  "paragrafos:\n  kind: paragraph-length\n  max: 12\n";
const SAVES_ARTICLES = {
  "articles/com-aviso.md": article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado no saque-aniversário."),
  "articles/com-link.md": article("Com link", "02/09/2025", "O saldo do FGTS: veja [o aviso](/com-aviso)."),
  "articles/outro.md": article("Outro", "02/09/2025", "Um curso on-line."),
  "articles/fixo.md": article("Fixo", "02/09/2025", "Outro curso on-line, e mais um on-line."),
};

describe("editorial rules across dev saves (issue 37: a save in a site of 4000 articles read every article again)", () => {
  const rules = SAVES_RULES;
  const files = { "rules.yaml": rules, ...SAVES_ARTICLES };
  const shown = (warnings: { message: string; file: string; line?: number }[]) => warnings.map((w) => `${path.basename(w.file)}:${w.line}: ${w.message}`).sort();

  /** The saves' site with a `later-links` rule too, and antiga.md (dated before nova.md) saying `antiga`. */
  const laterLinksSite = async (antiga: string) => {
    const dir = await editedFixture("basic", {
      ...files,
      "rules.yaml": `${SAVES_RULES}datas:\n  kind: later-links\n`,
      "articles/antiga.md": article("Antiga", "01/09/2025", antiga),
      "articles/nova.md": article("Nova", "03/09/2025", "Um texto."),
    });
    const { content } = await loadContent(dir, theme, { projectRoot: dir });
    return { content, value: content!.rules!.value };
  };

  /** Saves an article of `content` with a text (its articles as the save hands them on); what a run found, as "file:rule". */
  const saves = (content: SiteContent) => {
    const named = (name: string) => content.articles.find((a) => path.basename(a.file) === name)!;
    const save = (articles: Article[], name: string, text: string) => {
      const old = named(name);
      const saved = parseArticle(text, old.file, name, articleModel(theme)) as { article: Article };
      return articles.map((a) => (a.file === old.file ? saved.article : a));
    };
    const notes = (run: { findings: RuleFinding[] }) => run.findings.map((f) => `${path.basename(f.file)}:${f.rule}`);
    return { save, notes };
  };

  /** Saves in a row in `laterLinksSite`, each with what a run after it finds. */
  const rowOfSaves = (save: ReturnType<typeof saves>["save"]): [string, (articles: Article[]) => Article[], (found: string[]) => void][] => [
    // nova.md dated before antiga.md: antiga.md, not saved, no longer links a later page.
    ["nova.md", (a) => save(a, "nova.md", article("Nova", "01/08/2025", "Um texto.")), (found) => expect(found).not.toContain("antiga.md:datas")],
    // And after it again.
    ["nova.md", (a) => save(a, "nova.md", article("Nova", "03/09/2025", "Um texto.")), (found) => expect(found).toContain("antiga.md:datas")],
    // com-aviso.md stops saying what com-link.md links it for.
    ["com-aviso.md", (a) => save(a, "com-aviso.md", article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado.")), (found) => expect(found).toContain("com-link.md:saque")],
    // A save of an article in which nothing is found, then fixo.md (two findings) deleted.
    ["outro.md", (a) => save(a, "outro.md", article("Outro", "02/09/2025", "Um curso.")), (found) => expect(found).toContain("fixo.md:grafia")],
    ["fixo.md", (a) => a.filter((article) => path.basename(article.file) !== "fixo.md"), (found) => expect(found.join()).not.toMatch(/fixo/)],
  ];

  it("a save reads again only the saved article: the others' findings are the last run's, and every run finds what a build from scratch finds", async () => {
    const dir = await editedFixture("basic", files);
    const { content } = await loadContent(dir, theme, { projectRoot: dir });
    const first = runEditorialRules(content!, content!.rules!.value, theme.languages);
    // outro.md saved with a longer paragraph: a new article object; the others are the same.
    const old = content!.articles.find((a) => path.basename(a.file) === "outro.md")!;
    const saved = parseArticle(article("Outro", "02/09/2025", "Um curso on-line de treze palavras para passar do limite que a regra dá."), old.file, "outro.md", articleModel(theme));
    expect("article" in saved).toBe(true);
    const articles = content!.articles.map((a) => (a.file === (saved as { article: Article }).article.file ? (saved as { article: Article }).article : a));
    const next = { ...content!, articles };
    const again = runEditorialRules(next, content!.rules!.value, theme.languages, first.memory);
    expect(again.findings).toEqual(checkEditorialRules(next, content!.rules!.value, theme.languages));
    expect(again.findings.map((f) => `${path.basename(f.file)}:${f.rule}`)).toContain("outro.md:paragrafos");
    // An article not saved since is not read again: its findings are the last run's.
    const of = (run: { findings: RuleFinding[] }, name: string) => run.findings.filter((f) => path.basename(f.file) === name);
    expect(of(first, "fixo.md")).toHaveLength(2);
    expect(of(again, "fixo.md")).toEqual(of(first, "fixo.md"));
    expect(first.read).toHaveLength(content!.articles.length);
    expect(again.read.map((f) => path.basename(f))).toEqual(["outro.md"]);
  });

  it("go over the texts a slice at a time, every rule over one slice before the next (issue 38: held for every text, what they made of each was the peak of a cold build): one text a slice finds what one slice of them all finds", async () => {
    for (const dir of [await editedFixture("basic", files), path.join(projectRoot, "content")]) {
      const { content } = await loadContent(dir, theme, { projectRoot: dir });
      const whole = runEditorialRules(content!, content!.rules!.value, theme.languages);
      const sliced = runEditorialRules(content!, content!.rules!.value, theme.languages, undefined, undefined, undefined, { slice: 1 });
      expect(sliced.findings).toEqual(whole.findings);
      expect(sliced.memory.articles).toEqual(whole.memory.articles);
      expect([...sliced.read].sort()).toEqual([...whole.read].sort());
    }
    // The fixture's rules find something, in more than one text.
    const { content } = await loadContent(await editedFixture("basic", files), theme, { projectRoot });
    expect(new Set(runEditorialRules(content!, content!.rules!.value, theme.languages, undefined, undefined, undefined, { slice: 1 }).findings.map((f) => f.file)).size).toBeGreaterThan(1);
  });

  it("saves in a row, each run handed the last one's memory, find what a run from scratch finds, in articles not saved too, and keep every article's memory", async () => {
    const { content, value } = await laterLinksSite("Veja [a nova](/nova).");
    const { save, notes } = saves(content!);
    let articles = content!.articles;
    let run = runEditorialRules(content!, value, theme.languages);
    const steps = rowOfSaves(save);
    for (const [name, step, expected] of steps) {
      articles = step(articles);
      const next = { ...content!, articles };
      run = runEditorialRules(next, value, theme.languages, run.memory, run.state);
      const scratch = runEditorialRules(next, value, theme.languages);
      expect(run.findings, name).toEqual(scratch.findings);
      expected(notes(run));
      // What the next build from the cache starts from: every article's entry, as a run from scratch makes it.
      expect(run.memory, name).toEqual(scratch.memory);
    }
  });

  it("from the store's memory, told which articles' texts are not those of the run that made it (a build from the store), a run goes over those and the texts the rules found something in, and finds and keeps what a run from scratch does", async () => {
    const { content, value } = await laterLinksSite("Veja [a nova](/nova).");
    const { save, notes } = saves(content!);
    let articles = content!.articles;
    let run = runEditorialRules(content!, value, theme.languages);
    const every = run.looked;
    const steps = rowOfSaves(save);
    for (const [name, step, expected] of steps) {
      articles = step(articles);
      const next = { ...content!, articles };
      // The memory as the store gives it back (JSON), and the articles whose text is not that run's: the one saved.
      const stored = JSON.parse(JSON.stringify(run.memory)) as typeof run.memory;
      const changedSince = new Set(articles.filter((a) => path.basename(a.file) === name).map((a) => a.file));
      run = runEditorialRules(next, value, theme.languages, stored, undefined, undefined, { changedSince });
      const scratch = runEditorialRules(next, value, theme.languages);
      expect(run.findings, name).toEqual(scratch.findings);
      expected(notes(run));
      expect(JSON.parse(JSON.stringify(run.memory)), name).toEqual(JSON.parse(JSON.stringify(scratch.memory)));
      // Not every text for every rule: the saved one, and those a rule found something in.
      expect(run.looked, name).toBeLessThan(every);
    }
  });

  it("told which articles a save read again (watch mode), a run goes over those alone, not every article, and finds and keeps what a run from scratch does", async () => {
    const { content, value } = await laterLinksSite("Veja [a nova](/nova) e [a outra](/outra).");
    const model = articleModel(theme);
    const fileOf = (name: string) => path.join(path.dirname(content!.articles[0]!.file), name);
    // The articles as a save hands them on: how many of them a run reads by index is counted.
    let looked = 0;
    const counted = (articles: Article[]) => new Proxy(articles, { get: (target, key, receiver) => (typeof key === "string" && /^\d+$/.test(key) && looked++, Reflect.get(target, key, receiver)) });
    const parsed = (name: string, text: string) => (parseArticle(text, fileOf(name), name, model) as { article: Article }).article;
    let articles = counted([...content!.articles]);
    let run = runEditorialRules({ ...content!, articles }, value, theme.languages);
    const steps: [string, Article | undefined, (found: string[]) => void][] = [
      ["nova.md", parsed("nova.md", article("Nova", "01/08/2025", "Um texto.")), (found) => expect(found).not.toContain("antiga.md:datas")],
      ["nova.md", parsed("nova.md", article("Nova", "03/09/2025", "Um texto.")), (found) => expect(found).toContain("antiga.md:datas")],
      ["com-aviso.md", parsed("com-aviso.md", article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado.")), (found) => expect(found).toContain("com-link.md:saque")],
      // A new article, dated after antiga.md, which links its address; then fixo.md (two findings) deleted.
      ["outra.md", parsed("outra.md", article("Outra", "05/09/2025", "Um curso on-line.")), (found) => expect(found).toContain("outra.md:grafia")],
      ["fixo.md", undefined, (found) => expect(found.join()).not.toMatch(/fixo/)],
    ];
    const notes = (found: RuleFinding[]) => found.map((f) => `${path.basename(f.file)}:${f.rule}`);
    for (const [name, saved, expected] of steps) {
      const file = fileOf(name);
      const from = articles;
      const plain = [...from.filter((a) => a.file !== file), ...(saved ? [saved] : [])].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
      articles = counted(plain);
      looked = 0;
      const next = { ...content!, articles };
      run = runEditorialRules(next, value, theme.languages, run.memory, run.state, { from, files: new Map([[file, saved]]) });
      expect(looked, name).toBe(0);
      const scratch = runEditorialRules({ ...content!, articles: plain }, value, theme.languages);
      expect(run.findings, name).toEqual(scratch.findings);
      expected(notes(run.findings));
      expect(run.memory, name).toEqual(scratch.memory);
    }
  });

  it("a save's run makes none of the rules' patterns again (the last run's are used), and finds what a run from scratch does", async () => {
    const { content, value } = await laterLinksSite("Veja [a nova](/nova) e [a outra](/outra).");
    const model = articleModel(theme);
    const file = path.join(path.dirname(content!.articles[0]!.file), "outra.md");
    const first = runEditorialRules(content!, value, theme.languages);
    const saved = (parseArticle(article("Outra", "05/09/2025", "Um curso on-line, e-mail, post."), file, "outra.md", model) as { article: Article }).article;
    const articles = [...content!.articles.filter((a) => a.file !== file), saved].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const next = { ...content!, articles };
    const again = runEditorialRules(next, value, theme.languages, first.memory, first.state, { from: content!.articles, files: new Map([[file, saved]]) });
    // The substitution's two patterns, the other rules' own: each the very one the first run made.
    expect(again.state.patterns.size).toBeGreaterThanOrEqual(4);
    expect([...again.state.patterns].filter(([key, made]) => first.state.patterns.get(key) !== made).map(([key]) => key)).toEqual([]);
    expect(again.findings).toEqual(runEditorialRules(next, value, theme.languages).findings);
    expect(again.findings.map((f) => `${path.basename(f.file)}:${f.rule}`)).toContain("outra.md:grafia");
  });

  it("the site's other files the rules read (site.yaml, the collections, the data) are searched again only when their text changed", async () => {
    const dir = await editedFixture("basic", { "rules.yaml": "grafia:\n  kind: substitution\n  files: [site.yaml, 'articles/**']\n  swap:\n    on-line: online\n", ...SAVES_ARTICLES });
    const { content } = await loadContent(dir, theme, { projectRoot: dir });
    const rules = content!.rules!.value;
    const site = content!.site.file;
    const first = runEditorialRules(content!, rules, theme.languages);
    // Kept by its text's hash, as an article's findings are: the same text is not searched again.
    expect(first.memory.articles[site]).toBeDefined();
    const again = runEditorialRules(content!, rules, theme.languages, first.memory);
    expect(again.memory.articles[site]).toBe(first.memory.articles[site]);
    expect(again.findings).toEqual(first.findings);
    expect(again.read).toEqual([]);
    // Edited: searched again; what it finds is what a run from scratch finds.
    const edited = { ...content!, site: { ...content!.site, source: `${content!.site.source}# um curso on-line\n` } };
    const after = runEditorialRules(edited, rules, theme.languages, again.memory);
    expect(after.findings).toEqual(checkEditorialRules(edited, rules, theme.languages));
    expect(after.findings.some((f) => f.file === site && f.rule === "grafia")).toBe(true);
  });

  it("in watch mode, a saved article that stops saying what another one links it for gives that other one its finding (and back)", async () => {
    const dir = await editedFixture("basic", files);
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, drafts: true });
    const writer = new MemoryWriter();
    const ours = (warnings: { message: string; file: string; line?: number }[]) => shown(warnings).filter((w) => w.includes("[saque]") || w.includes("[grafia]") || w.includes("[paragrafos]"));
    const cold = async () => ours((await buildSite({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, drafts: true, writer: new MemoryWriter() })).warnings);
    const first = await builder.build(writer);
    expect(ours(first.warnings).some((w) => w.startsWith("com-link.md"))).toBe(false);
    // com-aviso.md no longer names the saque-aniversário: com-link.md, unchanged, links nothing that does.
    const aviso = path.join(dir, "articles/com-aviso.md");
    await writeFile(aviso, article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado."));
    const edited = await builder.update([aviso], writer);
    expect(ours(edited.warnings)).toContain("com-link.md:6: fala de “saldo do FGTS” sem o saque-aniversário [saque]");
    expect(ours(edited.warnings)).toEqual(await cold());
    await writeFile(aviso, article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado no saque-aniversário."));
    const back = await builder.update([aviso], writer);
    expect(ours(back.warnings).some((w) => w.startsWith("com-link.md"))).toBe(false);
    expect(ours(back.warnings)).toEqual(await cold());
    await builder.close();
  });
});

describe("editorial rules across command-line builds (issue 37: a one-article edit at 4000 articles read every article again)", () => {
  // The rules of the dev saves above, and two that read the articles' blocks' data (one in a data file).
  const rules = SAVES_RULES + "fontes:\n  kind: block-field\n  block: stat-cards\n  field: source\n" + "precos:\n  kind: block-field\n  block: tool-table\n  field: preco\n";
  const files = { "rules.yaml": rules, ...SAVES_ARTICLES };
  /** A command-line build: a new builder over the cache folder, as `npm run build` opens it. */
  const build = async (dir: string, cacheDir: string | undefined, strict = false) => {
    const cache = cacheDir === undefined ? undefined : await openSiteCache(cacheDir, testCode());
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache, strict });
    try {
      return await builder.build(new MemoryWriter());
    } finally {
      await builder.close();
    }
  };
  const ours = (warnings: { message: string; file: string; line?: number }[]) => warnings.filter((w) => /\[(saque|grafia|paragrafos|fontes|precos)\]$/.test(w.message)).map(formatWarning);

  it("a build after a one-article edit reads only that article, and warns of what a build from scratch warns of", async () => {
    const dir = await editedFixture("basic", files);
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-rules-cache-"));
    const first = await build(dir, cacheDir);
    expect(first.ok).toBe(true);
    expect(first.rules!.read).toBeGreaterThanOrEqual(6);
    expect(ours(first.warnings).length).toBeGreaterThan(4);
    // Nothing changed: no article is read again, and the warnings are the same.
    const same = await build(dir, cacheDir);
    expect(same.rules).toEqual({ read: 0, kept: first.rules!.read + first.rules!.kept });
    expect(ours(same.warnings)).toEqual(ours(first.warnings));
    // One article edited: it alone is read; com-link.md's finding (it reads com-aviso.md) is found again.
    await writeFile(path.join(dir, "articles/com-aviso.md"), article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado, on-line."));
    const edited = await build(dir, cacheDir);
    expect(edited.rules!.read).toBe(1);
    const cold = await build(dir, undefined);
    expect(cold.rules!.read).toBe(first.rules!.read);
    expect(ours(edited.warnings)).toEqual(ours(cold.warnings));
    expect(ours(edited.warnings).join("\n")).toMatch(/com-link\.md:6: fala de “saldo do FGTS” sem o saque-aniversário \[saque\]/);
    expect(ours(edited.warnings).join("\n")).toMatch(/com-aviso\.md:6: write `online`, not `on-line` \[grafia\]/);
  });

  it("after saves in dev mode, the cache it saves lets the next build read no article again and warn as a build from scratch does", async () => {
    const dir = await editedFixture("basic", files);
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-rules-cache-"));
    const dev = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, drafts: false, cache: await openSiteCache(cacheDir, testCode()) });
    const writer = new MemoryWriter();
    expect((await dev.build(writer)).ok).toBe(true);
    const aviso = path.join(dir, "articles/com-aviso.md");
    await writeFile(aviso, article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado, on-line."));
    expect((await dev.update([aviso], writer)).ok).toBe(true);
    await writeFile(aviso, article("Com aviso", "02/09/2025", "O saldo do FGTS fica bloqueado. Outro curso on-line."));
    expect((await dev.update([aviso], writer)).ok).toBe(true);
    // As the dev builder does once it is idle.
    await dev.saveCache();
    await dev.close();
    const next = await build(dir, cacheDir);
    expect(next.rules!.read).toBe(0);
    expect(ours(next.warnings)).toEqual(ours((await build(dir, undefined)).warnings));
  });

  it("a strict build from the cache gives each finding its code frame, in an article or in a data file, as a build from scratch does", async () => {
    const dir = await editedFixture("basic", files);
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-rules-cache-"));
    expect((await build(dir, cacheDir)).ok).toBe(true);
    const strict = await build(dir, cacheDir, true);
    expect(strict.ok).toBe(false);
    const cold = await build(dir, undefined, true);
    const printed = strict.errors.map(formatError);
    expect(printed).toEqual(cold.errors.map(formatError));
    expect(printed.join("\n")).toMatch(/articles\/fixo\.md:6:\d+: write `online`.*\n(.*\n)*> +6 \| Outro curso on-line/);
    expect(printed.join("\n")).toMatch(/data\/tools\.json:\d+: an item of `::tool-table` \(Obsidian\) has no `preco`.*\n(.*\n)*> +\d+ \| +\{/);
    expect(strict.errors.every((e) => e.source !== undefined && e.source !== "")).toBe(true);
  });

  it("an edit to the rules file, or to a data file, reads every article again", async () => {
    const dir = await editedFixture("basic", files);
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-rules-cache-"));
    const first = await build(dir, cacheDir);
    const all = first.rules!.read;
    await writeFile(path.join(dir, "rules.yaml"), rules.replace("max: 12", "max: 8"));
    const ruled = await build(dir, cacheDir);
    expect(ruled.rules!.read).toBe(all);
    expect(ours(ruled.warnings)).toEqual(ours((await build(dir, undefined)).warnings));
    const tools = path.join(dir, "data/tools.json");
    const data = JSON.parse(await readFile(tools, "utf8")) as Record<string, unknown>[];
    await writeFile(tools, JSON.stringify(data.map((item, i) => (i === 0 ? { ...item, name: "Obsidian 2" } : item)), null, 2));
    const changed = await build(dir, cacheDir);
    expect(changed.rules!.read).toBe(all);
    expect(ours(changed.warnings)).toEqual(ours((await build(dir, undefined)).warnings));
    expect(ours(changed.warnings).join("\n")).toMatch(/\(Obsidian 2\) has no `preco`/);
  });

  it("a cache whose kept findings are not what this code keeps (damaged) is not used for them", async () => {
    const dir = await editedFixture("basic", files);
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-rules-cache-"));
    const first = await build(dir, cacheDir);
    // The findings by article are kept in shards of their own, which store.json names.
    const store = JSON.parse(await readFile(path.join(cacheDir, "store.json"), "utf8")) as { parts: Record<string, { names: string[] }> };
    for (const name of store.parts["rules.articles"]!.names) {
      const shardFile = path.join(cacheDir, name);
      // A shard holds its entries, and once the values several of them hold (`shared`, named by place).
      const kept = JSON.parse(await readFile(shardFile, "utf8")) as { shared: Record<string, unknown>[]; entries: Record<string, { found: Record<string, unknown> | number }> };
      for (const entry of Object.values(kept.entries)) {
        const found = typeof entry.found === "number" ? kept.shared[entry.found]! : entry.found;
        entry.found = Object.fromEntries(Object.keys(found).map((rule) => [rule, rule === "grafia" ? [{ rule: "grafia", file: "elsewhere.md", line: 1, message: "x" }] : "damaged"]));
      }
      await writeFile(shardFile, JSON.stringify({ shared: [], refs: {}, entries: kept.entries }));
    }
    const again = await build(dir, cacheDir);
    expect(again.rules!.read).toBe(first.rules!.read);
    expect(ours(again.warnings)).toEqual(ours(first.warnings));
  });
});

/**
 * The schema of a site's editorial rules file (`rules.yaml` of its content folder): the kinds
 * of rule the engine knows, and what each takes. The load stage validates the file with it;
 * checks/editorial-rules.ts runs the rules (its comment says what each kind finds).
 */
import { z } from "zod";

/** A regular expression as the rules file writes it (a string); its mistakes are named at their line. */
const pattern = z.string().min(1).refine((text) => {
  try {
    new RegExp(text, "u");
    return true;
  } catch {
    return false;
  }
}, "not a valid regular expression (JavaScript syntax, with the u flag)");

const common = {
  /** Patterns of the files the rule reads, relative to the content folder. */
  files: z.array(z.string().min(1)).min(1).optional(),
  /** Only texts in this language (an article's `lang`; other files are in the site's first language). */
  lang: z.string().min(1).optional(),
  /**
   * What the author reads; `{braces}` are filled in by the check (each kind lists its own). A
   * kind that finds more than one thing (an update note without a date, or without a link)
   * takes one message for all, or one per finding by its name.
   */
  message: z.union([z.string().min(1), z.record(z.string(), z.string().min(1))]).optional(),
};

const ruleSchema = z.discriminatedUnion("kind", [
  /** A wrong form and the right one: `swap: { on-line: online }`. `{found}`, `{use}`. */
  z.strictObject({ kind: z.literal("substitution"), swap: z.record(z.string().min(1), z.string().min(1)), ...common }),
  /** A text that matches `when` must match `needs`, or link an article that does. `{found}`. */
  z.strictObject({ kind: z.literal("requires"), when: pattern, needs: pattern, ...common }),
  /** Each item of a block's data (`::block`, `::block{data="key"}`, `::block{src="file"}`) has `field`. `{block}`, `{field}`, `{item}`. */
  z.strictObject({ kind: z.literal("block-field"), block: z.string().min(1), field: z.string().min(1), ...common }),
  /**
   * A `:::container{title="…"}` whose title matches `title` is an update note: its title has a
   * date (`date`, with named groups year, month and, optionally, day) and its text a link: findings `date`, `link`; `{title}`.
   */
  z.strictObject({
    kind: z.literal("update-note"),
    container: z.string().min(1).default("note"),
    title: pattern,
    date: pattern.refine((text) => /\(\?<year>/.test(text) && /\(\?<month>/.test(text), "the date pattern needs the named groups (?<year>…) and (?<month>…)"),
    ...common,
  }),
  /** A `:::container` that repeats a sentence of its article, after it, in its section, not right under it: findings `nowhere`, `before`, `other-section`, `right-under`. */
  z.strictObject({ kind: z.literal("pull-quote"), container: z.string().min(1).default("quote"), ...common }),
  /** No link to an article dated after this one, except in an update note (`notes`: the name of an update-note rule) not older than it. `{route}`, `{date}`. */
  z.strictObject({ kind: z.literal("later-links"), notes: z.string().min(1).optional(), ...common }),
  /** No paragraph longer than `max` words. `{words}`, `{max}`. */
  z.strictObject({ kind: z.literal("paragraph-length"), max: z.number().int().positive(), ...common }),
]);

/** The rules file: rule name → rule. */
export const editorialRulesSchema = z
  .record(z.string().regex(/^[\p{L}\p{N}_-]+$/u, "a rule's name is letters, digits, - and _"), ruleSchema)
  .superRefine((rules, context) => {
    for (const [name, rule] of Object.entries(rules)) {
      if (rule.kind === "later-links" && rule.notes !== undefined && rules[rule.notes]?.kind !== "update-note") {
        const notes = Object.entries(rules).filter(([, r]) => r.kind === "update-note").map(([n]) => n);
        context.addIssue({ code: "custom", path: [name, "notes"], message: `\`${rule.notes}\` is not an update-note rule of this file${notes.length > 0 ? ` (its update-note rules: ${notes.join(", ")})` : ""}` });
      }
    }
  });

export type EditorialRule = z.output<typeof ruleSchema>;
export type EditorialRules = z.output<typeof editorialRulesSchema>;

/** The name of the rules file in a content folder. */
export const RULES_FILE = "rules.yaml";


/**
 * Dependencies fail closed: an id nobody can hash is an error where it is recorded, and an id
 * in an old record that has no value now reads as changed (the page is rendered again).
 */
import { describe, expect, it } from "vitest";
import { loadContent } from "../engine/stages/load/content.js";
import { dep, DepValues, Recorder, type DepId } from "../engine/incremental/dependencies.js";
import { buildRoutes } from "../engine/stages/routes/routes.js";
import { fixture } from "./helpers.js";
import { theme } from "../templates/theme.js";

const { content } = await loadContent(fixture("basic"), theme);
const table = buildRoutes(content!, theme).value;
const values = new DepValues({ content: content!, table, listing: () => [], block: () => null });

describe("dependency values", () => {
  it("hash every kind their stage has made, the same twice", () => {
    for (const id of [dep.site(), dep.articles(), dep.routes(), dep.route("/primeiro"), dep.collection("cards"), dep.data(), dep.listing("cards")]) {
      expect(values.hash(id)).toMatch(/^[\w-]{27}$/);
      expect(values.hash(id)).toBe(values.hash(id));
    }
  });

  it("throw where a misspelt kind is recorded", () => {
    const recorder = new Recorder(values);
    expect(() => recorder.read("sitte" as DepId)).toThrow(/dependency 'sitte' has no value here/);
    expect(() => recorder.read("listng:cards" as DepId)).toThrow(/its kind is unknown/);
  });

  it("throw for a kind whose stage has not run (a body before the render stage)", () => {
    const article = content!.articles[0]!;
    expect(() => new Recorder(values).read(dep.body(article))).toThrow(/its stage has not run/);
  });

  it("are kept once hashed, but a page's own (read by it alone): a thread that renders thousands of pages holds no hash of each one's route, card and body", () => {
    const own = dep.route(table.routes.find((route) => route.kind === "article")!.path);
    const fresh = new DepValues({ content: content!, table, listing: () => [], block: () => null });
    const recorder = new Recorder(fresh, (id) => id === own);
    recorder.read(own);
    recorder.read(dep.site());
    expect(recorder.deps).toEqual({ [own]: values.hash(own), [dep.site()]: values.hash(dep.site()) });
    expect(fresh.known(own)).toBeUndefined();
    expect(fresh.known(dep.site())).toBe(values.hash(dep.site()));
    expect(() => new Recorder(fresh, () => true).read("sitte" as DepId)).toThrow(/dependency 'sitte' has no value here/);
  });

  it("read an id without a value in an old record as changed, never as unchanged", () => {
    expect(values.unchanged({ [dep.site()]: values.hash(dep.site()) })).toBe(true);
    expect(values.unchanged({ [dep.site()]: values.hash(dep.site()), "unknown:x": "anything" })).toBe(false);
    expect(values.unchanged({ [dep.site()]: "an older hash" })).toBe(false);
    expect(values.unchanged(undefined)).toBe(false);
  });
});

/**
 * Stage 2, second half — every address the site answers besides its pages: the articles'
 * aliases and site.yaml's redirects (aliases.ts), checked against the record of addresses
 * published before (published-routes.ts), and the targets every link is checked against
 * (link-check.ts). Returns them with the errors found; changes nothing.
 */
import path from "node:path";
import type { SiteContent } from "../load/content.js";
import type { ContentError } from "../../lib/errors.js";
import { buildRedirects, type RedirectTable } from "./aliases.js";
import type { LinkTargets } from "../checks/rendered-links.js";
import { listPublicFiles, publicFileErrors } from "../write/public-files.js";
import { answeredRoutes, readPublishedRoutes, RECORD_FILE, vanishedRouteErrors, whereNow, type PublishedRecord, type RouteHistory } from "./published-routes.js";
import { REDIRECT_FILES } from "./redirect-files.js";
import type { RouteTable } from "./routes.js";
import { SITE_FILES } from "../render/site-files.js";

export interface AddressInput {
  content: SiteContent;
  table: RouteTable;
  contentDir: string;
  publicDir: string;
  /** The record of published addresses: `<contentDir>/published-routes.txt` unless told otherwise; false: none. */
  recordFile?: string | false;
  /** What earlier builds read: where the page of a vanished address went. */
  history: RouteHistory;
}

export interface Addresses {
  redirects: RedirectTable;
  record?: PublishedRecord;
  /** Every address answered: pages, aliases, redirects. */
  answered: Set<string>;
  /** What a link may point at. */
  targets: LinkTargets;
  errors: ContentError[];
}

export function addressStage({ content, table, contentDir, publicDir, recordFile, history }: AddressInput): Addresses {
  const publicFiles = listPublicFiles(publicDir);
  const generated = [...SITE_FILES, ...REDIRECT_FILES];
  const redirects = buildRedirects({ content, table, publicFiles, generated });
  const file = recordFile ?? path.join(contentDir, RECORD_FILE);
  const record = file === false ? undefined : readPublishedRoutes(file);
  const movedTo = whereNow(history.advance(content.articles), content.articles, record, table);
  const targets: LinkTargets = { content, table, redirects: redirects.byFrom, publicFiles, generated: new Set(SITE_FILES.map((f) => `/${f}`)), movedTo };
  const answered = answeredRoutes(table, redirects.redirects);
  // A route whose article did not load is not gone: its own error says what to fix.
  const answeredOrBroken = new Set([...answered, ...table.unreadable]);
  const errors = [
    ...redirects.errors,
    ...(record ? vanishedRouteErrors({ record, answered: answeredOrBroken, content, table, movedTo }) : []),
    ...publicFileErrors(publicFiles, table, generated),
  ];
  return { redirects, record, answered, targets, errors };
}

/** The note-tools comparison table and the scored top-10 table (SPEC §2, §9). */
import Trophy from "lucide-react/icons/trophy";
import ExternalLink from "lucide-react/icons/external-link";
import { fill } from "../../client/format.js";
import { bodyLabelsFor } from "../texts.js";
import type { BlockProps } from "./heading.js";
import { formatScore, ratingTone, scoreTone } from "./ratings.js";

/** The rating columns, in the table's order (their headers are labels of the content's language). */
const CRITERIA = ["captura", "pesquisa", "ligacao", "colaboracao", "offline", "ia"] as const;

function OpenLink({ href, name, label }: { href: string; name: string; label: string }) {
  return (
    <a className="open-link" href={href} target="_blank" rel="noopener noreferrer">
      {label}<span className="sr-only"> {name}</span>
      <ExternalLink aria-hidden="true" size={14} />
    </a>
  );
}

export function ToolTable({ data, lang }: BlockProps<"tool-table">) {
  const labels = bodyLabelsFor(lang).tools;
  return (
    <div className="table-scroll" role="region" aria-label={fill(labels.region, { count: data.length })} tabIndex={0}>
      <table className="data-table tool-table">
        <caption className="sr-only">{fill(labels.caption, { count: data.length })}</caption>
        <thead>
          <tr>
            <th scope="col">{labels.tool}</th>
            {CRITERIA.map((key) => (
              <th key={key} scope="col">
                {labels.criteria[key]}
              </th>
            ))}
            <th scope="col">{labels.notes}</th>
            <th scope="col">{labels.link}</th>
          </tr>
        </thead>
        <tbody>
          {data.map((row) => (
            <tr key={row.name} className={row.isWinner ? "is-winner" : undefined}>
              <th scope="row">
                {row.name}
                {row.isWinner ? (
                  <span className="winner-mark">
                    <Trophy aria-hidden="true" size={14} /> {labels.winner}
                  </span>
                ) : null}
              </th>
              {CRITERIA.map((key) => (
                <td key={key}>
                  <span className={`rating tone-${ratingTone(row[key])}`}>{row[key]}</span>
                </td>
              ))}
              <td className="tool-notes">{row.notas}</td>
              <td>
                <OpenLink href={row.link} name={row.name} label={labels.open} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScoreTable({ data, lang }: BlockProps<"score-table">) {
  const all = bodyLabelsFor(lang);
  const labels = all.scores;
  return (
    <div className="table-scroll" role="region" aria-label={fill(labels.region, { count: data.length })} tabIndex={0}>
      <table className="data-table score-table">
        <caption className="sr-only">{fill(labels.caption, { count: data.length })}</caption>
        <thead>
          <tr>
            <th scope="col">{all.tools.tool}</th>
            <th scope="col">{labels.priceIA}</th>
            <th scope="col">{labels.online}</th>
            <th scope="col">{labels.versatility}</th>
            <th scope="col">{labels.total}</th>
            <th scope="col">{all.tools.link}</th>
          </tr>
        </thead>
        <tbody>
          {data.map((row) => (
            <tr key={row.id} className={row.highlighted ? "is-winner" : undefined}>
              <th scope="row">
                <span className="score-rank">{row.id}.</span> {row.tool}
                {row.highlighted ? (
                  <span className="winner-mark">
                    <Trophy aria-hidden="true" size={14} /> {labels.overallWinner}
                  </span>
                ) : null}
              </th>
              {([row.priceIAScore, row.onlineScore, row.versatilityScore] as const).map((score, i) => (
                <td key={i}>
                  <span className={`score tone-${scoreTone(score)}`}>{formatScore(score, all.locale)}</span>
                </td>
              ))}
              <td>
                <span className={`score score-total tone-${scoreTone(row.totalScore / 3)}`}>
                  {fill(labels.outOf, { score: formatScore(row.totalScore, all.locale) })}
                </span>
              </td>
              <td>
                <OpenLink href={row.link} name={row.tool} label={all.tools.open} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

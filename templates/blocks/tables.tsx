/** The note-tools comparison table and the scored top-10 table (SPEC §2, §9). */
import Trophy from "lucide-react/icons/trophy";
import ExternalLink from "lucide-react/icons/external-link";
import type { BlockProps } from "./heading.js";
import { formatScore, ratingTone, scoreTone } from "./ratings.js";

const CRITERIA = [
  ["captura", "Captura"],
  ["pesquisa", "Pesquisa"],
  ["ligacao", "Ligação"],
  ["colaboracao", "Colaboração"],
  ["offline", "Offline"],
  ["ia", "IA"],
] as const;

function OpenLink({ href, name }: { href: string; name: string }) {
  return (
    <a className="open-link" href={href} target="_blank" rel="noopener noreferrer">
      Abrir<span className="sr-only"> {name}</span>
      <ExternalLink aria-hidden="true" size={14} />
    </a>
  );
}

export function ToolTable({ data }: BlockProps<"tool-table">) {
  return (
    <div className="table-scroll" role="region" aria-label="Comparativo de ferramentas de notas" tabIndex={0}>
      <table className="data-table tool-table">
        <caption className="sr-only">Comparativo de {data.length} ferramentas de notas</caption>
        <thead>
          <tr>
            <th scope="col">Ferramenta</th>
            {CRITERIA.map(([, label]) => (
              <th key={label} scope="col">
                {label}
              </th>
            ))}
            <th scope="col">Notas</th>
            <th scope="col">Link</th>
          </tr>
        </thead>
        <tbody>
          {data.map((row) => (
            <tr key={row.name} className={row.isWinner ? "is-winner" : undefined}>
              <th scope="row">
                {row.name}
                {row.isWinner ? (
                  <span className="winner-mark">
                    <Trophy aria-hidden="true" size={14} /> Vencedora
                  </span>
                ) : null}
              </th>
              {CRITERIA.map(([key]) => (
                <td key={key}>
                  <span className={`rating tone-${ratingTone(row[key])}`}>{row[key]}</span>
                </td>
              ))}
              <td className="tool-notes">{row.notas}</td>
              <td>
                <OpenLink href={row.link} name={row.name} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScoreTable({ data }: BlockProps<"score-table">) {
  return (
    <div className="table-scroll" role="region" aria-label="Top 10 por pontuação" tabIndex={0}>
      <table className="data-table score-table">
        <caption className="sr-only">Top {data.length}: notas de 0 a 10 por critério e total de 30</caption>
        <thead>
          <tr>
            <th scope="col">Ferramenta</th>
            <th scope="col">Preço/IA</th>
            <th scope="col">Online</th>
            <th scope="col">Versatilidade</th>
            <th scope="col">Total</th>
            <th scope="col">Link</th>
          </tr>
        </thead>
        <tbody>
          {data.map((row) => (
            <tr key={row.id} className={row.highlighted ? "is-winner" : undefined}>
              <th scope="row">
                <span className="score-rank">{row.id}.</span> {row.tool}
                {row.highlighted ? (
                  <span className="winner-mark">
                    <Trophy aria-hidden="true" size={14} /> Vencedora geral
                  </span>
                ) : null}
              </th>
              {([row.priceIAScore, row.onlineScore, row.versatilityScore] as const).map((score, i) => (
                <td key={i}>
                  <span className={`score tone-${scoreTone(score)}`}>{formatScore(score)}</span>
                </td>
              ))}
              <td>
                <span className={`score score-total tone-${scoreTone(row.totalScore / 3)}`}>
                  {formatScore(row.totalScore)}/30
                </span>
              </td>
              <td>
                <OpenLink href={row.link} name={row.tool} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

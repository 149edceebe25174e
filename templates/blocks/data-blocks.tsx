/** Blocks whose content is data from front matter or content/data. */
import { fill } from "../../client/format.js";
import { bodyLabelsFor } from "../texts.js";
import { Heading, type BlockProps } from "./heading.js";

export function StatCards({ data, lang }: BlockProps<"stat-cards">) {
  const labels = bodyLabelsFor(lang);
  return (
    <ul className="stat-cards">
      {data.map((stat) => (
        <li key={stat.value + stat.label} className="stat-card">
          <span className="stat-value">{stat.value}</span>
          <span className="stat-label">{stat.label}</span>
          {stat.source ? <span className="stat-source">{fill(labels.statSource, { source: stat.source })}</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function Pillars({ data, level }: BlockProps<"pillars">) {
  return (
    <ol className="pillars">
      {data.map((pillar) => (
        <li key={pillar.title} className="pillar">
          <span className="pillar-emoji" aria-hidden="true">
            {pillar.emoji}
          </span>
          <Heading level={level} className="pillar-title">{pillar.title}</Heading>
          <p>{pillar.description}</p>
          <p className="pillar-detail">{pillar.detail}</p>
        </li>
      ))}
    </ol>
  );
}

export function Plan({ data, level, lang }: BlockProps<"plan">) {
  const labels = bodyLabelsFor(lang);
  return (
    <ol className="plan">
      {data.map((week) => (
        <li key={week.week} className="plan-week">
          <Heading level={level} className="plan-title">
            <span className="plan-label">{typeof week.week === "number" ? fill(labels.week, { n: week.week }) : week.week}</span> {week.title}
          </Heading>
          <ul>
            {week.tasks.map((task) => (
              <li key={task}>{task}</li>
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}

export function Roadmap({ data, level }: BlockProps<"roadmap">) {
  let step = 0;
  return (
    <ol className="roadmap">
      {data.map((phase) => (
        <li key={phase.phase} className="roadmap-phase">
          <Heading level={level} className="roadmap-phase-title">
            <span className="roadmap-phase-label">{phase.phase}</span> {phase.title}
          </Heading>
          <ol className="roadmap-steps" start={step + 1}>
            {phase.steps.map((s) => {
              step += 1;
              return (
                <li key={s.title} className="roadmap-step">
                  <span className="roadmap-number" aria-hidden="true">
                    {step}
                  </span>
                  <div>
                    <strong>{s.title}</strong>
                    <p>{s.description}</p>
                  </div>
                </li>
              );
            })}
          </ol>
        </li>
      ))}
    </ol>
  );
}

export function References({ data }: BlockProps<"references">) {
  return (
    <ol className="references">
      {data.map((ref) => {
        const details = [ref.publisher, ref.year].filter(Boolean).join(", ");
        return (
          <li key={ref.title}>
            {ref.url ? (
              <a href={ref.url} target="_blank" rel="noopener noreferrer">
                {ref.title}
              </a>
            ) : (
              <cite>{ref.title}</cite>
            )}
            {details ? <span className="reference-details"> — {details}</span> : null}
          </li>
        );
      })}
    </ol>
  );
}

export function Hashtags({ data, lang }: BlockProps<"hashtags">) {
  return (
    <ul className="hashtags" aria-label={bodyLabelsFor(lang).hashtags}>
      {data.map((tag) => (
        <li key={tag} className="hashtag">
          {tag}
        </li>
      ))}
    </ul>
  );
}

export function BeforeAfter({ data, level, lang }: BlockProps<"before-after">) {
  const labels = bodyLabelsFor(lang);
  return (
    <div className="before-after">
      <section className="before-after-column before" aria-label={labels.before}>
        <Heading level={level}>{labels.before}</Heading>
        <ul>
          {data.before.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      </section>
      <section className="before-after-column after" aria-label={labels.after}>
        <Heading level={level}>{labels.after}</Heading>
        <ul>
          {data.after.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      </section>
    </div>
  );
}

export function WinnerCards({ data, level }: BlockProps<"winner-cards">) {
  return (
    <ul className="winner-cards">
      {data.map((card) => (
        <li key={card.title} className={`winner-card tone-border-${card.color}`}>
          <Heading level={level} className="winner-title">{card.title}</Heading>
          <p className="winner-tool">{card.tool}</p>
          <p>{card.description}</p>
        </li>
      ))}
    </ul>
  );
}

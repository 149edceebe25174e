/**
 * The "Edições Anteriores" carousel (SPEC §4). Without JavaScript every edition is listed;
 * with it one shows at a time, moved by the buttons, the dots or the arrow keys, and each
 * move is announced.
 */
import { useState, type KeyboardEvent } from "react";
import ChevronLeft from "lucide-react/icons/chevron-left";
import ChevronRight from "lucide-react/icons/chevron-right";
import BookOpen from "lucide-react/icons/book-open";
import { nextIndex, previousIndex } from "../carousel.js";
import { fill } from "../format.js";

export interface CarouselEdition {
  id: string;
  title: string;
  date: string;
  description: string;
  featured: boolean;
  route: string;
  readTime: number;
}

/** What the carousel prints, in the language of the page it stands in (content/site.yaml `labels`). */
export interface CarouselLabels {
  title: string;
  roleDescription: string;
  previous: string;
  next: string;
  slideRoleDescription: string;
  /** `{n}`, `{count}` */
  slide: string;
  current: string;
  open: string;
  /** `{n}`, `{count}`, `{title}` */
  goTo: string;
  /** Announced after a move: `{n}`, `{count}`, `{title}`. */
  moved: string;
  /** An edition's reading time: `{minutes}`. */
  readTime: string;
}

export interface EditionsCarouselProps {
  editions: CarouselEdition[];
  /** Heading level of the carousel's title (its slides take the next one). */
  level: 2 | 3 | 4 | 5 | 6;
  labels: CarouselLabels;
}

export function EditionsCarousel({ editions, level, labels }: EditionsCarouselProps) {
  const [index, setIndex] = useState(0);
  const [moved, setMoved] = useState(false);
  const count = editions.length;
  const Title = `h${level}` as const;
  const SlideTitle = `h${Math.min(level + 1, 6)}` as "h3";
  const go = (to: number) => {
    setIndex(to);
    setMoved(true);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowRight") go(nextIndex(index, count));
    else if (event.key === "ArrowLeft") go(previousIndex(index, count));
    else return;
    event.preventDefault();
  };
  const current = editions[index];

  return (
    <section className="carousel" aria-roledescription={labels.roleDescription} aria-labelledby="carousel-title" onKeyDown={onKeyDown}>
      <div className="carousel-header">
        <Title id="carousel-title" className="carousel-title">
          <BookOpen aria-hidden="true" size={20} /> {labels.title}
        </Title>
        <div className="carousel-controls needs-js">
          <button
            type="button"
            className="icon-button"
            aria-label={labels.previous}
            aria-controls="carousel-slides"
            onClick={() => go(previousIndex(index, count))}
          >
            <ChevronLeft aria-hidden="true" size={20} />
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={labels.next}
            aria-controls="carousel-slides"
            onClick={() => go(nextIndex(index, count))}
          >
            <ChevronRight aria-hidden="true" size={20} />
          </button>
        </div>
      </div>
      <ul id="carousel-slides" className="carousel-slides">
        {editions.map((edition, i) => (
          <li
            key={edition.id}
            className={`carousel-slide${i === index ? " is-current" : ""}`}
            aria-roledescription={labels.slideRoleDescription}
            aria-label={fill(labels.slide, { n: i + 1, count })}
          >
            <div className="carousel-slide-meta">
              <span className="carousel-date">{edition.date}</span>
              {edition.featured ? <span className="badge badge-current">{labels.current}</span> : null}
            </div>
            <SlideTitle className="carousel-slide-title">{edition.title}</SlideTitle>
            <p>{edition.description}</p>
            <div className="carousel-slide-footer">
              <span className="read-time">{fill(labels.readTime, { minutes: edition.readTime })}</span>
              <a className="button button-primary" href={edition.route}>
                {labels.open}
              </a>
            </div>
          </li>
        ))}
      </ul>
      <div className="carousel-dots needs-js">
        {editions.map((edition, i) => (
          <button
            key={edition.id}
            type="button"
            className="carousel-dot"
            aria-label={fill(labels.goTo, { n: i + 1, count, title: edition.title })}
            aria-current={i === index ? "true" : undefined}
            onClick={() => go(i)}
          />
        ))}
      </div>
      <p className="sr-only" aria-live="polite" aria-atomic="true">
        {moved && current ? fill(labels.moved, { n: index + 1, count, title: current.title }) : ""}
      </p>
    </section>
  );
}

/**
 * The "Edições Anteriores" carousel. Without JavaScript every edition is listed; with it,
 * one edition shows at a time and the buttons and dots move between them.
 */
import { ChevronLeft, ChevronRight, BookOpen } from "lucide-react";

export interface CarouselEdition {
  id: string;
  title: string;
  date: string;
  description: string;
  featured: boolean;
  route: string;
  readTime: number;
}

export interface EditionsCarouselProps {
  editions: CarouselEdition[];
  /** Heading level of the carousel's title (its slides take the next one). */
  level: 2 | 3 | 4 | 5 | 6;
}

export function EditionsCarousel({ editions, level }: EditionsCarouselProps) {
  const Title = `h${level}` as const;
  const SlideTitle = `h${Math.min(level + 1, 6)}` as "h3";
  const index = 0;
  const count = editions.length;
  return (
    <section className="carousel" aria-roledescription="carrossel" aria-labelledby="carousel-title">
      <div className="carousel-header">
        <Title id="carousel-title" className="carousel-title">
          <BookOpen aria-hidden="true" size={20} /> Edições Anteriores
        </Title>
        <div className="carousel-controls needs-js">
          <button type="button" className="icon-button" aria-label="Edição anterior" aria-controls="carousel-slides">
            <ChevronLeft aria-hidden="true" size={20} />
          </button>
          <button type="button" className="icon-button" aria-label="Próxima edição" aria-controls="carousel-slides">
            <ChevronRight aria-hidden="true" size={20} />
          </button>
        </div>
      </div>
      <ul id="carousel-slides" className="carousel-slides" aria-live="polite">
        {editions.map((edition, i) => (
          <li
            key={edition.id}
            className={`carousel-slide${i === index ? " is-current" : ""}`}
            aria-roledescription="slide"
            aria-label={`${i + 1} de ${count}`}
          >
            <div className="carousel-slide-meta">
              <span className="carousel-date">{edition.date}</span>
              {edition.featured ? <span className="badge badge-current">Atual</span> : null}
            </div>
            <SlideTitle className="carousel-slide-title">{edition.title}</SlideTitle>
            <p>{edition.description}</p>
            <div className="carousel-slide-footer">
              <span className="read-time">{edition.readTime} min de leitura</span>
              <a className="button button-primary" href={edition.route}>
                Ler Edição
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
            aria-label={`Ir para a edição ${i + 1} de ${count}: ${edition.title}`}
            aria-current={i === index ? "true" : undefined}
          />
        ))}
      </div>
    </section>
  );
}

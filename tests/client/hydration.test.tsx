// @vitest-environment happy-dom
/** Islands hydrate the server's markup with the same component: no mismatch, then they work. */
import { describe, expect, it, vi } from "vitest";
import { renderToString } from "react-dom/server";
import { act } from "react";
import { NewsletterForm, type NewsletterFormProps } from "../../client/islands/newsletter-form.js";
import { EditionsCarousel, type CarouselLabels } from "../../client/islands/editions-carousel.js";
import * as React from "react";
import { hydrateRoot } from "react-dom/client";
import { hydrator } from "../../engine/client/hydrate.js";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const newsletter: NewsletterFormProps = {
  label: "Seu e-mail",
  placeholder: "seu@email.com",
  button: "Inscrever-se",
  busyLabel: "Enviando...",
  required: "Email é obrigatório",
  invalid: "Email inválido",
  success: { title: "Inscrição realizada com sucesso!", description: "Você receberá nossas análises exclusivas em breve" },
  failure: { title: "Erro na inscrição", description: "Tente novamente em alguns minutos" },
  delayMs: 1000,
};

/** The carousel's Portuguese labels, as content/site.yaml gives them. */
const carouselLabels: CarouselLabels = {
  title: "Edições Anteriores",
  roleDescription: "carrossel",
  previous: "Edição anterior",
  next: "Próxima edição",
  slideRoleDescription: "slide",
  slide: "{n} de {count}",
  current: "Atual",
  open: "Ler Edição",
  goTo: "Ir para a edição {n} de {count}: {title}",
  moved: "Edição {n} de {count}: {title}",
  readTime: "{minutes} min de leitura",
};

async function serverThenHydrate<P extends object>(Component: React.ComponentType<P>, props: P) {
  const host = document.createElement("div");
  host.innerHTML = renderToString(<Component {...props} />);
  document.body.replaceChildren(host);
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  let hydrated: Promise<void> = Promise.resolve();
  await act(async () => {
    hydrated = hydrator(Component, React, hydrateRoot)(host, props);
  });
  await hydrated;
  expect(errors).not.toHaveBeenCalled();
  errors.mockRestore();
  return host;
}

describe("island hydration", () => {
  it("the newsletter form hydrates cleanly and validates on submit", async () => {
    const host = await serverThenHydrate(NewsletterForm, newsletter);
    const form = host.querySelector("form")!;
    const input = host.querySelector("input")!;
    await act(async () => {
      form.requestSubmit();
    });
    expect(host.querySelector("#newsletter-error")?.textContent).toBe("Email é obrigatório");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toBe("newsletter-error");
    input.value = "nao-e-email";
    await act(async () => {
      form.requestSubmit();
    });
    expect(host.querySelector("#newsletter-error")?.textContent).toBe("Email inválido");
  });

  it("the carousel hydrates cleanly and wraps in both directions", async () => {
    const editions = ["A", "B", "C", "D"].map((t, i) => ({ id: `e${i}`, title: t, date: "01/01/2025", description: "d", featured: i === 0, route: "/", readTime: 15 }));
    const host = await serverThenHydrate(EditionsCarousel, { editions, level: 2, labels: carouselLabels });
    const current = () => host.querySelector(".carousel-slide.is-current h3")?.textContent;
    const [prev, next] = [...host.querySelectorAll(".carousel-controls button")] as HTMLButtonElement[];
    expect(current()).toBe("A");
    await act(async () => prev!.click());
    expect(current()).toBe("D");
    await act(async () => next!.click());
    await act(async () => next!.click());
    expect(current()).toBe("B");
    const dots = host.querySelectorAll(".carousel-dot");
    expect(dots[1]!.getAttribute("aria-current")).toBe("true");
    await act(async () => (dots[3] as HTMLButtonElement).click());
    expect(current()).toBe("D");
    expect(host.querySelector("[aria-live]")?.textContent).toBe("Edição 4 de 4: D");
  });
});

/** Every interactive behaviour of SPEC §4, §5, §7, §8 in a real Chromium, on the real site. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumPath, startHarness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  if (chromiumPath) h = await startHarness();
});
afterAll(async () => h?.close());

/** A fresh context (own storage), optionally with a stubbed share API and clipboard. */
async function open(
  route: string,
  options: {
    share?: "succeed" | "abort" | "fail" | "hang" | "none";
    clipboard?: "granted" | "denied";
    lang?: "en";
    clock?: boolean;
  } = {},
): Promise<{ page: Page; context: BrowserContext; logs: string[] }> {
  const context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (options.clipboard !== "denied") await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.base });
  await context.addInitScript(
    ({ share, clipboard, lang }) => {
      const w = window as unknown as { __shared: unknown[]; __releaseShare?: () => void; __toasts: string[] };
      w.__shared = [];
      // Every toast that ever appears, in order, by its title: one shown and gone between two
      // looks at the page is counted too.
      w.__toasts = [];
      new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (node instanceof Element && node.matches(".toast")) w.__toasts.push(node.querySelector(".toast-title")?.textContent ?? "");
          }
        }
      }).observe(document, { childList: true, subtree: true });
      if (lang) localStorage.setItem("cafe-com-a-cris:lang", lang);
      if (share === "none") {
        delete (Navigator.prototype as { share?: unknown }).share;
      } else if (share) {
        Object.defineProperty(Navigator.prototype, "share", {
          configurable: true,
          value: (data: unknown) => {
            w.__shared.push(data);
            if (share === "abort") return Promise.reject(new DOMException("Share canceled", "AbortError"));
            if (share === "fail") return Promise.reject(new DOMException("Permission denied", "NotAllowedError"));
            if (share === "hang") return new Promise<void>((resolve) => (w.__releaseShare = resolve));
            return Promise.resolve();
          },
        });
      }
      if (clipboard === "denied") {
        Object.defineProperty(navigator.clipboard, "writeText", {
          configurable: true,
          value: () => Promise.reject(new DOMException("Write permission denied.", "NotAllowedError")),
        });
      }
    },
    { share: options.share, clipboard: options.clipboard, lang: options.lang },
  );
  const page = await context.newPage();
  const logs: string[] = [];
  page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
  if (options.clock) await page.clock.install();
  await page.goto(h.base + route);
  return { page, context, logs };
}

const describeBrowser = chromiumPath ? describe : describe.skip;

/** The titles of every toast the page has shown so far, in order. */
const toastsSeen = (page: Page) => page.evaluate(() => (window as unknown as { __toasts: string[] }).__toasts);

const SUBSCRIBED = "Inscrição realizada com sucesso!";

/** Subscribes to the newsletter and waits for its toast (shown a second later), then closes it. */
async function subscribeAndClose(page: Page) {
  await page.getByLabel("Seu e-mail").fill("cris@cafe.com.br");
  await page.locator(".newsletter-form button[type=submit]").click();
  await expect.poll(() => page.locator(".toast .toast-title").innerText(), { timeout: 5000 }).toBe(SUBSCRIBED);
  await page.getByRole("button", { name: "Fechar aviso" }).click();
  await expect.poll(() => page.locator(".toast").count()).toBe(0);
}

/**
 * Proves that `act` shows no toast, without waiting an arbitrary time: a toast first (so the
 * Toaster island is loaded and shows the next one as soon as it is asked), then `act`, then
 * another toast, requested a second after it. Whatever `act` showed would stand between the two.
 */
async function expectNoToastFrom(page: Page, act: () => Promise<void>) {
  await subscribeAndClose(page);
  await act();
  await subscribeAndClose(page);
  expect(await toastsSeen(page)).toEqual([SUBSCRIBED, SUBSCRIBED]);
}

describeBrowser("language", () => {
  it("switches the header, the first card and the transition article at once, and persists across pages and reloads", async () => {
    const { page, context } = await open("/");
    await expect.poll(() => page.locator(".site-title").innerText()).toBe("Blog Café com a Cris");
    await page.getByRole("button", { name: "English" }).click();
    // The first click wakes the island (React loads), then it is replayed: poll, no reload.
    await expect.poll(() => page.locator(".site-title").innerText()).toBe("Coffee with Cris Blog");
    expect(await page.locator(".site-subtitle").innerText()).toBe("The right place for a coffee and a successful chat");
    expect(await page.locator("a.card").first().locator(".card-title").innerText()).toBe("Professional Rebirth");
    expect(await page.locator("a.card").nth(1).locator(".card-title").innerText()).toBe("O Custo Invisível da Inovação: burnout e saúde mental");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
    expect(await page.getByRole("button", { name: "English" }).getAttribute("aria-pressed")).toBe("true");
    expect(await page.getByRole("button", { name: "Português" }).getAttribute("aria-pressed")).toBe("false");

    await page.locator("a.card").first().click();
    await page.waitForURL(/\/artigo-transicao$/);
    expect(await page.locator("h1:visible").innerText()).toBe("Professional Rebirth");
    expect(await page.title()).toBe("Professional Rebirth | Café com a Cris");
    expect(await page.locator("h2:visible").first().innerText()).toBe("When your career asks for a fresh start");

    await page.reload();
    expect(await page.locator("h1:visible").innerText()).toBe("Professional Rebirth");
    expect(await page.getByRole("button", { name: "English" }).getAttribute("aria-pressed")).toBe("true");

    await page.goto(`${h.base}/artigo-sistema-notas`);
    expect(await page.locator(".site-title").innerText()).toBe("Coffee with Cris Blog");
    expect(await page.locator("h1").innerText()).toMatch(/^Sistemas de Notas/);
    expect(await page.locator("main").getAttribute("lang")).toBe("pt-BR");

    await page.getByRole("button", { name: "Português" }).click();
    await expect.poll(() => page.locator(".site-title").innerText()).toBe("Blog Café com a Cris");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("pt-BR");
    await context.close();
  });

  it("shows no Portuguese to a reader who chose English, even before any module script runs", async () => {
    const context = await h.browser.newContext();
    await context.addInitScript(() => localStorage.setItem("cafe-com-a-cris:lang", "en"));
    // Hold every module script: what shows now is what the first paint shows.
    await context.route(/\/assets\/.*\.js$/, () => {});
    const page = await context.newPage();
    // DOMContentLoaded waits for module scripts, so wait for the parsed page instead.
    await page.goto(`${h.base}/artigo-transicao`, { waitUntil: "commit" });
    await page.waitForSelector("footer", { state: "attached" });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
    expect(await page.locator("h1:visible").innerText()).toBe("Professional Rebirth");
    expect(await page.locator(".site-title").innerText()).toBe("Coffee with Cris Blog");
    expect(await page.locator("[data-l=pt] h1").isVisible()).toBe(false);
    expect(await page.title()).toBe("Professional Rebirth | Café com a Cris");
    await context.close();
  });
});

describeBrowser("sharing", () => {
  it("native share gets title and url on most pages", async () => {
    const { page, context } = await open("/artigo-inovacao-rh", { share: "succeed" });
    await page.getByRole("button", { name: "Compartilhar" }).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __shared: unknown[] }).__shared)).toEqual([
      { title: "Inovação em RH como estratégia de negócio em Minas Gerais", url: `${h.base}/artigo-inovacao-rh` },
    ]);
    expect(await page.locator(".toast").count()).toBe(0);
    await context.close();
  });

  it("with English chosen, the transition article shares its English title", async () => {
    const { page, context } = await open("/artigo-transicao", { share: "succeed", lang: "en" });
    await page.getByRole("button", { name: "Compartilhar" }).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __shared: unknown[] }).__shared)).toEqual([
      { title: "Professional Rebirth", url: `${h.base}/artigo-transicao` },
    ]);
    await context.close();
  });

  it.each(["/descompasso-seculo-xxi", "/via-mao-dupla-lealdade"])("native share also gets the lead as text on %s", async (route) => {
    const { page, context } = await open(route, { share: "succeed" });
    const lead = await page.locator(".article-lead").innerText();
    await page.getByRole("button", { name: "Compartilhar" }).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __shared: { text?: string }[] }).__shared[0]?.text)).toBe(lead);
    await context.close();
  });

  it("does nothing when the reader cancels", async () => {
    const { page, context } = await open("/artigo-burnout-inovacao", { share: "abort" });
    await expectNoToastFrom(page, async () => {
      await page.getByRole("button", { name: "Compartilhar" }).click();
      await expect.poll(() => page.evaluate(() => (window as unknown as { __shared: unknown[] }).__shared.length)).toBe(1);
    });
    await context.close();
  });

  it("copies the link instead when native share fails", async () => {
    const { page, context } = await open("/artigo-burnout-inovacao", { share: "fail" });
    await page.getByRole("button", { name: "Compartilhar" }).click();
    await expect.poll(() => page.locator(".toast").innerText()).toContain("Link copiado!");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${h.base}/artigo-burnout-inovacao`);
    await context.close();
  });

  it("only logs the failure on Material da Semana", async () => {
    const { page, context, logs } = await open("/material-semana", { share: "fail" });
    await expectNoToastFrom(page, async () => {
      await page.getByRole("button", { name: "Compartilhar" }).click();
      await expect.poll(() => logs.some((l) => l.startsWith("error: Erro ao compartilhar"))).toBe(true);
    });
    await context.close();
  });

  it.each([
    ["/artigo-sistema-notas", "O link do artigo foi copiado para a área de transferência."],
    ["/artigo/setores-crescimento-crise", "O link foi copiado para a área de transferência."],
  ])("without the share API copies the link of %s and toasts its description", async (route, description) => {
    const { page, context } = await open(route, { share: "none" });
    await page.getByRole("button", { name: "Compartilhar" }).click();
    const toast = page.locator(".toast");
    await expect.poll(() => toast.locator(".toast-title").innerText()).toBe("Link copiado!");
    expect(await toast.locator(".toast-description").innerText()).toBe(description);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(h.base + route);
    await context.close();
  });

  it("uses the browser alert on the loyalty page", async () => {
    const { page, context } = await open("/via-mao-dupla-lealdade", { share: "none" });
    // The alert blocks the page until it is closed, and the click waits for the page: close it from the handler.
    const shown = new Promise<{ type: string; message: string }>((resolve) =>
      page.once("dialog", (dialog) => {
        resolve({ type: dialog.type(), message: dialog.message() });
        void dialog.accept();
      }),
    );
    await page.getByRole("button", { name: "Compartilhar" }).click();
    expect(await shown).toEqual({ type: "alert", message: "Link copiado para a área de transferência!" });
    expect(await page.locator(".toast").count()).toBe(0);
    await context.close();
  });

  it("shows Compartilhando... and disables the button while sharing on the descompasso page", async () => {
    const { page, context } = await open("/descompasso-seculo-xxi", { share: "hang" });
    const button = page.locator(".share-button");
    await button.click();
    await expect.poll(() => button.innerText()).toBe("Compartilhando...");
    expect(await button.isDisabled()).toBe(true);
    await page.evaluate(() => (window as unknown as { __releaseShare: () => void }).__releaseShare());
    await expect.poll(() => button.innerText()).toBe("Compartilhar");
    expect(await button.isDisabled()).toBe(false);
    await context.close();
  });

  it("shows the destructive Erro ao copiar toast when copying fails on the descompasso page", async () => {
    const { page, context } = await open("/descompasso-seculo-xxi", { share: "none", clipboard: "denied" });
    await page.getByRole("button", { name: "Compartilhar" }).click();
    const toast = page.locator(".toast");
    await expect.poll(() => toast.locator(".toast-title").innerText()).toBe("Erro ao copiar");
    expect(await toast.locator(".toast-description").innerText()).toBe("Não foi possível copiar o link.");
    expect(await toast.getAttribute("data-variant")).toBe("destructive");
    await context.close();
  });
});

describeBrowser("carousel", () => {
  it("starts on the featured edition and wraps in both directions, by buttons, dots and keys", async () => {
    const { page, context } = await open("/material-semana");
    const current = () => page.locator(".carousel-slide.is-current .carousel-slide-title").innerText();
    expect(await current()).toBe("Heróis da Nossa Economia");
    expect(await page.locator(".carousel-slide.is-current .badge-current").innerText()).toBe("Atual");
    expect(await page.locator(".carousel-slide:visible").count()).toBe(1);
    const next = page.getByRole("button", { name: "Próxima edição" });
    const previous = page.getByRole("button", { name: "Edição anterior" });
    await previous.click();
    await expect.poll(current).toBe("Finanças e Carreira em Tempos de Incerteza");
    await next.click();
    expect(await current()).toBe("Heróis da Nossa Economia");
    for (const title of ["O Renascimento Profissional", "Tarifas e o Mercado de Trabalho", "Finanças e Carreira em Tempos de Incerteza", "Heróis da Nossa Economia"]) {
      await next.click();
      expect(await current()).toBe(title);
    }
    await page.getByRole("button", { name: /Ir para a edição 3 de 4/ }).click();
    expect(await current()).toBe("Tarifas e o Mercado de Trabalho");
    expect(await page.locator(".carousel-dot[aria-current=true]").getAttribute("aria-label")).toMatch(/edição 3 de 4/);
    await next.focus();
    await page.keyboard.press("ArrowRight");
    expect(await current()).toBe("Finanças e Carreira em Tempos de Incerteza");
    await page.keyboard.press("ArrowLeft");
    expect(await current()).toBe("Tarifas e o Mercado de Trabalho");
    expect(await page.locator(".carousel [aria-live]").innerText()).toBe("Edição 3 de 4: Tarifas e o Mercado de Trabalho");
    await page.locator(".carousel-slide.is-current").getByRole("link", { name: "Ler Edição" }).click();
    await page.waitForURL(/\/artigo\/tarifas-trump-mercado-trabalho$/);
    await context.close();
  });
});

describeBrowser("newsletter and toasts", () => {
  it("empty, invalid and valid submissions, with Enviando... and the success toast after about a second", async () => {
    const { page, context } = await open("/", { clock: true });
    const input = page.getByLabel("Seu e-mail");
    const button = page.locator(".newsletter-form button[type=submit]");
    await button.click();
    await expect.poll(() => page.locator("#newsletter-error").innerText()).toBe("Email é obrigatório");
    expect(await input.getAttribute("aria-invalid")).toBe("true");
    expect(await input.getAttribute("aria-describedby")).toBe("newsletter-error");
    await input.fill("cris@cafe");
    await button.click();
    await expect.poll(() => page.locator("#newsletter-error").innerText()).toBe("Email inválido");
    await input.fill("cris@cafe.com.br");
    await button.click();
    await expect.poll(() => button.innerText()).toBe("Enviando...");
    expect(await button.isDisabled()).toBe(true);
    expect(await input.getAttribute("aria-invalid")).toBeNull();
    await page.clock.runFor(900);
    expect(await page.locator(".toast").count()).toBe(0);
    await page.clock.runFor(200);
    await expect.poll(() => page.locator(".toast .toast-title").innerText()).toBe("Inscrição realizada com sucesso!");
    expect(await page.locator(".toast .toast-description").innerText()).toBe("Você receberá nossas análises exclusivas em breve");
    expect(await input.inputValue()).toBe("");
    expect(await button.innerText()).toBe("Inscrever-se");
    await page.clock.runFor(5100);
    await expect.poll(() => page.locator(".toast").count()).toBe(0);
    await context.close();
  });

  it("a new toast replaces the old one, and the close button dismisses it", async () => {
    // The clock stands still: no toast goes by itself after 5 s, only by the close button.
    const { page, context } = await open("/artigo-sistema-notas", { share: "none", clock: true });
    await page.getByRole("button", { name: "Compartilhar" }).click();
    await expect.poll(() => page.locator(".toast .toast-title").innerText()).toBe("Link copiado!");
    await page.getByLabel("Seu e-mail").fill("cris@cafe.com");
    await page.locator(".newsletter-form button[type=submit]").click();
    await page.clock.runFor(1100);
    await expect.poll(() => page.locator(".toast .toast-title").innerText()).toBe(SUBSCRIBED);
    await expect.poll(() => page.locator(".toast").count()).toBe(1);
    expect(await toastsSeen(page)).toEqual(["Link copiado!", SUBSCRIBED]);
    expect(await page.locator(".toaster").getAttribute("aria-live")).toBe("polite");
    await page.getByRole("button", { name: "Fechar aviso" }).click();
    await expect.poll(() => page.locator(".toast").count()).toBe(0);
    await context.close();
  });
});

describeBrowser("404", () => {
  it("answers 404 with the page's text and logs the missing path", async () => {
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const logs: string[] = [];
    page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
    const response = await page.goto(`${h.base}/nao-existe/mesmo`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("h1").innerText()).toBe("404");
    expect(await page.getByText("Oops! Page not found").isVisible()).toBe(true);
    await expect.poll(() => logs).toContain("error: 404 Error: User attempted to access non-existent route: /nao-existe/mesmo");
    await page.getByRole("link", { name: "Return to Home" }).click();
    await page.waitForURL(`${h.base}/`);
    await context.close();
  });
});

describeBrowser("without JavaScript", () => {
  it("every page is complete and readable, and no control leads to an error page", async () => {
    const context = await h.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${h.base}/material-semana`);
    expect(await page.locator(".carousel-slide:visible").count()).toBe(4);
    expect(await page.locator(".carousel-controls").isVisible()).toBe(false);
    expect(await page.locator(".share-button").isVisible()).toBe(false);
    expect(await page.locator(".site-title").innerText()).toBe("Blog Café com a Cris");
    await page.goto(`${h.base}/artigo-transicao`);
    expect(await page.locator("h1:visible").innerText()).toBe("O Renascimento Profissional");
    expect((await page.locator(".prose:visible").innerText()).length).toBeGreaterThan(5000);
    await page.getByLabel("Seu e-mail").fill("cris@cafe.com");
    const response = await Promise.all([page.waitForNavigation(), page.locator(".newsletter-form button[type=submit]").click()]).then(([r]) => r);
    expect(response?.status()).toBe(200);
    await context.close();
  });
});

describeBrowser("brand font", () => {
  it("the cut script font (WOFF2 written by engine/woff2.ts) loads and sets the brand name", async () => {
    const context = await h.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${h.base}/`);
    const brand = page.locator("header .brand");
    const state = await page.evaluate(async () => {
      await document.fonts.ready;
      const faces = [...document.fonts].filter((f) => f.family.replace(/"/g, "") === "Dancing Script");
      await Promise.all(faces.map((f) => f.load().catch(() => undefined)));
      return faces.map((f) => f.status);
    });
    expect(state).toEqual(["loaded"]);
    expect(await brand.evaluate((el) => getComputedStyle(el).fontFamily)).toContain("Dancing Script");
    expect(await page.evaluate((text) => document.fonts.check('700 24px "Dancing Script"', text), await brand.innerText())).toBe(true);
    await context.close();
  });
});

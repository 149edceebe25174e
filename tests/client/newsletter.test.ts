// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { subscribe, validateEmail } from "../../client/newsletter.js";

const messages = { required: "Email é obrigatório", invalid: "Email inválido" };

describe("newsletter validation (SPEC §5)", () => {
  it.each([
    ["", "Email é obrigatório"],
    ["   ", "Email é obrigatório"],
    ["cris", "Email inválido"],
    ["cris@", "Email inválido"],
    ["cris@cafe", "Email inválido"],
    ["cris@cafe.c", "Email inválido"],
    ["cris @cafe.com", "Email inválido"],
    ["cris@cafe.com.br", undefined],
    ["CRIS@CAFE.COM", undefined],
    ["  cris@cafe.com  ", undefined],
  ])("%j → %s", (value, expected) => {
    expect(validateEmail(value, messages)).toBe(expected);
  });
});

describe("subscribing", () => {
  it("sends nothing without an endpoint and waits the configured delay", async () => {
    const fetch = vi.fn();
    const wait = vi.fn(async () => {});
    await subscribe("a@b.com", { delayMs: 1000, fetch, wait });
    expect(wait).toHaveBeenCalledWith(1000);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("POSTs the e-mail as JSON to the endpoint", async () => {
    const fetch = vi.fn(async () => new Response("{}", { status: 201 }));
    await subscribe(" a@b.com ", { delayMs: 1000, endpoint: "https://api.example/subscribe", fetch });
    expect(fetch).toHaveBeenCalledWith("https://api.example/subscribe", expect.objectContaining({ method: "POST", body: '{"email":"a@b.com"}' }));
  });

  it("rejects on a non-2xx answer and on a network error", async () => {
    await expect(subscribe("a@b.com", { delayMs: 0, endpoint: "https://x.example", fetch: vi.fn(async () => new Response("", { status: 500 })) })).rejects.toThrow(/500/);
    await expect(subscribe("a@b.com", { delayMs: 0, endpoint: "https://x.example", fetch: vi.fn(async () => Promise.reject(new TypeError("offline"))) })).rejects.toThrow();
  });
});

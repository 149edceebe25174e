/**
 * Addresses a link check must not ask unless told to: this machine (loopback, 0.0.0.0), the
 * private networks around it and link-local ones (169.254.169.254 is a cloud's metadata
 * service). A link on a public page, or a redirect a site answers with, can point there;
 * following it would send requests from the author's machine to their router, their own
 * services or their cloud account. Checked before any connection: the host of an address
 * written as an IP, and every address a host name resolves to (at the moment of connecting,
 * so a name that resolves elsewhere the second time is caught too).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

export type LocalRange = "loopback" | "private" | "link-local" | "unspecified";

const RANGES: [LocalRange, [address: string, prefix: number][]][] = [
  ["loopback", [["127.0.0.0", 8], ["::1", 128]]],
  ["unspecified", [["0.0.0.0", 8], ["::", 128]]],
  ["link-local", [["169.254.0.0", 16], ["fe80::", 10]]],
  // RFC 1918, the carrier-grade NAT's shared space (RFC 6598), IPv6's unique local addresses.
  ["private", [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["100.64.0.0", 10], ["fc00::", 7]]],
];

const LISTS = RANGES.map(([range, subnets]) => {
  const list = new BlockList();
  for (const [address, prefix] of subnets) list.addSubnet(address, prefix, isIP(address) === 6 ? "ipv6" : "ipv4");
  return [range, list] as const;
});

/** The local range an IP address is in (IPv4-mapped IPv6 addresses as their IPv4 one), if any. */
export function localRange(address: string): LocalRange | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return undefined;
  return LISTS.find(([, list]) => list.check(bare, family === 6 ? "ipv6" : "ipv4"))?.[0];
}

/** Which local addresses may be asked all the same: all of them (`true`), these IPs, or none. */
export type LocalAllowance = boolean | readonly string[];

const allowed = (address: string, allow: LocalAllowance) => allow === true || (Array.isArray(allow) && allow.includes(address.replace(/^\[|\]$/g, "")));

/** Why an address may not be asked (a local one not allowed), if it may not. */
export function refusal(address: string, allow: LocalAllowance): { address: string; range: LocalRange } | undefined {
  const range = localRange(address);
  return range && !allowed(address, allow) ? { address: address.replace(/^\[|\]$/g, ""), range } : undefined;
}

/** The error a refused connection fails with (before it is made). */
export class LocalAddressRefused extends Error {
  readonly code = "ELOCALADDRESS";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: LocalRange,
  ) {
    super(`${host} is ${address}, a ${range} address`);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves a host name as usual and fails, before any
 * connection, when any of its addresses is a local one not allowed.
 */
export function guardedLookup(allow: LocalAllowance) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.map((a) => refusal(a.address, allow)).find((r) => r !== undefined);
      if (refused) return callback(new LocalAddressRefused(hostname, refused.address, refused.range), []);
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

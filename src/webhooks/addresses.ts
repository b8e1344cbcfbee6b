import dns from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * Where a webhook may be sent (docs/events.md, "Webhooks", SSRF): an endpoint's URL must not reach the
 * server's own machine, its network or a cloud's metadata service. Only addresses ipaddr.js classes as
 * plain `unicast` pass — loopback, private (RFC 1918, ULA fc00::/7), link-local (169.254/16 with the
 * metadata address 169.254.169.254, fe80::/10), unspecified, multicast, broadcast, carrier-grade NAT
 * (100.64/10), reserved and the IPv6 forms that embed an IPv4 address (6to4, Teredo, NAT64) are all refused,
 * and an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged as the IPv4 address it is. A host name is
 * resolved (every address it has) and refused when any of them is; the request then connects to the very
 * address that was checked (`send.ts` passes it as the socket's `lookup`), so a second DNS answer cannot
 * swap in another (DNS rebinding). WEBHOOK_ALLOWED_ADDRESSES lets chosen addresses through (a receiver on
 * this machine, in tests).
 */

/** A checked destination: the URL and the one address its request must connect to. */
export interface Destination {
  url: URL;
  /** The host as the URL names it, without an IPv6 address's brackets (TLS's servername, the Host header). */
  host: string;
  address: string;
  family: 4 | 6;
}

/** Why a URL may not be used, said for its owner (the registration's 400 naming `url`, an attempt's error). */
export class RefusedDestination extends Error {
  override name = "RefusedDestination";
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** WEBHOOK_ALLOWED_ADDRESSES as ranges (an address alone is a range of one). */
export function allowedRanges(entries: string[]): Range[] {
  return entries.map((entry) => {
    if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  });
}

/** The address with an IPv4-mapped IPv6 one as its IPv4 address (what it reaches). */
const unwrapped = (address: string) => ipaddr.process(address);

function isAllowed(address: ipaddr.IPv4 | ipaddr.IPv6, allowed: Range[]): boolean {
  return allowed.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** The range that makes an address refused (ipaddr.js's name: loopback, private, linkLocal …), or null when it is public unicast or allowed. */
export function refusedRange(text: string, allowed: Range[]): string | null {
  const address = unwrapped(text);
  if (isAllowed(address, allowed)) return null;
  const range = address.range();
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated): ipaddr.js calls ::/96 unicast, but it names an IPv4 address.
  if (address.kind() === "ipv6" && address.match(ipaddr.parseCIDR("::/96"))) return "ipv4Compatible";
  return range === "unicast" ? null : range;
}

/**
 * Checks an endpoint's URL: http or https, no credentials, and every address its host resolves to public
 * (or allowed). Answers the destination to connect to; throws RefusedDestination saying why not.
 */
export async function checkDestination(text: string, allowed: Range[], lookup: typeof dns.lookup = dns.lookup): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedDestination("must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RefusedDestination("must be an http or https URL");
  if (url.username || url.password) throw new RefusedDestination("must not hold a user name or password");
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) throw new RefusedDestination("must name a host");
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host) && (host.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(host))) {
    addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new RefusedDestination(`must name a host that resolves (${host}: ${(error as NodeJS.ErrnoException).code ?? "no answer"})`);
    }
    if (!addresses.length) throw new RefusedDestination(`must name a host that resolves (${host} has no address)`);
  }
  for (const { address } of addresses) {
    const range = refusedRange(address, allowed);
    if (range) {
      const which = host === address ? address : `${host} resolves to ${address}`;
      throw new RefusedDestination(
        `must not reach a loopback, private, link-local or other non-public address (${which}: ${range}); to allow it, list the address or its range in WEBHOOK_ALLOWED_ADDRESSES (the server's setting)`,
      );
    }
  }
  const chosen = addresses[0]!;
  return { url, host, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

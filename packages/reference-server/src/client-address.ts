/**
 * The bucket a client address is counted in by every per-address limit (spec §8.8): the connection limit of
 * `startServer` and the quotas of `createApp`. An IPv4 address is its own bucket, and so is an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.7`, how a dual-stack socket sees an IPv4 client). An IPv6 address counts as its /64: one
 * subscriber is usually given a whole /64, so counting each address would give one client 2⁶⁴ buckets.
 * Anything that is not an IP address is its own bucket, lowercased.
 */
export function addressBucket(address: string): string {
  // A zone index (`fe80::1%eth0`) names the interface, not the client.
  const bare = address.trim().toLowerCase().replace(/%.*$/, '');
  const groups = ipv6Groups(bare);
  if (!groups) return bare;
  if (isIpv4Mapped(groups)) return ipv4Of(groups);
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/**
 * The client's address of a request: the socket's, or, behind a reverse proxy that the operator names with
 * `header`, what that proxy wrote there. `X-Forwarded-For` lists every hop, and only its last entry was written by
 * the proxy in front of this server (a client can put anything before it), so a list is read from its end. A header
 * that is missing or holds no IP address falls back to the socket's address.
 */
export function clientAddress(
  socketAddress: string | undefined,
  headers: Headers,
  header: string | undefined,
): string | undefined {
  if (!header) return socketAddress;
  const value = headers.get(header);
  const last = value
    ?.split(',')
    .at(-1)
    ?.trim()
    .replace(/^\[(.*)\](?::\d+)?$/, '$1');
  const bare = last?.replace(/%.*$/, '');
  return last && bare && (IPV4.test(bare) || ipv6Groups(bare)) ? last : socketAddress;
}

/** A dotted IPv4 address, each part 0–255 without leading zeros. */
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * The eight 16-bit groups of an IPv6 address, or undefined when it is not one. The URL parser (in every runtime, so
 * the app needs no `node:net`) checks it and writes it in its canonical form: lowercase, hexadecimal only.
 */
function ipv6Groups(address: string): number[] | undefined {
  if (!address.includes(':')) return undefined;
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = '', tail] = canonical.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** Whether the groups are `::ffff:a.b.c.d`. */
function isIpv4Mapped(groups: readonly number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}

/** The dotted IPv4 address in the last two groups. */
function ipv4Of(groups: readonly number[]): string {
  const high = groups[6] ?? 0;
  const low = groups[7] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

// What kind of network an IP address belongs to, and which kinds an outbound
// policy lets a delivery connect to. The classes are checked in this order:
// a cloud metadata address is refused even where its range (link-local, the
// shared 100.64/10 space) would otherwise be allowed.
import { BlockList, isIP } from 'node:net'

export const ADDRESS_CLASSES = {
  metadata: 'metadata',
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  private: 'private',
  multicast: 'multicast',
  reserved: 'reserved',
  public: 'public',
} as const
export type AddressClass = (typeof ADDRESS_CLASSES)[keyof typeof ADDRESS_CLASSES]

type Net = readonly [string, number]

// Instance metadata and similar host-local control endpoints of the common clouds.
const METADATA: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  '169.254.170.2', // AWS ECS task metadata
  '169.254.169.123', // AWS time sync
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure wire server
  'fd00:ec2::254', // AWS IMDS over IPv6
]

const ORDER = ['unspecified', 'loopback', 'linkLocal', 'private', 'multicast', 'reserved'] as const
type Ranged = (typeof ORDER)[number]

const V4: Record<Ranged, readonly Net[]> = {
  unspecified: [['0.0.0.0', 8]],
  loopback: [['127.0.0.0', 8]],
  linkLocal: [['169.254.0.0', 16]],
  // RFC 1918 plus the carrier-grade NAT shared space, which is not routed publicly either.
  private: [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10]],
  multicast: [['224.0.0.0', 4]],
  reserved: [
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24], ['198.18.0.0', 15], ['240.0.0.0', 4],
  ],
}

const V6: Record<Ranged, readonly Net[]> = {
  unspecified: [['::', 128]],
  loopback: [['::1', 128]],
  linkLocal: [['fe80::', 10]],
  private: [['fc00::', 7], ['fec0::', 10]],
  multicast: [['ff00::', 8]],
  // Documentation, discard, NAT64 (it can reach any IPv4 address, so it is not judged by its prefix), IPv4-compatible.
  reserved: [['2001:db8::', 32], ['100::', 64], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['::', 96]],
}

function lists(): Map<Ranged, BlockList> {
  const m = new Map<Ranged, BlockList>()
  for (const k of ORDER) {
    const b = new BlockList()
    for (const [net, prefix] of V4[k]) b.addSubnet(net, prefix, 'ipv4')
    for (const [net, prefix] of V6[k]) b.addSubnet(net, prefix, 'ipv6')
    m.set(k, b)
  }
  return m
}

const LISTS = lists()
const METADATA_LIST = (() => {
  const b = new BlockList()
  for (const a of METADATA) b.addAddress(a, isIP(a) === 6 ? 'ipv6' : 'ipv4')
  return b
})()

const MAPPED_RE = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

/** The class of an IP literal (IPv4-mapped IPv6 is judged as its IPv4 address); null when it is not an IP. */
export function classifyAddress(ip: string): AddressClass | null {
  let a = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const mapped = MAPPED_RE.exec(a)
  if (mapped !== null) a = mapped[1] as string
  const v = isIP(a)
  if (v === 0) return null
  const type = v === 4 ? 'ipv4' : 'ipv6'
  if (METADATA_LIST.check(a, type)) return ADDRESS_CLASSES.metadata
  for (const k of ORDER) if ((LISTS.get(k) as BlockList).check(a, type)) return ADDRESS_CLASSES[k]
  return ADDRESS_CLASSES.public
}

/** Which address classes a kind of delivery may connect to. */
export interface OutboundPolicy {
  readonly name: string
  readonly allowed: ReadonlySet<AddressClass>
}

/**
 * Alert destinations: public addresses; loopback and private ones only when
 * the operator allows them (LOOKOUT_ALLOW_PRIVATE_DESTINATIONS=1). Link-local,
 * metadata and the rest are always refused.
 */
export function alertPolicy(allowPrivate: boolean): OutboundPolicy {
  const allowed = new Set<AddressClass>([ADDRESS_CLASSES.public])
  if (allowPrivate) {
    allowed.add(ADDRESS_CLASSES.loopback)
    allowed.add(ADDRESS_CLASSES.private)
  }
  return { name: allowPrivate ? 'alert destinations (private allowed)' : 'alert destinations', allowed }
}

/** Local alerts (desktop service): this machine only, so loopback addresses only. */
export const LOCAL_ALERT_POLICY: OutboundPolicy = {
  name: 'local alert destinations',
  allowed: new Set<AddressClass>([ADDRESS_CLASSES.loopback]),
}

/** The policy alert deliveries of these settings go out under. */
export function alertPolicyOf(settings: { allowPrivate: boolean; local?: boolean }): OutboundPolicy {
  return settings.local === true ? LOCAL_ALERT_POLICY : alertPolicy(settings.allowPrivate)
}

/** Assignment webhooks: loopback and private networks only; everything else, public included, is refused. */
export const WEBHOOK_POLICY: OutboundPolicy = {
  name: 'assignment webhooks',
  allowed: new Set<AddressClass>([ADDRESS_CLASSES.loopback, ADDRESS_CLASSES.private]),
}

/** The first address the policy refuses, with its class; null when every one is allowed. */
export function firstRefused(addresses: readonly string[], policy: OutboundPolicy): { address: string; cls: AddressClass | 'invalid' } | null {
  for (const address of addresses) {
    const cls = classifyAddress(address)
    if (cls === null) return { address, cls: 'invalid' }
    if (!policy.allowed.has(cls)) return { address, cls }
  }
  return null
}

// The operator files under deploy/ are checked with the real tools and the
// real configuration parser: nats-server tests the cluster configuration
// (and the fault tests' cluster runs from it), the Lookout environments of the
// compose file and the Kubernetes manifests pass loadConfig, and the systemd
// unit passes systemd-analyze where it is installed.
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, parseAllDocuments } from 'yaml'
import { loadConfig } from '../../deploy/config.ts'
import { findNatsServer } from '../../deploy/nats-server.ts'
import { NATS_CLUSTER_CONF } from '../helpers/nats-cluster.ts'

const deploy = (p: string) => new URL(`../../deploy/${p}`, import.meta.url)
const text = (p: string) => readFileSync(deploy(p), 'utf8')

t.test('deploy/nats/nats.conf: valid for nats-server, every node-specific value from the environment', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-natsconf-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const env = {
    NATS_SERVER_NAME: 'nats-1', NATS_LISTEN: '127.0.0.1:4222', NATS_CLUSTER_LISTEN: '127.0.0.1:6222', NATS_HTTP_LISTEN: '127.0.0.1:8222',
    NATS_ROUTE_1: 'nats-route://nats-1:6222', NATS_ROUTE_2: 'nats-route://nats-2:6222', NATS_ROUTE_3: 'nats-route://nats-3:6222',
    NATS_STORE_DIR: dir, NATS_MAX_FILE_STORE: '1073741824',
  }
  const bin = findNatsServer(process.env.LOOKOUT_NATS_SERVER)
  const ok = spawnSync(bin, ['-t', '-c', NATS_CLUSTER_CONF], { env: { ...process.env, ...env }, encoding: 'utf8' })
  t.equal(ok.status, 0, `nats-server -t: ${ok.stderr}${ok.stdout}`)
  const { NATS_SERVER_NAME: _, ...withoutName } = env
  const missing = spawnSync(bin, ['-t', '-c', NATS_CLUSTER_CONF], { env: { ...process.env, ...withoutName }, encoding: 'utf8' })
  t.not(missing.status, 0, 'a node without its name is refused')
  t.match(missing.stderr + missing.stdout, /NATS_SERVER_NAME/)
  t.match(text('nats/nats.conf'), /routes: \[\$NATS_ROUTE_1, \$NATS_ROUTE_2, \$NATS_ROUTE_3\]/, 'three routes')
})

type Service = { environment?: Record<string, string>; command?: string[]; deploy?: { replicas?: number }; volumes?: string[] }

t.test('deploy/compose: 3 NATS, 3 ClickHouse with Keeper, PostgreSQL, N api, M loader, monitor; the Lookout environment loads', async (t) => {
  const compose = parse(text('compose/docker-compose.yml'), { merge: true }) as { services: Record<string, Service> }
  const s = compose.services
  t.same(Object.keys(s).sort(), ['api', 'ch-1', 'ch-2', 'ch-3', 'loader', 'monitor', 'nats-1', 'nats-2', 'nats-3', 'postgres'])
  for (const n of ['nats-1', 'nats-2', 'nats-3']) {
    t.equal(s[n]?.environment?.NATS_SERVER_NAME, n, `${n} names itself`)
    t.ok(s[n]?.volumes?.some((v) => v.startsWith('../nats/nats.conf:')), `${n} runs deploy/nats/nats.conf`)
  }
  const keeperIds = ['ch-1', 'ch-2', 'ch-3'].map((n) => s[n]?.environment?.CH_KEEPER_ID)
  t.same(keeperIds, ['1', '2', '3'], 'one Keeper id per ClickHouse server')
  t.same(new Set(['ch-1', 'ch-2', 'ch-3'].map((n) => s[n]?.environment?.CH_REPLICA)).size, 3, 'unique replica macros')
  const clusterXml = text('clickhouse/config.d/lookout-cluster.xml')
  for (const n of ['ch-1', 'ch-2', 'ch-3']) t.match(clusterXml, `<replica><host>${n}</host>`, `${n} is a replica of the lookout cluster`)
  for (const role of ['api', 'loader', 'monitor']) {
    const svc = s[role] as Service
    t.same(svc.command, ['serve', '--role', role], `${role} runs its role`)
    const env = Object.fromEntries(Object.entries(svc.environment ?? {}).map(([k, v]) => [k, String(v).replace(/\$\{(\w+)[^}]*\}/g, 'secret')]))
    const c = loadConfig(env)
    t.equal(c.clickhouseLayout, 'cluster', `${role}: cluster layout`)
    t.equal(c.clickhouseCluster, 'lookout')
    t.equal(c.natsReplicas, 3, `${role}: stream replicas 3`)
    t.equal(c.natsUrl?.split(',').length, 3, `${role}: all three NATS nodes`)
    t.ok(c.databaseUrl !== undefined && c.clickhouseUrl !== undefined, `${role}: external PostgreSQL and ClickHouse`)
  }
  t.ok((s.api?.deploy?.replicas ?? 0) >= 2 && (s.loader?.deploy?.replicas ?? 0) >= 2, 'several api and loader processes')
})

t.test('deploy/k8s: the ConfigMap loads as Lookout configuration; a Deployment per role', async (t) => {
  const docs = parseAllDocuments(text('k8s/lookout.yaml')).map((d) => d.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any })
  const cm = docs.find((d) => d.kind === 'ConfigMap')
  const c = loadConfig({ ...cm?.data, CLICKHOUSE_URL: 'http://lookout:x@ch:8123', DATABASE_URL: 'postgres://lookout:x@pg/lookout' })
  t.equal(c.clickhouseLayout, 'cluster')
  t.equal(c.natsReplicas, 3)
  t.equal(c.natsUrl?.split(',').length, 3)
  const roles = docs.filter((d) => d.kind === 'Deployment').map((d) => d.spec.template.spec.containers[0].args.join(' '))
  t.same(roles.sort(), ['serve --role api', 'serve --role loader', 'serve --role monitor'])
  const nats = parse(text('k8s/nats-values.yaml')) as { config: { cluster: { replicas: number }; jetstream: { enabled: boolean } } }
  t.equal(nats.config.cluster.replicas, 3)
  t.ok(nats.config.jetstream.enabled)
  const ch = parseAllDocuments(text('k8s/clickhouse.yaml')).map((d) => d.toJS() as { kind: string; spec: any })
  t.equal(ch.find((d) => d.kind === 'ClickHouseInstallation')?.spec.configuration.clusters[0].name, 'lookout')
})

t.test('deploy/systemd/lookout.service', { skip: existsSync('/usr/bin/systemd-analyze') ? false : 'no systemd-analyze' }, async (t) => {
  // verify checks the unit's syntax; a missing binary or user on this machine is reported but is not a syntax error.
  let out = ''
  try {
    execFileSync('systemd-analyze', ['verify', '--man=no', new URL(deploy('systemd/lookout.service')).pathname], { stdio: 'pipe' })
  } catch (err) {
    out = String((err as { stderr?: Buffer }).stderr ?? '')
  }
  const problems = out.split('\n').filter((l) => l.trim() !== '' && !/Command .* is not executable|No such file|not found|Failed to prepare filename/.test(l))
  t.same(problems, [], 'no syntax problem in the unit')
})

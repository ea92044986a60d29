// Probe targets in their own process, so the benchmark's CPU figures are the
// monitor's alone: one HTTPS server (self-signed EC certificate) and one TCP
// listener. Prints {https, tcp, cert} as one JSON line, runs until killed.
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer } from 'node:net'
import { generate } from 'selfsigned'

const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
  keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
  extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
})
const https = createHttpsServer({ key: pems.private, cert: pems.cert, keepAliveTimeout: 1000 }, (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' })
  res.end('ok\n')
})
const tcp = createTcpServer((s) => {
  s.on('error', () => undefined)
  s.end()
})
const listen = (srv: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }) =>
  new Promise<number>((resolve) => srv.listen(0, '127.0.0.1', () => resolve((srv.address() as { port: number }).port)))
const [httpsPort, tcpPort] = await Promise.all([listen(https), listen(tcp)])
https.maxConnections = 10_000
process.stdout.write(JSON.stringify({ https: httpsPort, tcp: tcpPort, cert: pems.cert }) + '\n')
process.on('SIGTERM', () => process.exit(0))
